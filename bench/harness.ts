/**
 * What every load benchmark entry (run.ts, workspace-run.ts, questionnaires-run.ts) shares: the settings read from
 * the environment, the databases to run on, the app started as production runs it, and timing.
 */
import crypto from 'node:crypto';
import pg from 'pg';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type SanadApp } from '../src/server/app';
import { loadConfig, type Config } from '../src/server/config';
import { openDatabase, type DatabaseKind } from '../src/server/db/database';
import { MIGRATIONS_DIR } from '../src/server/db/migrate';
import { findPostgresServer, openPgliteBench, openPostgresBench, type BenchDatabase } from './databases';
import { summarize, type Summary } from './load';

export const CONCURRENCY = 32;
export const WARMUP_MS = 1000;

export interface Settings {
  seconds: number;
  only: DatabaseKind | undefined;
  /** Virtual clients: CONCURRENCY unless BENCH_CONCURRENCY says otherwise (to find the knee). */
  concurrency: number;
}

export function readSettings(env: Record<string, string | undefined>): Settings {
  const seconds = env.BENCH_SECONDS ? Number(env.BENCH_SECONDS) : 5;
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`BENCH_SECONDS must be a positive number of seconds, got "${env.BENCH_SECONDS}"`);
  const only = env.BENCH_ONLY || undefined;
  if (only !== undefined && only !== 'pglite' && only !== 'postgres') throw new Error(`BENCH_ONLY must be pglite or postgres, got "${only}"`);
  const concurrency = env.BENCH_CONCURRENCY ? Number(env.BENCH_CONCURRENCY) : CONCURRENCY;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`BENCH_CONCURRENCY must be a positive whole number, got "${env.BENCH_CONCURRENCY}"`);
  return { seconds, only, concurrency };
}

export interface DatabaseChoice {
  label: DatabaseKind;
  open: () => Promise<BenchDatabase>;
}

/**
 * The databases to run on, as functions that make a fresh one when its turn comes. On the
 * server the database is named `<prefix>_<random>`, so that each benchmark's leftovers (after
 * a crash) say which benchmark made them.
 */
export async function chooseDatabases(settings: Settings, prefix = 'sanad_bench'): Promise<DatabaseChoice[]> {
  const chosen: DatabaseChoice[] = [];
  if (settings.only !== 'postgres') chosen.push({ label: 'pglite', open: openPgliteBench });
  if (settings.only !== 'pglite') {
    const server = await findPostgresServer(process.env);
    if (server) {
      chosen.push({ label: 'postgres', open: () => openPostgresBench(server, serverPoolSize(), prefix) });
    } else if (settings.only === 'postgres') {
      throw new Error('BENCH_ONLY=postgres, but no PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
    } else {
      console.log('No PostgreSQL server answers (set BENCH_DATABASE_URL or TEST_DATABASE_URL): PGlite only.\n');
    }
  }
  return chosen;
}

/** The pool size the server gets, from DATABASE_POOL_SIZE as a deployment would set it. */
export function serverPoolSize(): number {
  return loadConfig({ DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE }).databasePoolSize;
}

/** The app as production runs it, on a free local port, with rate limits out of the way. */
export async function startServer(database: BenchDatabase, env: Record<string, string> = {}): Promise<{ sanad: SanadApp; baseUrl: string; config: Config }> {
  const config = loadConfig({
    NODE_ENV: 'production',
    LOG_LEVEL: 'silent',
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl,
    DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE,
    // GRAPHQL_COMPILED_LISTS=0 measures PostGraphile's own answer to the web's compiled documents.
    GRAPHQL_COMPILED_LISTS: process.env.GRAPHQL_COMPILED_LISTS,
    JWT_SECRET: crypto.randomBytes(36).toString('base64url'),
    AUTH_RATE_LIMIT_PER_MINUTE: '1000000',
    // One person at concurrency 32: the per-person and per-address limits are off here.
    RATE_LIMIT_PER_PERSON_PER_MINUTE: '0',
    RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
    ...env,
  });
  const sanad = await buildApp({ config, db: database.db });
  await sanad.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = sanad.app.server.address() as AddressInfo;
  return { sanad, baseUrl: `http://127.0.0.1:${port}`, config };
}

export async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const result = await fn();
  console.log(`  ${what}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
  return result;
}

/** A PostgreSQL database made earlier (BENCH_WORKSPACE_URL): used as it is, never dropped. */
export async function openExistingPostgres(databaseUrl: string): Promise<BenchDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-bench-'));
  const db = await openDatabase({ dataDir, databaseUrl, poolSize: serverPoolSize() });
  return {
    kind: 'postgres',
    db,
    dataDir,
    databaseUrl,
    async dispose() {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The migrations folder, or, with BENCH_MIGRATE_UNTIL=N, a copy of its files up to number N in
 * the database's DATA_DIR (removed with it): the figures before a migration, for comparison.
 */
export function migrationsDir(dataDir: string, env: Record<string, string | undefined>): string {
  const until = env.BENCH_MIGRATE_UNTIL;
  if (!until) return MIGRATIONS_DIR;
  const last = Number(until);
  if (!Number.isInteger(last) || last < 1) throw new Error(`BENCH_MIGRATE_UNTIL must be a migration number, got "${until}"`);
  const dir = path.join(dataDir, 'migrations-until');
  fs.mkdirSync(dir, { recursive: true });
  for (const file of fs.readdirSync(MIGRATIONS_DIR)) {
    if (file.endsWith('.sql') && Number(file.slice(0, 4)) <= last) fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(dir, file));
  }
  return dir;
}

/**
 * The pool of the direct SQL side: on PostgreSQL a pool of its own, the size of the server's,
 * so that both sides have as many connections; on PGlite the one connection there is.
 */
export function baselinePool(database: BenchDatabase): { pool: pg.Pool; close: () => Promise<void> } {
  if (database.kind === 'pglite' || !database.databaseUrl) return { pool: database.db.pool, close: async () => undefined };
  const pool = new pg.Pool({ connectionString: database.databaseUrl, max: serverPoolSize() });
  // pool.end() does not wait for the sockets to close: dropping the database right after it may
  // end a closing connection with an error, which must not crash the benchmark (as in the app).
  pool.on('error', () => undefined);
  return { pool, close: () => pool.end() };
}

/** The servers a scenario is measured on: the API and the bare floor server (floor-server.ts). */
export interface Servers {
  baseUrl: string;
  floorUrl: string;
}

/** One side's figures on a line. */
export function describeSide(side: string, summary: Summary): string {
  return `${side} ${summary.perSecond.toFixed(0)} req/s, p50 ${summary.p50.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms`;
}

/** A load run's figures, its sample error printed when it had errors. */
export function summarizeSide(side: string, result: Parameters<typeof summarize>[0] & { sampleError: string | undefined }): Summary {
  const summary = summarize(result);
  if (result.sampleError) console.log(`    ${side}: ${summary.errors} errors, for example: ${result.sampleError}`);
  return summary;
}
