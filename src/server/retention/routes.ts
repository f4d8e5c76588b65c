/**
 * Retention and the anonymization stage (issue 31 items 4 and 5), under /api/retention; the SQL
 * of 0247 decides who may (coordinators).
 *
 *   GET  /api/retention                           the periods per record kind and the last runs
 *   PUT  /api/retention/:kind                     a kind's period {keepDays: number | null}
 *   GET  /api/retention/preview                   the dry run: what the job would do now (logged)
 *   GET  /api/retention/cases/:caseId/anonymization  when a case's anonymization is due, what it erases
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withUser } from '../db/transaction';
import { badRequest, forbidden, notFound, unauthorized } from '../http/errors';
import { anonymizationPreview, recentRetentionRuns, retentionSettings, runRetention, setRetention } from './service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function signedIn(request: FastifyRequest): void {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
}

export function registerRetentionRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get('/api/retention', async (request) => {
    signedIn(request);
    return withUser(pool, request.identity, async (sql) => {
      const coordinator = await sql.query<{ ok: boolean }>('select app_hidden.is_coordinator() as ok');
      if (!coordinator.rows[0]?.ok) throw forbidden('forbidden', 'Only coordinators may see the retention periods.');
      return { settings: await retentionSettings(sql), runs: await recentRetentionRuns(sql) };
    });
  });

  app.put<{ Params: { kind: string } }>('/api/retention/:kind', async (request) => {
    signedIn(request);
    const body = request.body as { keepDays?: unknown } | null;
    const keepDays = body?.keepDays;
    if (!(keepDays === null || (typeof keepDays === 'number' && Number.isInteger(keepDays) && keepDays >= 0 && keepDays <= 36500))) {
      throw badRequest('out_of_range', 'keepDays is a whole number of days from 0 to 36500, or null to keep for ever.');
    }
    const kind = request.params.kind;
    await withUser(pool, request.identity, (sql) => setRetention(sql, kind, keepDays));
    return withUser(pool, request.identity, retentionSettings);
  });

  app.get('/api/retention/preview', async (request) => {
    signedIn(request);
    return withUser(pool, request.identity, (sql) => runRetention(sql, false));
  });

  app.get<{ Params: { caseId: string } }>('/api/retention/cases/:caseId/anonymization', async (request) => {
    signedIn(request);
    if (!UUID.test(request.params.caseId)) throw notFound('case_not_found', 'There is no such case, or you cannot see it.');
    const caseId = request.params.caseId;
    return withUser(pool, request.identity, (sql) => anonymizationPreview(sql, caseId));
  });
}
