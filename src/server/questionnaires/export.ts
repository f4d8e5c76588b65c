/**
 * The research export (issue 7: one definition drives "the table, validation, scoring, the form
 * and the export"): a questionnaire's records as a CSV file and its codebook, for coordinators.
 *
 *   GET /api/export/<code>.csv                          every record the coordinator may read
 *   GET /api/export/<code>/codebook.csv?locale=ar|de|en one row per exported column
 *
 * The records are read as the request role through the `<code>_records` read view joined to
 * the cases, so row-level security still decides what leaves the database (the view shows
 * scores to coordinators). One statement per instrument; the file is built in memory after the
 * transaction ends, so a slow download never holds a database connection (PGlite has one).
 * Columns, CSV and codebook: src/domain/instruments/export.ts. See
 * docs/decisions/0016-research-export.md.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { INSTRUMENT_CODES, INSTRUMENTS, isInstrumentCode, type InstrumentCode, type InstrumentDefinition } from '../../domain/instruments';
import { codebookCsv, exportCsvChunks, exportFileName, type ExportRecord } from '../../domain/instruments/export';
import { isLocale, type Locale } from '../../domain/locales';
import { MEASUREMENT_TIMES } from '../../domain/measurements';
import type { Config } from '../config';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, notFound, unauthorized } from '../http/errors';
import { readViewOf } from './columns';
import { ident } from './migration';
import { caseReadsOf } from '../integrity/access-log';

const UTC_ISO = `'YYYY-MM-DD"T"HH24:MI:SS"Z"'`;

/** Times of measurement in trial order, as a SQL array for `array_position`. */
const TIME_ORDER = `array[${MEASUREMENT_TIMES.map((time) => `'${time}'`).join(', ')}]::text[]`;

/**
 * The one statement of an export: every visible record of the instrument with its case's facts,
 * ordered by case, then time of measurement in trial order. Values come back as the domain
 * wants them (times as UTC ISO text, dates as YYYY-MM-DD, the total as a number), in columns by
 * position: fixed columns first, then the items in the definition's order.
 */
export function exportStatement(code: InstrumentCode, definition: InstrumentDefinition): string {
  const items = definition.items.map((item) => (item.scale.kind === 'date' ? `to_char(r.${ident(item.id)}, 'YYYY-MM-DD')` : `r.${ident(item.id)}`));
  return `select r.case_id, r.time_of_measurement,
       to_char(r.created_at at time zone 'UTC', ${UTC_ISO}), to_char(r.updated_at at time zone 'UTC', ${UTC_ISO}),
       c.exclude_from_analysis, c.is_dropout,
       (select a.treatment from app_public.treatment_assignments a where a.case_id = r.case_id),
       r.complete, r.total::float8, r.band, r.subscales, r.flags, r.diagnoses${items.length > 0 ? `,\n       ${items.join(', ')}` : ''}
  from ${readViewOf(code)} r
  join app_public.cases c on c.id = r.case_id
 order by r.case_id, array_position(${TIME_ORDER}, r.time_of_measurement), r.time_of_measurement`;
}

const FIXED_COLUMNS = 13;

/** A row of `exportStatement` (array mode) as the domain's record. */
function toRecord(row: unknown[]): ExportRecord {
  return {
    caseId: row[0] as string,
    timeOfMeasurement: row[1] as string,
    createdAt: row[2] as string,
    updatedAt: row[3] as string,
    excludeFromAnalysis: row[4] as boolean,
    isDropout: row[5] as boolean,
    treatment: row[6] as string | null,
    complete: row[7] as boolean | null,
    total: row[8] as number | null,
    band: row[9] as string | null,
    subscales: row[10] as ExportRecord['subscales'],
    flags: row[11] as string[] | null,
    diagnoses: row[12] as ExportRecord['diagnoses'],
    items: row.slice(FIXED_COLUMNS) as ExportRecord['items'],
  };
}

/** Every record of an instrument the signed-in person may read, in export order. */
export async function readExportRecords(sql: Sql, code: InstrumentCode, definition: InstrumentDefinition): Promise<ExportRecord[]> {
  const result = await sql.query<unknown[]>({ text: exportStatement(code, definition), rowMode: 'array' });
  return result.rows.map(toRecord);
}

/** The database decides who is a coordinator, as it does for every other rule. */
export async function requireCoordinator(sql: Sql): Promise<void> {
  const { rows } = await sql.query<{ coordinator: boolean }>('select app_hidden.is_coordinator() as coordinator');
  if (!rows[0]?.coordinator) throw forbidden('forbidden', 'Only coordinators may download research data. Ask a coordinator of your trial for the export.');
}

function requireSignedIn(request: FastifyRequest): void {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in as a coordinator to download research data.');
}

function requireInstrument(code: string): InstrumentCode {
  if (!isInstrumentCode(code)) throw notFound('unknown_questionnaire', `There is no questionnaire "${code}". Known questionnaires: ${INSTRUMENT_CODES.join(', ')}.`);
  return code;
}

export function requireLocale(value: unknown, config: Config): Locale {
  if (value === undefined) return (config.locales[0] ?? 'ar') as Locale;
  if (typeof value === 'string' && isLocale(value) && config.locales.includes(value)) return value;
  throw badRequest('locale_unsupported', `The locale ${JSON.stringify(value)} is not supported; use one of ${config.locales.join(', ')}.`);
}

/** A CSV download: UTF-8 text (or a stream of it), saved under its file name, never kept by a cache. */
function sendCsv(reply: FastifyReply, fileName: string, body: string | Readable): FastifyReply {
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName}"`)
    .header('cache-control', 'no-store')
    .send(body);
}

export function registerExportRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  app.get<{ Params: { code: string } }>('/api/export/:code.csv', async (request, reply) => {
    requireSignedIn(request);
    const { code, definition, records } = await withUser(pool, request.identity, async (sql) => {
      await requireCoordinator(sql);
      const known = requireInstrument(request.params.code);
      return { code: known, definition: INSTRUMENTS[known], records: await readExportRecords(sql, known, INSTRUMENTS[known]) };
    });
    request.log.info({ export: code, records: records.length, userId: request.identity.userId }, 'research data exported');
    // Issue 30: an export is a read of every case it holds.
    caseReadsOf(request).add('export', 'questionnaires', records.map((record) => record.caseId));
    // Streamed in chunks of lines: no one large string, and other requests run in between.
    return sendCsv(reply, exportFileName(code, new Date()), Readable.from(exportCsvChunks(definition, records)));
  });

  app.get<{ Params: { code: string }; Querystring: { locale?: unknown } }>('/api/export/:code/codebook.csv', async (request, reply) => {
    requireSignedIn(request);
    await withUser(pool, request.identity, requireCoordinator);
    const code = requireInstrument(request.params.code);
    const locale = requireLocale(request.query.locale, config);
    return sendCsv(reply, exportFileName(code, new Date(), locale), codebookCsv(INSTRUMENTS[code], locale));
  });
}
