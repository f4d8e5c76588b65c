/**
 * The databases the benchmark runs on: the embedded PGlite in a fresh temporary DATA_DIR, and a
 * PostgreSQL server when one is configured or answers at the usual test address. On the server
 * the benchmark makes its own database and drops it afterwards, never touching any other.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database, type DatabaseKind } from '../src/server/db/database';

/** Where `npm test` looks for PostgreSQL when TEST_DATABASE_URL is unset; the bench does the same. */
const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/test';

export interface BenchDatabase {
  kind: DatabaseKind;
  db: Database;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Closes the pool and removes everything the benchmark made (files, server database). */
  dispose(): Promise<void>;
}

export async function openPgliteBench(): Promise<BenchDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-bench-'));
  const db = await openDatabase({ dataDir });
  return {
    kind: 'pglite',
    db,
    dataDir,
    databaseUrl: undefined,
    async dispose() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The server to run on: BENCH_DATABASE_URL or TEST_DATABASE_URL when set (an error if it does
 * not answer, since someone asked for it), else the default address if it answers, else none.
 */
export async function findPostgresServer(env: Record<string, string | undefined>): Promise<string | undefined> {
  const configured = env.BENCH_DATABASE_URL || env.TEST_DATABASE_URL;
  if (configured) return configured;
  return (await answers(DEFAULT_SERVER_URL)) ? DEFAULT_SERVER_URL : undefined;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function openPostgresBench(serverUrl: string, poolSize: number, prefix = 'sanad_bench'): Promise<BenchDatabase> {
  const name = `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
  await onServer(serverUrl, `create database ${name}`);
  const databaseUrl = withDatabase(serverUrl, name);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-bench-'));
  const db = await openDatabase({ dataDir, databaseUrl, poolSize });
  return {
    kind: 'postgres',
    db,
    dataDir,
    databaseUrl,
    async dispose() {
      await db.close();
      await onServer(serverUrl, `drop database if exists ${name} with (force)`);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** CREATE/DROP DATABASE cannot run in a transaction or on the database itself: a short admin session. */
async function onServer(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
