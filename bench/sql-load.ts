/**
 * The baseline beside each HTTP scenario: the same question asked in SQL straight through a
 * node-postgres pool, closed-loop at the same concurrency. Each request is one transaction
 * through withUser, exactly as the server opens one (role sanad_user, jwt.claims.user_id), so
 * row-level security costs the baseline what it costs the API. The difference between the two
 * is what HTTP, authentication, GraphQL planning and JSON add.
 *
 * It runs on the main thread: the client side of a SQL request is a few microseconds of
 * node-postgres work, and on PGlite the database itself lives in this thread.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { withUser } from '../src/server/db/transaction';
import type { LoadResult } from './load';

export interface SqlRequest {
  /** The signed-in user the transaction runs as. */
  userId: string;
  text: string;
  /** Parameter sets, used in turn (as LoadRequest.bodies): several spread the load over several rows. */
  values: unknown[][];
}

export interface SqlLoadOptions {
  pool: pg.Pool;
  request: SqlRequest;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

/**
 * BENCH_SQL_PREPARED=0 sends the baseline unnamed, planned on every request, as the bench did
 * before 2026-11 (the issue "Speed at clinic scale" measured its first table that way).
 */
const PREPARED = process.env.BENCH_SQL_PREPARED !== '0';

/**
 * The statement as a prepared one, named by its text: the API's statements are prepared on each
 * connection (PostGraphile names them), so the baseline is too, or it would pay planning on every
 * request that the API does not (large for statements that inline SQL functions).
 */
export function preparedQuery(text: string, values: unknown[]): pg.QueryConfig {
  if (!PREPARED) return { text, values };
  return { name: `bench-${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text, values };
}

export async function runOnce(pool: pg.Pool, request: SqlRequest, values: unknown[] = request.values[0] ?? []): Promise<pg.QueryResult> {
  return withUser(pool, { userId: request.userId }, (sql) => sql.query(preparedQuery(request.text, values)));
}

interface Phase {
  latencies: number[];
  errors: number;
  sampleError: string | undefined;
  elapsedMs: number;
}

async function runPhase(options: SqlLoadOptions, durationMs: number): Promise<Phase> {
  const { pool, request } = options;
  const phase: Phase = { latencies: [], errors: 0, sampleError: undefined, elapsedMs: 0 };
  let sent = 0;
  const start = performance.now();
  const deadline = start + durationMs;
  const client = async () => {
    while (performance.now() < deadline) {
      const values = request.values[sent++ % request.values.length] ?? [];
      const began = performance.now();
      try {
        await runOnce(pool, request, values);
      } catch (error) {
        phase.errors++;
        phase.sampleError ??= error instanceof Error ? error.message : String(error);
      }
      phase.latencies.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, client));
  phase.elapsedMs = performance.now() - start;
  return phase;
}

/** One warm-up phase (discarded) and one measured phase, as runLoad does for HTTP. */
export async function runSqlLoad(options: SqlLoadOptions): Promise<LoadResult> {
  await runPhase(options, options.warmupMs);
  const measured = await runPhase(options, options.durationMs);
  return {
    latenciesMs: new Float64Array(measured.latencies),
    errors: measured.errors,
    sampleError: measured.sampleError,
    elapsedMs: measured.elapsedMs,
  };
}
