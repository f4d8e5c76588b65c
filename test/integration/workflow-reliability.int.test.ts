/**
 * Reliability of the workflow host with real server processes on one PostgreSQL database:
 * two processes fire each due timer exactly once, and a process killed with SIGKILL in the
 * middle of firing loses nothing and repeats nothing once a process runs again.
 * PostgreSQL only: PGlite admits one process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { WorkflowHost } from '../../src/server/workflow/host';
import { createLogger } from '../../src/server/logger';
import { loadConfig } from '../../src/server/config';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/databases';

const onPostgres = testDatabaseKind() === 'postgres';
const root = path.resolve(import.meta.dirname, '../..');
const INSTANCES = 120;

let database: TestDatabase;
const children: ChildProcess[] = [];

function startServer(port: number): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: database.databaseUrl!,
      PORT: String(port),
      HOST: '127.0.0.1',
      JWT_SECRET: 'reliability-test-secret-long-enough-for-hs256',
      SANAD_SKIP_WEB_BUILD: '1',
      WORKFLOW_INTERVAL_MS: '20',
      NOTIFICATION_INTERVAL_MS: '0',
      LOG_LEVEL: 'silent',
      DATA_DIR: database.dataDir,
    },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('timed out');
}

/** Starts INSTANCES trials and makes their screening reminders due now. */
async function seedDueTimers(): Promise<void> {
  const pool = database.db.pool;
  const host = new WorkflowHost({ pool, log: createLogger(loadConfig({ NODE_ENV: 'test' })), workflowsDir: path.join(root, 'workflows') });
  await host.deployAll();
  for (let i = 0; i < INSTANCES; i += 1) {
    const patient = await createUser(pool, { username: `rel${i}_${Date.now() % 100000}`, email: `rel${i}_${Date.now()}@example.org`, password: 'correct horse battery', flags: ['patient'] });
    await withOwner(pool, (sql) => host.startInTx(sql, { key: 'trial', caseId: patient.caseId!, businessKey: 'trial', variables: {} }));
  }
  await pool.query(`update app_public.workflow_jobs set due_date = now() - interval '1 minute' where activity_id = 'screeningReminder'`);
}

async function firedCounts(): Promise<{ instances: number; fired: number; maxPerInstance: number; pendingJobs: number; queuedMails: number }> {
  const { rows } = await database.db.pool.query(
    `select (select count(distinct process_instance_id) from app_public.workflow_history where activity_id = 'screeningReminderMail')::int as instances,
            (select count(*) from app_public.workflow_history where activity_id = 'screeningReminderMail')::int as fired,
            (select coalesce(max(n), 0) from (select count(*) as n from app_public.workflow_history where activity_id = 'screeningReminderMail' group by process_instance_id) x)::int as "maxPerInstance",
            (select count(*) from app_public.workflow_jobs where activity_id = 'screeningReminder')::int as "pendingJobs",
            (select count(*) from app_private.workflow_mails)::int as "queuedMails"`,
  );
  return rows[0];
}

describe.skipIf(!onPostgres)('workflow reliability (two server processes, kill -9)', () => {
  beforeAll(async () => {
    database = await createTestDatabase();
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await database?.destroy();
  });

  it('two processes on one database fire each timer exactly once', async () => {
    await seedDueTimers();
    startServer(18731);
    startServer(18732);
    await waitFor(async () => (await firedCounts()).pendingJobs === 0, 90_000);
    const counts = await firedCounts();
    expect(counts).toMatchObject({ instances: INSTANCES, fired: INSTANCES, maxPerInstance: 1, pendingJobs: 0 });
    for (const child of children.splice(0)) child.kill('SIGTERM');
  }, 180_000);

  it('a process killed with SIGKILL mid-firing loses nothing and repeats nothing after a restart', async () => {
    await seedDueTimers();
    const first = startServer(18733);
    // Kill it as soon as it has fired some but not all timers: in the middle of its work.
    await waitFor(async () => (await firedCounts()).fired > 5, 90_000);
    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const atKill = await firedCounts();
    expect(atKill.pendingJobs).toBeGreaterThan(0);
    startServer(18734);
    await waitFor(async () => (await firedCounts()).pendingJobs === 0, 90_000);
    const counts = await firedCounts();
    expect(counts).toMatchObject({ instances: INSTANCES * 2, fired: INSTANCES * 2, maxPerInstance: 1, pendingJobs: 0 });
    // The reminders are non-interrupting: every screening task is still open.
    const { rows } = await database.db.pool.query(`select count(*)::int as n from app_public.workflow_tasks where task_definition_key = 'screeningTask' and end_time is null`);
    expect(rows[0].n).toBe(INSTANCES * 2);
  }, 180_000);
});
