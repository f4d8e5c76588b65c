/**
 * The counseling path (issue 27 item 5), under /api/counseling. Each route validates, opens a
 * transaction as the request role (withUser) and calls one named SQL function, which decides
 * who may (db/migrations/0225-counseling-path.sql):
 *
 *   GET  /api/counseling/counselors                the active counselor accounts (coordinators)
 *   POST /api/counseling/cases/:caseId/counselor   assigns the case's counselor {counselorId}:
 *                                                  the one door to the counselor role, which also
 *                                                  completes the process's "Assign a counselor"
 *
 * The counselor's own work goes through the doors that exist: the counseling tasks through the
 * workflow routes, letters through /api/letters, worksheet feedback through the worksheets.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, notFound, unauthorized } from '../http/errors';
import { trialError } from '../trial/routes';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function run<T>(pool: pg.Pool, request: FastifyRequest, fn: (sql: Sql) => Promise<T>): Promise<T> {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
  try {
    return await withUser(pool, request.identity, fn);
  } catch (error) {
    throw trialError(error);
  }
}

export interface CounselorAccount {
  id: string;
  username: string;
  alias: string | null;
}

/** The counselor accounts a coordinator may choose from (empty for anyone else). */
export async function counselorAccounts(sql: Sql): Promise<CounselorAccount[]> {
  const { rows } = await sql.query<CounselorAccount>('select id, username, alias from app_hidden.counselor_accounts()');
  return rows;
}

/** The one door to a case's counselor (app_hidden.assign_counselor decides and refuses). */
export async function assignCounselor(sql: Sql, caseId: string, counselorId: string): Promise<void> {
  await sql.query('select app_hidden.assign_counselor($1, $2)', [caseId, counselorId]);
}

/** The counselor's id from the body, or a 400 a person can act on. */
function counselorIdFrom(body: unknown): string {
  const value = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>).counselorId : undefined;
  if (typeof value !== 'string' || !UUID.test(value)) throw badRequest('not_a_counselor', 'Choose a person with an active counselor account.');
  return value;
}

export function registerCounselingRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get('/api/counseling/counselors', async (request) => run(pool, request, (sql) => counselorAccounts(sql)));

  app.post<{ Params: { caseId: string } }>('/api/counseling/cases/:caseId/counselor', async (request, reply) => {
    if (!UUID.test(request.params.caseId)) throw notFound('case_not_found', 'There is no such case.');
    const counselorId = counselorIdFrom(request.body);
    await run(pool, request, (sql) => assignCounselor(sql, request.params.caseId, counselorId));
    return reply.code(204).send();
  });
}
