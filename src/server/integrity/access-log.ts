/**
 * Recording staff reads of case records (issue 30). Every door that answers with case records
 * notes what it read on the request (caseReadsOf(request).add(…)); the notes are written to
 * app_public.access_log as one row per kind of record before the answer leaves, so no answer
 * carrying case records goes out unlogged. Nothing switches this off. A patient reading their
 * own case is not a staff read: the database leaves those out (app_hidden.record_case_reads).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import pg from 'pg';
import { CaseReads, READ_APIS, RECORD_KINDS } from '../../domain/access-log';

const { escapeLiteral } = pg;

const READS = Symbol('sanad.caseReads');
type WithReads = FastifyRequest & { [READS]?: CaseReads };

/** The reads noted on this request so far (created on first use). */
export function caseReadsOf(request: FastifyRequest): CaseReads {
  const holder = request as WithReads;
  return (holder[READS] ??= new CaseReads());
}

/**
 * Writes one read request's notes: one access-log row per kind of record, in one message (the
 * transaction and the call together, one round trip). Every value is checked before it is
 * quoted: the reader a verified UUID, kinds and door from fixed lists, case ids UUIDs (CaseReads).
 */
export async function recordCaseReads(pool: pg.Pool, readerId: string, reads: CaseReads): Promise<void> {
  if (reads.empty) return;
  const { kinds, caseLists } = reads.toParameters();
  if (!UUID.test(readerId)) throw new Error('The reader is not a UUID');
  const api = reads.api ?? 'rest';
  if (!(READ_APIS as readonly string[]).includes(api) || !kinds.every((kind) => (RECORD_KINDS as readonly string[]).includes(kind))) {
    throw new Error('Unknown kind of record or door');
  }
  const call = `select app_hidden.record_case_reads(${escapeLiteral(readerId)}, ${escapeLiteral(api)}, ${escapeLiteral(`{${kinds.join(',')}}`)}::text[], ${escapeLiteral(JSON.stringify(caseLists))}::jsonb)`;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`begin; ${call}; commit`);
  } catch (error) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
