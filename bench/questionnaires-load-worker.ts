/**
 * The worker thread of questionnaires-load.ts: load-worker.ts with one script per virtual
 * client (its own headers, paths and bodies). Plain node:http with a keep-alive agent, one
 * connection per client, as a phone keeps its connection to the API.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { LoadResult } from './load';
import type { ClientScript, ScriptedLoadOptions, ScriptStep } from './questionnaires-load';

/** A request that takes this long is counted as an error rather than hanging the benchmark. */
const REQUEST_TIMEOUT_MS = 30_000;

interface Answer {
  ok: boolean;
  problem?: string;
}

interface Phase {
  latencies: number[];
  errors: number;
  sampleError: string | undefined;
  elapsedMs: number;
}

function send(agent: http.Agent, target: URL, script: ClientScript, step: ScriptStep): Promise<Answer> {
  return new Promise((resolve) => {
    const headers = step.body === undefined ? script.headers : { ...script.headers, 'content-length': String(Buffer.byteLength(step.body)) };
    const outgoing = http.request({ agent, host: target.hostname, port: target.port, method: script.method, path: step.path, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        const ok = status >= 200 && status < 300;
        resolve(ok ? { ok } : { ok, problem: `${status} ${Buffer.concat(chunks).toString('utf8').slice(0, 300)}` });
      });
      response.on('error', (error) => resolve({ ok: false, problem: error.message }));
    });
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    outgoing.on('error', (error) => resolve({ ok: false, problem: error.message }));
    outgoing.end(step.body);
  });
}

/** Every client loops over its own script until the deadline, continuing where it left off. */
async function runPhase(options: ScriptedLoadOptions, agent: http.Agent, positions: number[], durationMs: number): Promise<Phase> {
  const target = new URL(options.baseUrl);
  const phase: Phase = { latencies: [], errors: 0, sampleError: undefined, elapsedMs: 0 };
  const start = performance.now();
  const deadline = start + durationMs;
  const client = async (script: ClientScript, index: number) => {
    while (performance.now() < deadline) {
      const step = script.steps[positions[index]!++ % script.steps.length]!;
      const began = performance.now();
      const answer = await send(agent, target, script, step);
      phase.latencies.push(performance.now() - began);
      if (!answer.ok) {
        phase.errors++;
        phase.sampleError ??= answer.problem;
      }
    }
  };
  await Promise.all(options.clients.map(client));
  phase.elapsedMs = performance.now() - start;
  return phase;
}

async function main(): Promise<void> {
  const options = workerData as ScriptedLoadOptions;
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.clients.length });
  const positions = options.clients.map(() => 0);
  try {
    await runPhase(options, agent, positions, options.warmupMs);
    const measured = await runPhase(options, agent, positions, options.durationMs);
    const latenciesMs = new Float64Array(measured.latencies);
    const result: LoadResult = { latenciesMs, errors: measured.errors, sampleError: measured.sampleError, elapsedMs: measured.elapsedMs };
    parentPort!.postMessage(result, [latenciesMs.buffer]);
  } finally {
    agent.destroy();
  }
}

await main();
