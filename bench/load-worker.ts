/**
 * The load generator's worker thread (see load.ts): one script per virtual client. Plain
 * node:http with a keep-alive agent: one connection per client, reused, as a browser or phone
 * keeps its connection to the API.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { ClientScript, LoadResult, ScriptedLoadOptions, ScriptStep } from './load';

/** A request that takes this long is counted as an error rather than hanging the benchmark. */
const REQUEST_TIMEOUT_MS = 30_000;

interface Answer {
  ok: boolean;
  /** Why the answer is not ok: status and the start of the body, or the network error. */
  problem?: string;
}

interface Phase {
  latencies: number[];
  errors: number;
  sampleError: string | undefined;
  elapsedMs: number;
}

function send(agent: http.Agent, target: URL, script: ClientScript, step: ScriptStep): Promise<Answer> {
  const { body } = step;
  return new Promise((resolve) => {
    const headers = body === undefined ? script.headers : { ...script.headers, 'content-length': String(Buffer.byteLength(body)) };
    const outgoing = http.request(
      { agent, host: target.hostname, port: target.port, method: script.method, path: step.path, headers },
      (response) => {
        // The body is scanned as it arrives, keeping only its start (for a failure's sample) and
        // a short tail across chunk borders: a 150 KB answer is not copied into one buffer.
        const scan = script.graphql ? new ErrorsScan() : undefined;
        let head = Buffer.alloc(0);
        response.on('data', (chunk: Buffer) => {
          scan?.push(chunk);
          if (head.length < 300) head = Buffer.concat([head, chunk.subarray(0, 300 - head.length)]);
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300 && !scan?.found;
          resolve(ok ? { ok } : { ok, problem: `${status} ${head.toString('utf8')}` });
        });
        response.on('error', (error) => resolve({ ok: false, problem: error.message }));
      },
    );
    outgoing.setTimeout(REQUEST_TIMEOUT_MS, () => outgoing.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    outgoing.on('error', (error) => resolve({ ok: false, problem: error.message }));
    outgoing.end(body);
  });
}

const ERRORS_KEY = Buffer.from('"errors":');

/** Looks for the "errors" key of a GraphQL answer, the only way GraphQL reports failure. */
class ErrorsScan {
  found = false;
  private tail = Buffer.alloc(0);

  push(chunk: Buffer): void {
    if (this.found) return;
    const joined = this.tail.length > 0 ? Buffer.concat([this.tail, chunk.subarray(0, ERRORS_KEY.length)]) : undefined;
    this.found = (joined?.includes(ERRORS_KEY) ?? false) || chunk.includes(ERRORS_KEY);
    this.tail = Buffer.from(chunk.subarray(Math.max(0, chunk.length - ERRORS_KEY.length + 1)));
  }
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
  // Until the last client's last answer: the phase runs a little past its deadline.
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
