/**
 * Issue 28, item 2: SIGTERM under load. A real server process gets 30 requests (reads and
 * writes of a signed-in patient), each fully written to its socket, then SIGTERM: every one of
 * them gets its answer, /readyz turned not-ready first, and the process exits 0.
 *
 * Nothing here depends on timing: the drain is observed by the server's own log line (not by
 * polling /readyz inside a window that a loaded machine can miss), the delay is long enough
 * that it cannot end before the test looks, and the test ends it with a second signal, as an
 * operator may.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/admin/accounts';
import { apiClient } from '../helpers/app';
import { serverDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process';

interface Answer {
  status: number;
  body: string;
}

/** A request over its own connection; resolves `sent` once the whole request is on the socket. */
function send(url: string, method: string, path: string, token: string, body?: unknown): { sent: Promise<void>; answer: Promise<Answer> } {
  let markSent!: () => void;
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const answer = new Promise<Answer>((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const request = http.request(
      `${url}${path}`,
      { method, agent: false, headers: { authorization: `Bearer ${token}`, ...(payload ? { 'content-type': 'application/json' } : {}) } },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.on('finish', markSent);
    request.end(payload);
  });
  return { sent, answer };
}

describe('SIGTERM', () => {
  let database: Awaited<ReturnType<typeof serverDatabase>>;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await serverDatabase(async (pool) => {
      await createUser(pool, { username: 'shutdown_patient', email: 'shutdown@example.org', password: 'correct horse battery', confirmed: true });
    });
    // A delay no loaded machine outlasts; the test ends it with a second signal.
    server = await startServerProcess({ ...database.env, SHUTDOWN_DELAY_MS: '600000' });
    // Starting a server process (tsx, migrations check, workflow deploy) is slow on a busy machine.
  }, 180_000);

  afterAll(async () => {
    await server?.stop(5000);
    await database?.destroy();
  });

  it('answers every request sent before the signal, turns not-ready first and exits 0', async () => {
    const api = apiClient(server.url);
    const signIn = await api('POST', '/api/auth/tokens', { body: { username: 'shutdown_patient', password: 'correct horse battery' } });
    expect(signIn.status).toBe(201);
    const token = signIn.body.encoded as string;

    const requests = Array.from({ length: 30 }, (_, i) =>
      i % 3 === 0
        ? send(server.url, 'POST', '/api/graphql', token, { query: '{ currentUserId }' })
        : send(server.url, 'GET', '/api/auth/users/me', token),
    );
    await Promise.all(requests.map((r) => r.sent));
    server.child.kill('SIGTERM');
    // The server says it is draining; from then on /readyz says not ready while requests are
    // still served, each answer asking the client to close its connection.
    await server.logged('shutting down: not ready');
    const readiness = await api('GET', '/readyz');
    expect([readiness.status, readiness.body.status]).toEqual([503, 'stopping']);
    const during = await api('GET', '/api/auth/users/me', { token });
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');
    server.child.kill('SIGTERM');
    await server.logged('closing: no new connections');
    const answers = await Promise.all(requests.map((r) => r.answer));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    expect(await server.exited).toBe(0);
    expect(server.output()).toContain('stopped cleanly');
  });
});
