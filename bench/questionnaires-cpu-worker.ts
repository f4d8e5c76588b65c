/**
 * The client of questionnaires-cpu.ts, in its own thread so that the server thread's CPU time
 * is the server's alone: one request at a time over one keep-alive connection, as one phone
 * sends them. Answers the number of requests that did not succeed.
 */
import http from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import type { ClientScript } from './load';

export interface CpuClientOptions {
  baseUrl: string;
  script: ClientScript;
  count: number;
  start: number;
}

function send(agent: http.Agent, target: URL, script: ClientScript, index: number): Promise<boolean> {
  return new Promise((resolve) => {
    const step = script.steps[index % script.steps.length]!;
    const headers = step.body === undefined ? script.headers : { ...script.headers, 'content-length': String(Buffer.byteLength(step.body)) };
    const request = http.request({ agent, host: target.hostname, port: target.port, method: script.method, path: step.path, headers }, (response) => {
      response.resume();
      response.on('end', () => resolve((response.statusCode ?? 0) < 300));
    });
    request.on('error', () => resolve(false));
    request.end(step.body);
  });
}

async function main(): Promise<void> {
  const { baseUrl, script, count, start } = workerData as CpuClientOptions;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const target = new URL(baseUrl);
  let errors = 0;
  for (let i = 0; i < count; i++) if (!(await send(agent, target, script, start + i))) errors++;
  agent.destroy();
  parentPort!.postMessage(errors);
}

await main();
