/**
 * Issue 28, item 4: two server processes on one PostgreSQL database behind a proxy that sends
 * each new connection to the other one in turn. Rate limits and the sign-in throttle hold for
 * the pair as for one process (they are counted in the database), a session opened on one
 * works on both, and every process start and timer job runs exactly once.
 * PostgreSQL only: the embedded database admits one process.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { createUser } from '../../src/server/admin/accounts';
import { testDatabaseKind } from '../helpers/databases';
import { serverDatabase, startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const onPostgres = testDatabaseKind() === 'postgres';
const PASSWORD = 'correct horse battery';

/** One request on a connection of its own, so the proxy alternates between the servers. */
function request(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const headers: Record<string, string> = { ...options.headers };
    if (payload) headers['content-type'] = 'application/json';
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const req = http.request(`${base}${path}`, { method, agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: response.headers }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

async function until(what: string, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe.skipIf(!onPostgres)('two server processes on one database', () => {
  let database: Awaited<ReturnType<typeof serverDatabase>>;
  let servers: ServerProcess[] = [];
  let proxy: TcpProxy;
  let base: string;
  let pool: pg.Pool;
  const cases: string[] = [];

  beforeAll(async () => {
    database = await serverDatabase(async (setupPool) => {
      await createUser(setupPool, { username: 'two_patient', email: 'two@example.org', password: PASSWORD });
      for (let i = 0; i < 6; i++) {
        const patient = await createUser(setupPool, { username: `two_trial_${i}`, email: `two_trial_${i}@example.org`, password: PASSWORD, flags: ['patient'] });
        cases.push(patient.caseId!);
      }
    });
    const env = {
      ...database.env,
      RATE_LIMIT_PER_PERSON_PER_MINUTE: '10',
      LOCKOUT_MAX_ATTEMPTS: '3',
      WORKFLOW_INTERVAL_MS: '100',
      NOTIFICATION_INTERVAL_MS: '0',
    };
    servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    proxy = await startTcpProxy(servers.map((s) => ({ host: '127.0.0.1', port: Number(new URL(s.url).port) })));
    base = `http://127.0.0.1:${proxy.port}`;
    pool = new pg.Pool({ connectionString: database.env.DATABASE_URL, max: 2 });
  }, 180_000);

  afterAll(async () => {
    await proxy?.close();
    for (const server of servers) await server.stop();
    await pool?.end();
    await database?.destroy();
  });

  it('shares sessions, rate limits and the sign-in throttle', async () => {
    const signIn = await request(base, 'POST', '/api/auth/tokens', { body: { username: 'two_patient', password: PASSWORD } });
    expect(signIn.status).toBe(201);
    const token = signIn.body.encoded as string;
    // The session works on each process, asked directly.
    for (const server of servers) expect((await request(server.url, 'GET', '/api/auth/users/me', { token })).status).toBe(200);

    // Ten GraphQL requests a minute for this person, whichever process answers.
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await request(base, 'POST', '/api/graphql', { token, body: { query: '{ currentUserId }' } })).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);

    // Three free failed sign-ins for a name, across both processes; then it must wait.
    const failures: number[] = [];
    for (let i = 0; i < 4; i++) failures.push((await request(base, 'POST', '/api/auth/tokens', { body: { username: 'two_trial_0', password: 'wrong password here' } })).status);
    expect(failures).toEqual([401, 401, 401, 429]);
  });

  it('a write retried on the other process with its Idempotency-Key gets the first answer, stored once', async () => {
    const signIn = await request(base, 'POST', '/api/auth/tokens', { body: { username: 'two_trial_1', password: PASSWORD } });
    const token = signIn.body.encoded as string;
    const body = {
      query: 'mutation($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id } } }',
      variables: { input: { caseMessage: { caseId: cases[1], body: 'Across two processes', toTherapists: true } } },
    };
    const headers = { 'idempotency-key': 'two-processes-key-0001' };
    const first = await request(servers[0]!.url, 'POST', '/api/graphql', { token, body, headers });
    expect(first.body.errors).toBeUndefined();
    const retried = await request(servers[1]!.url, 'POST', '/api/graphql', { token, body, headers });
    expect(retried.headers['idempotent-replayed']).toBe('true');
    expect(retried.body).toEqual(first.body);
    const { rows } = await pool.query<{ n: number }>(`select count(*)::int as n from app_public.case_messages where body = 'Across two processes'`);
    expect(rows[0]!.n).toBe(1);
  });

  it('runs each process start and each due timer once', async () => {
    for (const caseId of cases) await pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
    const instances = async () =>
      (await pool.query<{ n: number }>(`select count(*)::int as n from app_public.workflow_instances where case_id = any ($1)`, [cases])).rows[0]!.n;
    await until('the processes to start', async () => (await instances()) >= cases.length);

    await pool.query(`update app_public.workflow_jobs set due_date = now() - interval '1 minute' where activity_id = 'screeningReminder' and case_id = any ($1)`, [cases]);
    const reminders = async () =>
      (
        await pool.query<{ n: number }>(
          `select count(*)::int as n from app_public.workflow_history where case_id = any ($1) and activity_id = 'screeningReminderMail'`,
          [cases],
        )
      ).rows[0]!.n;
    await until('the reminders', async () => (await reminders()) >= cases.length);
    // A moment more for a second firing to show, if there were one.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await instances()).toBe(cases.length);
    expect(await reminders()).toBe(cases.length);
  });
});
