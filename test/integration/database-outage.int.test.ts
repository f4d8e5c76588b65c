/**
 * Issue 28, item 1: the database going away does not end the server. A real server process
 * reaches PostgreSQL through a TCP proxy the test cuts (open connections reset, new ones
 * refused, as when the server stops or the network drops) after terminating the server's
 * backends with pg_terminate_backend; the process stays up, the API answers 503 with
 * Retry-After and the code database_unavailable, /healthz stays up, /readyz says not ready, the
 * workers pause; with the proxy back, everything answers again without a restart.
 * PostgreSQL only: the embedded PGlite lives inside the process and cannot go away alone.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/admin/accounts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/databases';
import { apiClient } from '../helpers/app';
import { startServerProcess, type ServerProcess } from '../helpers/server-process';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';

const onPostgres = testDatabaseKind() === 'postgres';
const METRICS_TOKEN = 'outage-metrics-token-0123456789';

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!onPostgres)('the database going away', () => {
  let t: TestDatabase;
  let proxy: TcpProxy;
  let server: ServerProcess;
  let api: ReturnType<typeof apiClient>;
  let token: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    const target = new URL(t.databaseUrl!);
    proxy = await startTcpProxy([{ host: target.hostname, port: Number(target.port || 5432) }]);
    const viaProxy = new URL(t.databaseUrl!);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    server = await startServerProcess({
      DATA_DIR: t.dataDir,
      DATABASE_URL: viaProxy.toString(),
      DATABASE_CONNECT_TIMEOUT_MS: '2000',
      // The workers run, so the test sees them pause and resume.
      WORKFLOW_INTERVAL_MS: '200',
      NOTIFICATION_INTERVAL_MS: '200',
      METRICS_TOKEN: METRICS_TOKEN,
    });
    api = apiClient(server.url);
    await createUser(t.db.pool, { username: 'outage_patient', email: 'outage@example.org', password: 'correct horse battery', confirmed: true });
    const signIn = await api('POST', '/api/auth/tokens', { body: { username: 'outage_patient', password: 'correct horse battery' } });
    expect(signIn.status).toBe(201);
    token = signIn.body.encoded;
  });

  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await t?.destroy();
  });

  it('survives terminated backends and an unreachable server, answers 503, and recovers without a restart', async () => {
    expect((await api('GET', '/api/auth/users/me', { token })).status).toBe(200);
    expect((await api('GET', '/readyz')).status).toBe(200);

    // Every backend of the server's database is terminated (as an administrator or a failover would).
    const admin = new pg.Client({ connectionString: t.databaseUrl });
    await admin.connect();
    await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`);
    await admin.end();
    // The pool replaces the dead connections; the next requests are answered.
    await until('an answer after terminated backends', async () => ((await api('GET', '/api/auth/users/me', { token })).status === 200 ? true : undefined));

    await proxy.cut();
    const me = await until('a 503 from the API', async () => {
      const response = await api('GET', '/api/auth/users/me', { token });
      return response.status === 503 ? response : undefined;
    });
    expect(me.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(me.body).toMatchObject({ error: 'database_unavailable' });
    expect(me.body.message).not.toMatch(/ECONN|terminat|postgres/i);
    const graphql = await api('POST', '/api/graphql', { token, body: { query: '{ currentUserId }' } });
    expect(graphql.status).toBe(503);
    expect(graphql.body.errors[0].extensions.code).toBe('DATABASE_UNAVAILABLE');
    const workflow = await api('GET', '/api/workflow/rest/process-definition', { token });
    expect(workflow.status).toBe(503);
    expect(workflow.body).toMatchObject({ type: 'DatabaseUnavailableException' });
    expect((await api('GET', '/readyz')).status).toBe(503);
    expect((await api('GET', '/healthz')).status).toBe(200);
    expect(server.output()).toContain('database unreachable');
    expect(server.child.exitCode).toBeNull();
    // The 503 names its request, for a person to quote and the operator to find in the log.
    expect(me.body.requestId).toBe(me.headers.get('x-request-id'));
    // Metrics still answer and say the database is away.
    const metrics = await api('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect(String(metrics.body)).toMatch(/^sanad_database_available 0$/m);
    // A process start falls due while the server cannot reach the database (written directly,
    // not through the cut proxy): the paused workers run it once when the database is back.
    const patient = await createUser(t.db.pool, { username: 'outage_case', email: 'outage-case@example.org', password: 'correct horse battery', flags: ['patient'] });
    await t.db.pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);

    await proxy.restore();
    await until('ready again', async () => ((await api('GET', '/readyz')).status === 200 ? true : undefined));
    expect((await api('GET', '/api/auth/users/me', { token })).status).toBe(200);
    expect((await api('POST', '/api/graphql', { token, body: { query: '{ currentUserId }' } })).status).toBe(200);
    expect(server.output()).toContain('database reachable again');
    const instances = async () =>
      (await t.db.pool.query<{ n: number }>('select count(*)::int as n from app_public.workflow_instances where case_id = $1', [patient.caseId])).rows[0]!.n;
    await until('the process start queued during the outage', async () => ((await instances()) >= 1 ? true : undefined));
    expect(await instances()).toBe(1);
    expect(server.output()).not.toMatch(/Unhandled 'error' event|"level":50[^\n]*(scheduler|worker|mails) failed/);
    expect(server.child.exitCode).toBeNull();
  });
});
