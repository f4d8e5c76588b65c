/**
 * Recording staff reads of case records (issue 30). Every door that answers with case records
 * notes what it read on the request (caseReadsOf(request).add(…)); the notes are written to
 * app_public.access_log as one row per kind of record before the answer leaves, so no answer
 * carrying case records goes out unlogged. Nothing switches this off. A patient reading their
 * own case is not a staff read: the database leaves those out (app_hidden.record_case_reads).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { CaseReads } from '../../domain/access-log';
import { withOwner } from '../db/transaction';

const READS = Symbol('sanad.caseReads');
type WithReads = FastifyRequest & { [READS]?: CaseReads };

/** The reads noted on this request so far (created on first use). */
export function caseReadsOf(request: FastifyRequest): CaseReads {
  const holder = request as WithReads;
  return (holder[READS] ??= new CaseReads());
}

/** Writes one read request's notes: one access-log row per kind of record. */
export async function recordCaseReads(pool: pg.Pool, readerId: string, reads: CaseReads): Promise<void> {
  if (reads.empty) return;
  const { kinds, caseLists } = reads.toParameters();
  await withOwner(pool, (sql) =>
    sql.query('select app_hidden.record_case_reads($1, $2, $3, $4)', [readerId, reads.api ?? 'rest', kinds, JSON.stringify(caseLists)]),
  );
}

/**
 * Writes the request's notes, once, when the answer is a success. A failure to log fails the
 * answer: records that cannot be logged are not handed out.
 */
export async function flushCaseReads(pool: pg.Pool, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const holder = request as WithReads;
  const reads = holder[READS];
  if (!reads || reads.empty) return;
  holder[READS] = new CaseReads();
  const readerId = request.identity?.userId;
  if (!readerId || reply.statusCode >= 400) return;
  await recordCaseReads(pool, readerId, reads);
}

/**
 * The app-wide hook that writes the notes of REST and the other routes before their answer
 * is sent. Scopes whose hooks note reads late (GraphQL, workflow: onSend of their own, which
 * runs after this one) flush themselves.
 */
export function registerAccessLog(app: FastifyInstance, pool: pg.Pool): void {
  app.addHook('onSend', async (request, reply, payload) => {
    await flushCaseReads(pool, request, reply);
    return payload;
  });
}
