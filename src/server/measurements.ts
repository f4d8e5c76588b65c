/**
 * What the measurement screens read besides the records: the schedule this installation runs
 * (which questionnaires are due at each time, from the MEASUREMENTS_* settings) and the item
 * wording a trial installed as content templates (`instr-<code>-…`, see
 * src/domain/instruments/wording.ts). Both are open: /messungen/pre and /frageboegen are open
 * routes, and neither says anything about a person.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { INSTRUMENT_CODES, templateCode } from '../domain/instruments';
import { MEASUREMENT_TIMES } from '../domain/measurements';
import type { Config } from './config';
import { withUser } from './db/transaction';

export function registerMeasurementRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  app.get('/api/measurements/schedule', async () => ({ times: MEASUREMENT_TIMES, schedule: config.measurementSchedule }));

  app.get<{ Params: { instrument: string }; Querystring: { locale?: string } }>(
    '/api/wording/:instrument',
    {
      schema: {
        params: { type: 'object', properties: { instrument: { type: 'string', enum: [...INSTRUMENT_CODES] } } },
        querystring: { type: 'object', additionalProperties: false, properties: { locale: { type: 'string', enum: [...config.locales] } } },
      },
    },
    async (request) => {
      const locale = request.query.locale ?? config.locales[0] ?? 'ar';
      const { instrument } = request.params;
      // Every text of the instrument starts with the code of its title minus "title".
      const prefix = templateCode(instrument, { kind: 'title' }).replace(/title$/, '');
      const rows = await withUser(pool, request.identity, async (sql) => {
        const result = await sql.query<{ code: string; content: string }>(
          `select code, content
             from app_public.content_templates
            where type = 'PAGE' and language_code = $1 and starts_with(code, $2)
              and treatment_code is null and reader_gender is null and writer_gender is null`,
          [locale, prefix],
        );
        return result.rows;
      });
      return { instrument, locale, texts: Object.fromEntries(rows.map((row) => [row.code, row.content])) };
    },
  );
}
