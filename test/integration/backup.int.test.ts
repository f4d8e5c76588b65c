/**
 * Issue 28, item 3: the backup drill, as an operator runs it. A patient's trial workflow is
 * waiting on its screening reminder timer; `npm run sanad -- backup` is taken while the server
 * runs (embedded database: the running server writes it on request); `restore` fills a fresh
 * instance; `verify` finds every table's rows and checksums identical; the restored workflow
 * then continues (the reminder fires once, eight days later). A changed row makes verify fail.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app';
import { createUser } from '../../src/server/admin/accounts';
import { loadConfig } from '../../src/server/config';
import { openDatabase, type Database } from '../../src/server/db/database';
import { seedDefaultPages } from '../../src/server/content/pages';
import { verifyAgainst } from '../../src/server/ops/backup';
import { createTestDatabase, testDatabaseKind } from '../helpers/databases';
import { startServerProcess, TEST_SERVER_ENV } from '../helpers/server-process';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DAY = 86_400_000;
const kind = testDatabaseKind();

/** `npm run sanad -- …` as a process: its exit code and output. */
function sanad(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_ENV: 'test', JWT_SECRET: TEST_SERVER_ENV.JWT_SECRET!, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

function appConfig(dataDir: string) {
  return loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: TEST_SERVER_ENV.JWT_SECRET!, PUBLIC_URL: 'http://sanad.test' });
}

function adminUrl(database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.pathname = `/${database}`;
  return url.toString();
}

describe(`backup drill (${kind})`, () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-backup-'));
  const backupDir = path.join(scratch, 'backup');
  const restoredDataDir = path.join(scratch, 'restored');
  let sourceEnv: Record<string, string>;
  let restoredEnv: Record<string, string>;
  let cleanup: (() => Promise<void>)[] = [];
  let caseId: string;
  const start = Date.parse('2027-06-07T09:00:00Z');

  beforeAll(async () => {
    // The source: a patient whose trial process waits on its screening reminder timer.
    const source = await createTestDatabase();
    cleanup.push(() => (source.kind === 'pglite' ? Promise.resolve(fs.rmSync(source.dataDir, { recursive: true, force: true })) : source.destroy()));
    await seedDefaultPages(source.db.pool);
    const app = await buildApp({ config: appConfig(source.dataDir), db: source.db, serveWebApp: false, workflowClock: { now: () => new Date(start) } });
    const patient = await createUser(source.db.pool, { username: 'backup_patient', email: 'backup@example.org', password: 'correct horse battery', flags: ['patient'] });
    caseId = patient.caseId!;
    await source.db.pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
    await app.workflow.tick();
    await app.close();
    if (source.kind === 'pglite') await source.db.close();
    sourceEnv = source.kind === 'pglite' ? { DATA_DIR: source.dataDir } : { DATA_DIR: source.dataDir, DATABASE_URL: source.databaseUrl! };

    if (kind === 'postgres') {
      const name = `sanad_restore_${crypto.randomBytes(5).toString('hex')}`;
      const admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await admin.connect();
      await admin.query(`create database ${name}`);
      await admin.end();
      cleanup.push(async () => {
        const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      });
      restoredEnv = { DATA_DIR: restoredDataDir, DATABASE_URL: adminUrl(name) };
    } else {
      restoredEnv = { DATA_DIR: restoredDataDir };
    }
  });

  afterAll(async () => {
    for (const step of cleanup.reverse()) await step().catch(() => undefined);
    cleanup = [];
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('backs up while the server runs, restores into a fresh instance with identical checksums, and the workflow continues', async () => {
    const server = await startServerProcess({ ...sourceEnv, WORKFLOW_INTERVAL_MS: '0', NOTIFICATION_INTERVAL_MS: '0' });
    let backup: { code: number | null; output: string };
    try {
      backup = await sanad(['backup', backupDir], sourceEnv);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(backup.output).toMatch(/backup written to/);
    expect(backup.code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.kind).toBe(kind);
    expect(manifest.tables['app_public.cases'].rows).toBeGreaterThan(0);

    const restore = await sanad(['restore', backupDir], restoredEnv);
    expect(restore.output).toMatch(/restored the backup/);
    expect(restore.code).toBe(0);
    const verify = await sanad(['verify', backupDir], restoredEnv);
    expect(verify.output).toMatch(/identical to the backup/);
    expect(verify.code).toBe(0);

    // The restored instance serves the workflow on: eight days later the reminder fires once.
    const db: Database = await openDatabase({ dataDir: restoredDataDir, databaseUrl: restoredEnv.DATABASE_URL, poolSize: 2 });
    try {
      const app = await buildApp({ config: appConfig(restoredDataDir), db, serveWebApp: false, workflowClock: { now: () => new Date(start + 8 * DAY) } });
      const counts = await app.workflow.tick();
      await app.close();
      expect(counts.jobs).toBeGreaterThanOrEqual(1);
      const { rows } = await db.pool.query(
        `select count(*)::int as n from app_public.workflow_history where case_id = $1 and activity_id = 'screeningReminderMail'`,
        [caseId],
      );
      expect(rows[0].n).toBe(1);
      // Now the restored database differs from the backup, and verify says where.
      const { problems } = await verifyAgainst(db.pool, backupDir);
      expect(problems).toContainEqual(expect.stringMatching(/^app_public\.workflow_history: \d+ rows, the backup has \d+$/));
    } finally {
      await db.close();
    }
  }, 240_000);
});
