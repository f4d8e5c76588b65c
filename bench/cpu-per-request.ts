/**
 * The cost of one request, measured with one client at a time so that the figures hold on a
 * shared machine: CPU of the server's thread, CPU and statement time of its PostgreSQL
 * backends, and round trips. Shared by questionnaires-cpu.ts and workspace-cpu.ts. At
 * concurrency 32 on two cores a p99 is roughly 32 × (CPU per request) / 2.
 */
import fs from 'node:fs';
import inspector from 'node:inspector/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import type { ClientScript } from './load';
import type { CpuClientOptions } from './questionnaires-cpu-worker';

/** Linux reports process CPU in clock ticks of 10 ms. */
export const TICK_MS = 10;

const WARMUP = 200;
const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 1000);

/** Runs the client in a worker thread (questionnaires-cpu-worker.ts); answers its error count. */
export function sendAll(baseUrl: string, script: ClientScript, count: number, start: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const options: CpuClientOptions = { baseUrl, script, count, start };
    const worker = new Worker(new URL('./questionnaires-cpu-worker.ts', import.meta.url), { workerData: options });
    worker.once('message', (errors: number) => resolve(errors));
    worker.once('error', reject);
  });
}

/** CPU ticks (user + system) of each database server process serving our database, by pid. */
export async function backendTicks(monitor: pg.Client): Promise<Map<number, number>> {
  const { rows } = await monitor.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  const ticks = new Map<number, number>();
  for (const { pid } of rows) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(pid, Number(fields[11]) + Number(fields[12]));
    } catch {
      // a backend that ended meanwhile
    }
  }
  return ticks;
}

/** Ticks spent between two readings by the processes alive at the second (a new one counts whole). */
export function ticksBetween(before: Map<number, number>, after: Map<number, number>): number {
  let ticks = 0;
  for (const [pid, now] of after) ticks += now - (before.get(pid) ?? 0);
  return ticks;
}

/** Milliseconds the database spent running statements, as its statistics say (flushed when idle). */
export async function activeMs(monitor: pg.Client): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await monitor.query('select pg_stat_clear_snapshot()');
  const { rows } = await monitor.query<{ active: number }>('select active_time as active from pg_stat_database where datname = current_database()');
  return Number(rows[0]!.active);
}

export interface Figures {
  scenario: string;
  nodeMs: number;
  processMs: number;
  pgCpuMs: number;
  pgActiveMs: number;
  roundTrips: number;
  errors: number;
}

/**
 * Counts the server's queries (each a round trip; withUser's begin message is one too) and,
 * by the start of their text, the time until each answered.
 */
export function countQueries(): { stop: () => { count: number; byStatement: Map<string, { n: number; ms: number }> } } {
  const original = pg.Client.prototype.query;
  let count = 0;
  const byStatement = new Map<string, { n: number; ms: number }>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    count++;
    const first = args[0] as string | { text: string };
    const key = (typeof first === 'string' ? first : first.text).replace(/\s+/g, ' ').slice(0, 70);
    const began = performance.now();
    const result = (original as (...a: unknown[]) => unknown).apply(this, args);
    if (result instanceof Promise) {
      void result.then(
        () => {
          const entry = byStatement.get(key) ?? { n: 0, ms: 0 };
          entry.n++;
          entry.ms += performance.now() - began;
          byStatement.set(key, entry);
        },
        () => undefined,
      );
    }
    return result;
  } as typeof original;
  return {
    stop() {
      pg.Client.prototype.query = original;
      return { count, byStatement };
    },
  };
}

export async function measureScript(
  name: string,
  script: ClientScript,
  baseUrl: string,
  monitor: pg.Client,
  profileDir: string | undefined,
): Promise<Figures> {
  await sendAll(baseUrl, script, WARMUP, 0);
  const session = profileDir ? new inspector.Session() : undefined;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const ticks0 = await backendTicks(monitor);
  const active0 = await activeMs(monitor);
  const thread0 = process.threadCpuUsage();
  const process0 = process.cpuUsage();
  const queries = countQueries();
  const errors = await sendAll(baseUrl, script, REQUESTS, WARMUP);
  const { count: roundTrips, byStatement } = queries.stop();
  if (process.env.BENCH_CPU_STATEMENTS === '1') {
    for (const [text, { n, ms }] of byStatement) console.log(`    ${(ms / n).toFixed(3)} ms × ${(n / REQUESTS).toFixed(2)}  ${text}`);
  }
  const process1 = process.cpuUsage(process0);
  const thread1 = process.threadCpuUsage(thread0);
  const ticks1 = await backendTicks(monitor);
  const active1 = await activeMs(monitor);
  if (session) {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(profileDir!, { recursive: true });
    const file = path.join(profileDir!, `${name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 60)}.cpuprofile`);
    fs.writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  }
  return {
    scenario: name,
    nodeMs: (thread1.user + thread1.system) / 1000 / REQUESTS,
    processMs: (process1.user + process1.system) / 1000 / REQUESTS,
    pgCpuMs: (ticksBetween(ticks0, ticks1) * TICK_MS) / REQUESTS,
    pgActiveMs: (active1 - active0) / REQUESTS,
    roundTrips: roundTrips / REQUESTS,
    errors,
  };
}


export function describeFigures(figures: Figures): string {
  return (
    `${figures.scenario}\n  Node (server thread) ${figures.nodeMs.toFixed(3)} ms, whole process ${figures.processMs.toFixed(3)} ms; ` +
    `PostgreSQL CPU ${figures.pgCpuMs.toFixed(3)} ms, statement time ${figures.pgActiveMs.toFixed(3)} ms; ` +
    `${figures.roundTrips.toFixed(1)} round trips; ${figures.errors} errors`
  );
}

export const CPU_NOTE = `Per request, ${REQUESTS} sequential requests after ${WARMUP} warm-up. Whole process includes the client.`;
