/**
 * The SQL side of the questionnaire benchmark, where each virtual client is a different person:
 * one sql-load.ts closed loop per client with that client's user, merged into one result. The
 * HTTP side is load.ts's runScriptedLoad (one script per client).
 */
import type pg from 'pg';
import type { LoadResult } from './load';
import { runSqlLoad, type SqlRequest } from './sql-load';

export interface ScriptedSqlOptions {
  pool: pg.Pool;
  /** One per virtual client, each run as its own user. */
  clients: SqlRequest[];
  warmupMs: number;
  durationMs: number;
}

/**
 * The SQL baseline with one user per client: one sql-load loop of concurrency 1 per client,
 * all started together, so their warm-up and measured phases coincide.
 */
export async function runScriptedSqlLoad(options: ScriptedSqlOptions): Promise<LoadResult> {
  const results = await Promise.all(
    options.clients.map((request) => runSqlLoad({ pool: options.pool, request, concurrency: 1, warmupMs: options.warmupMs, durationMs: options.durationMs })),
  );
  return mergeResults(results);
}

/** Several clients' results as one: all latencies, all errors, over the longest phase. */
export function mergeResults(results: readonly LoadResult[]): LoadResult {
  const total = results.reduce((sum, r) => sum + r.latenciesMs.length, 0);
  const latenciesMs = new Float64Array(total);
  let at = 0;
  for (const result of results) {
    latenciesMs.set(result.latenciesMs, at);
    at += result.latenciesMs.length;
  }
  return {
    latenciesMs,
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    sampleError: results.find((r) => r.sampleError !== undefined)?.sampleError,
    elapsedMs: Math.max(0, ...results.map((r) => r.elapsedMs)),
  };
}
