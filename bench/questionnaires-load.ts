/**
 * Load for the questionnaire benchmark, where each virtual client is a different person: a
 * patient writing their own case's records, a therapist opening their own cases. load.ts sends
 * one path with one set of headers, which cannot say that; here each client gets its own
 * script (headers, and requests with paths and bodies used in turn). The HTTP side runs in a
 * worker thread as load.ts does (questionnaires-load-worker.ts); the SQL side is sql-load.ts,
 * one closed loop per client with that client's user, merged into one result.
 */
import type pg from 'pg';
import { Worker } from 'node:worker_threads';
import type { LoadResult } from './load';
import { runSqlLoad, type SqlRequest } from './sql-load';

export interface ScriptStep {
  path: string;
  body?: string;
}

/** What one virtual client sends, in turn, for as long as the phase lasts. */
export interface ClientScript {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  steps: ScriptStep[];
}

export interface ScriptedLoadOptions {
  baseUrl: string;
  /** One per virtual client; the concurrency is their number. */
  clients: ClientScript[];
  warmupMs: number;
  durationMs: number;
}

/** Runs one warm-up phase (discarded) and one measured phase in a fresh worker, as runLoad. */
export function runScriptedLoad(options: ScriptedLoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./questionnaires-load-worker.ts', import.meta.url), { workerData: options });
    let settled = false;
    worker.once('message', (result: LoadResult) => {
      settled = true;
      resolve(result);
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`The load worker stopped (exit code ${code}) before reporting.`));
    });
  });
}

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
