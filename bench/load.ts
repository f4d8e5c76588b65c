/**
 * Closed-loop load: virtual clients, each sending its next request as soon as the previous one
 * has answered; either one request for all (`runLoad`) or a script per client, so each can be
 * another person (`runScriptedLoad`). The clients run in a worker thread, so that building
 * requests and reading responses do not queue behind the server on its event loop; the
 * server's own timings are what we want to see.
 */
import { Worker } from 'node:worker_threads';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  /** Request bodies, used in turn: several bodies spread the load over several accounts. */
  bodies?: string[];
  /** A GraphQL answer with `errors` counts as an error even though its status is 200. */
  graphql?: boolean;
}

export interface LoadOptions {
  baseUrl: string;
  request: LoadRequest;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface ScriptStep {
  path: string;
  body?: string;
}

/** What one virtual client sends, in turn, for as long as the phase lasts. */
export interface ClientScript {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  steps: ScriptStep[];
  /** A GraphQL answer with `errors` counts as an error even though its status is 200. */
  graphql?: boolean;
}

export interface ScriptedLoadOptions {
  baseUrl: string;
  /** One per virtual client (each may be a different person); the concurrency is their number. */
  clients: ClientScript[];
  warmupMs: number;
  durationMs: number;
}

export interface LoadResult {
  /** Latency of every request completed in the measured phase, in milliseconds. */
  latenciesMs: Float64Array;
  errors: number;
  /** One failed answer, shortened, so that a nonzero error count can be explained. */
  sampleError: string | undefined;
  elapsedMs: number;
}

/** One request for every client: `concurrency` copies of it, each starting at another body. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { request } = options;
  const bodies = request.bodies?.length ? request.bodies : [undefined];
  const clients = Array.from({ length: options.concurrency }, (_, client): ClientScript => ({
    method: request.method,
    headers: request.headers,
    graphql: request.graphql,
    steps: bodies.map((_body, k) => {
      const body = bodies[(client + k) % bodies.length];
      return body === undefined ? { path: request.path } : { path: request.path, body };
    }),
  }));
  return runScriptedLoad({ baseUrl: options.baseUrl, clients, warmupMs: options.warmupMs, durationMs: options.durationMs });
}

/** Runs one warm-up phase (discarded) and one measured phase in a fresh worker. */
export function runScriptedLoad(options: ScriptedLoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.ts', import.meta.url), { workerData: options });
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

export interface Summary {
  requests: number;
  perSecond: number;
  p50: number;
  p99: number;
  errors: number;
}

export function summarize(result: LoadResult): Summary {
  const sorted = Float64Array.from(result.latenciesMs).sort();
  return {
    requests: sorted.length,
    perSecond: result.elapsedMs > 0 ? (sorted.length * 1000) / result.elapsedMs : 0,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    errors: result.errors,
  };
}

/** Nearest-rank percentile of sorted values: the smallest value with q of the values at or below it. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1]!;
}
