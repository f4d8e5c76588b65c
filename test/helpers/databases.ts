/**
 * Test databases. Creating a PGlite database and migrating it takes seconds, so the global
 * setup builds one migrated template per run and each test file gets a fresh copy: a copied
 * directory for PGlite, `CREATE DATABASE … TEMPLATE` on a PostgreSQL server.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, pgliteDirectory, type Database } from '../../src/server/db/database';
import { migrate, readMigrations } from '../../src/server/db/migrate';

export type TestDatabaseKind = 'pglite' | 'postgres';

export function testDatabaseKind(): TestDatabaseKind {
  return process.env.SANAD_TEST_DB === 'postgres' ? 'postgres' : 'pglite';
}

/** Templates are keyed by the migrations' checksums, so an edited migration makes a new one. */
function templateKey(): string {
  const digest = crypto.createHash('sha256');
  for (const m of readMigrations()) digest.update(m.checksum);
  return digest.digest('hex').slice(0, 12);
}

/** Inside this checkout, so that two checkouts testing at once never share (or delete) one. */
export function pgliteTemplateDir(): string {
  return path.resolve('node_modules/.cache/sanad-test', `template-${templateKey()}`);
}

export function postgresTemplateName(): string {
  return `sanad_test_template_${templateKey()}`;
}

function serverUrl(database: string): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export async function prepareTemplate(kind: TestDatabaseKind): Promise<void> {
  if (kind === 'pglite') {
    const dir = pgliteTemplateDir();
    if (fs.existsSync(path.join(dir, 'ready'))) return;
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    const db = await openDatabase({ dataDir: dir });
    await migrate(db.pool);
    await db.close();
    fs.writeFileSync(path.join(dir, 'ready'), '');
    return;
  }
  const name = postgresTemplateName();
  const check = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await check.connect();
  const { rows } = await check.query('select 1 from pg_database where datname = $1', [name]);
  // Templates of older migration sets are of no further use: drop them on CI, whose server
  // serves one checkout. On a developer's machine several checkouts (git worktrees) may test
  // against one server at once, each with its own migration set, so they are kept there.
  const stale = await check.query<{ datname: string }>(
    `select datname from pg_database where datname like 'sanad\\_test\\_template\\_%' and datname <> $1`,
    [name],
  );
  if (process.env.CI) for (const { datname } of stale.rows) await check.query(`drop database if exists "${datname}"`).catch(() => undefined);
  await check.end();
  if (rows.length > 0) return;
  await adminQuery(`create database ${name}`);
  const db = await openDatabase({ dataDir: '', databaseUrl: serverUrl(name), poolSize: 2 });
  try {
    await migrate(db.pool);
  } finally {
    await db.close();
  }
}

export interface TestDatabase {
  kind: TestDatabaseKind;
  db: Database;
  /** DATA_DIR for this test file (outbox, signing secret; the PGlite files too). */
  dataDir: string;
  databaseUrl: string | undefined;
  destroy(): Promise<void>;
}

/** A fresh, migrated database for one test file. */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const kind = testDatabaseKind();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-test-'));
  if (kind === 'pglite') {
    if (!options.empty) {
      fs.cpSync(pgliteDirectory(pgliteTemplateDir()), pgliteDirectory(dataDir), { recursive: true });
    }
    const db = await openDatabase({ dataDir });
    return {
      kind,
      db,
      dataDir,
      databaseUrl: undefined,
      async destroy() {
        await db.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const name = `sanad_test_${crypto.randomBytes(6).toString('hex')}`;
  await adminQuery(options.empty ? `create database ${name}` : `create database ${name} template ${postgresTemplateName()}`);
  const databaseUrl = serverUrl(name);
  const db = await openDatabase({ dataDir, databaseUrl, poolSize: 10 });
  return {
    kind,
    db,
    dataDir,
    databaseUrl,
    async destroy() {
      await db.close();
      await adminQuery(`drop database if exists ${name} with (force)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
