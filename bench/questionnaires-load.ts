/**
 * The SQL side of the questionnaire benchmark, where each virtual client is a different person:
 * one closed loop per client, as that client's user, merged into one result. The HTTP side is
 * load.ts's runScriptedLoad (one script per client).
 *
 * A client sends either one prepared statement per transaction (`statementClient`, the GETs: the
 * very select the REST layer runs, through sql-load.ts's runOnce) or the very message the server
 * sends for a request (`messageClient`, the POST: setup, statements and commit in one round
 * trip through queryOnceAsUser, as routes.ts writeInOneMessage sends it), so that the API's
 * figures stand beside the same database work.
 */
import type pg from 'pg';
import { queryOnceAsUser, type SignedInRole, type Statement } from '../src/server/db/transaction';
import type { LoadResult } from './load';
import { runOnce, type SqlRequest } from './sql-load';

/** One virtual client of the SQL baseline. */
export interface SqlClient {
  /** Runs the client's request number `step` (its requests taken in turn) as its person. */
  run(pool: pg.Pool, step: number): Promise<unknown>;
}

/** A prepared statement in a withUser transaction, its parameter sets used in turn. */
export function statementClient(request: SqlRequest): SqlClient {
  return { run: (pool, step) => runOnce(pool, request, request.values[step % request.values.length]) };
}

/** What the server sends for one request in one message: its statements, as whom and in which role. */
export interface SqlMessage {
  userId: string;
  role: SignedInRole;
  statements: readonly Statement[];
}

/** Messages sent as the server sends them (queryOnceAsUser), in turn. */
export function messageClient(messages: readonly SqlMessage[]): SqlClient {
  return {
    run: (pool, step) => {
      const message = messages[step % messages.length]!;
      return queryOnceAsUser(pool, { userId: message.userId }, message.statements, message.role);
    },
  };
}

export interface ScriptedSqlOptions {
  pool: pg.Pool;
  /** One per virtual client, each run as its own user. */
  clients: readonly SqlClient[];
  warmupMs: number;
  durationMs: number;
}

interface Phase {
  latencies: number[];
  errors: number;
  sampleError: string | undefined;
  elapsedMs: number;
}

/** Every client in a closed loop until the deadline; each carries on with its next request. */
async function runPhase(options: ScriptedSqlOptions, steps: number[], durationMs: number): Promise<Phase> {
  const phase: Phase = { latencies: [], errors: 0, sampleError: undefined, elapsedMs: 0 };
  const start = performance.now();
  const deadline = start + durationMs;
  const loop = async (client: SqlClient, index: number) => {
    while (performance.now() < deadline) {
      const began = performance.now();
      try {
        await client.run(options.pool, steps[index]!++);
      } catch (error) {
        phase.errors++;
        phase.sampleError ??= error instanceof Error ? error.message : String(error);
      }
      phase.latencies.push(performance.now() - began);
    }
  };
  await Promise.all(options.clients.map(loop));
  phase.elapsedMs = performance.now() - start;
  return phase;
}

/**
 * The SQL baseline with one user per client: all clients started together, one warm-up phase
 * (discarded) and one measured phase, as runScriptedLoad does for HTTP.
 */
export async function runScriptedSqlLoad(options: ScriptedSqlOptions): Promise<LoadResult> {
  const steps = options.clients.map(() => 0);
  await runPhase(options, steps, options.warmupMs);
  const measured = await runPhase(options, steps, options.durationMs);
  return {
    latenciesMs: new Float64Array(measured.latencies),
    errors: measured.errors,
    sampleError: measured.sampleError,
    elapsedMs: measured.elapsedMs,
  };
}
