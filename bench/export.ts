/**
 * `npx tsx bench/export.ts`: the cost of the research export at the expected scale (10,000 cases,
 * every instrument at five times of measurement: 50,000 records per instrument), with one
 * client at a time so the figures hold on a shared machine. Per download of PHQ-9 and BDI-II:
 * the server thread's CPU (process.cpuUsage), wall time, bytes and the heap after; then the
 * statement's EXPLAIN ANALYZE as the coordinator.
 *
 * PostgreSQL only. Its own small seed (bench/questionnaires-seed.ts failed at the time with
 * "pending trigger events" on users): cases without members, one coordinator, and records with
 * answer profiles of that seed scored by score(), loaded with the audit trigger off.
 *   BENCH_EXPORT_REQUESTS     downloads per instrument (default 5, after one warm-up)
 *   BENCH_EXPORT_CASES        cases (default 10,000)
 *   BENCH_EXPORT_DATABASE_URL a database seeded before (BENCH_KEEP=1 printed it), used as it is
 *   BENCH_KEEP=1              keep the database it made and print its address
 */
import './production-mode';
import crypto from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type pg from 'pg';
import { createUser } from '../src/server/admin/accounts';
import { migrate } from '../src/server/db/migrate';
import { INSTRUMENTS, score } from '../src/domain/instruments';
import { MEASUREMENT_TIMES } from '../src/domain/measurements';
import { exportStatement } from '../src/server/questionnaires/export';
import { findPostgresServer, openPostgresBench, type BenchDatabase } from './databases';
import { migrationsDir, openExistingPostgres, serverPoolSize, startServer, timed } from './harness';
import { answerProfile } from './questionnaires-seed';
import { mulberry32 } from '../test/helpers/random';

const REQUESTS = Number(process.env.BENCH_EXPORT_REQUESTS ?? 5);
const CASES = Number(process.env.BENCH_EXPORT_CASES ?? 10_000);
const CODES = ['phq9', 'bdi2'] as const;
const COORDINATOR = { username: 'bench-export-coordinator', password: 'bench export password' };
const BATCH = 5000;

/** Records of one instrument at every time of every case, scored as the server scores them. */
async function seedInstrument(pool: pg.Pool, code: (typeof CODES)[number], caseIds: readonly string[]): Promise<void> {
  const definition = INSTRUMENTS[code];
  const random = mulberry32(42);
  await pool.query(`alter table app_public.${code} disable trigger _900_audit`);
  const now = new Date().toISOString();
  let batch: Record<string, unknown>[] = [];
  const flush = async () => {
    await pool.query(`insert into app_public.${code} select * from jsonb_populate_recordset(null::app_public.${code}, $1::jsonb)`, [JSON.stringify(batch)]);
    batch = [];
  };
  for (const caseId of caseIds) {
    for (const time of MEASUREMENT_TIMES) {
      const answers = answerProfile(definition, random(), random);
      const result = score(definition, answers);
      batch.push({ id: crypto.randomUUID(), created_at: now, updated_at: now, case_id: caseId, time_of_measurement: time, ...answers, total: result.total ?? null, band: result.band ?? null, subscales: result.subscales, flags: result.flags, diagnoses: result.diagnoses ?? null, complete: result.complete });
      if (batch.length >= BATCH) await flush();
    }
  }
  if (batch.length > 0) await flush();
  await pool.query(`alter table app_public.${code} enable trigger _900_audit`);
}

async function seed(pool: pg.Pool): Promise<void> {
  await createUser(pool, { ...COORDINATOR, email: 'bench-export@bench.invalid', flags: ['coordinator'] });
  const { rows } = await pool.query<{ id: string }>(`insert into app_public.cases (title, exclude_from_analysis) select 'bench ' || n, n % 17 = 0 from generate_series(1, $1) n returning id`, [CASES]);
  for (const code of CODES) await timed(`seed ${code}`, () => seedInstrument(pool, code, rows.map((r) => r.id)));
  await pool.query('vacuum analyze');
}

async function openDatabase(): Promise<{ database: BenchDatabase; keep: boolean }> {
  const existing = process.env.BENCH_EXPORT_DATABASE_URL;
  if (existing) {
    const database = await openExistingPostgres(existing);
    await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
    return { database, keep: true };
  }
  const server = await findPostgresServer(process.env);
  if (!server) throw new Error('No PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  const database = await openPostgresBench(server, serverPoolSize(), 'sanad_bench_export');
  try {
    await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
    await timed('seed', () => seed(database.db.pool));
  } catch (error) {
    await database.dispose();
    throw error;
  }
  return { database, keep: process.env.BENCH_KEEP === '1' };
}

async function signIn(baseUrl: string): Promise<string> {
  const response = await fetch(`${baseUrl}/api/auth/tokens`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(COORDINATOR) });
  const body = (await response.json()) as { encoded?: string };
  if (!body.encoded) throw new Error(`sign-in failed: ${response.status} ${JSON.stringify(body)}`);
  return body.encoded;
}

async function download(baseUrl: string, token: string, code: string): Promise<number> {
  const response = await fetch(`${baseUrl}/api/export/${code}.csv`, { headers: { authorization: `Bearer ${token}` } });
  if (response.status !== 200) throw new Error(`export ${code}: ${response.status} ${await response.text()}`);
  return (await response.arrayBuffer()).byteLength;
}

async function explain(database: BenchDatabase, coordinatorId: string, code: (typeof CODES)[number]): Promise<string> {
  const client = await database.db.pool.connect();
  try {
    await client.query(`begin; set local role sanad_user; set local jit = off; select set_config('jwt.claims.user_id', '${coordinatorId}', true)`);
    const result = await client.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers off, timing on) ${exportStatement(code, INSTRUMENTS[code])}`);
    await client.query('rollback');
    return result.rows.map((row) => row['QUERY PLAN']).join('\n');
  } finally {
    client.release();
  }
}

async function main(): Promise<void> {
  const { database, keep } = await openDatabase();
  const { rows } = await database.db.pool.query<{ id: string; cases: number; records: number }>(
    `select (select id from app_public.users where username = $1) as id, (select count(*) from app_public.cases)::int as cases,
            (select count(*) from app_public.phq9)::int + (select count(*) from app_public.bdi2)::int as records`,
    [COORDINATOR.username],
  );
  const coordinator = rows[0]!;
  try {
    const { sanad, baseUrl } = await startServer(database);
    try {
      const token = await signIn(baseUrl);
      console.log(`${coordinator.cases} cases, ${coordinator.records} records; ${REQUESTS} downloads each, one at a time`);
      for (const code of CODES) {
        await download(baseUrl, token, code);
        let bytes = 0;
        // The longest the event loop stood still: how long other requests would wait meanwhile.
        const stalls = monitorEventLoopDelay({ resolution: 5 });
        stalls.enable();
        const cpu = process.cpuUsage();
        const start = performance.now();
        for (let i = 0; i < REQUESTS; i++) bytes = await download(baseUrl, token, code);
        const wall = (performance.now() - start) / REQUESTS;
        const used = process.cpuUsage(cpu);
        // The client's own reading of the body is in this process too; it is small beside the server's work.
        const cpuMs = (used.user + used.system) / 1000 / REQUESTS;
        stalls.disable();
        const heap = process.memoryUsage().heapUsed / 1024 / 1024;
        console.log(
          `  ${code}: ${(bytes / 1024 / 1024).toFixed(1)} MB, ${cpuMs.toFixed(0)} ms CPU (server thread + client), ${wall.toFixed(0)} ms wall per download, longest event-loop stall ${(stalls.max / 1e6).toFixed(0)} ms, heap after ${heap.toFixed(0)} MB`,
        );
      }
      for (const code of CODES) console.log(`\nEXPLAIN ANALYZE ${code}\n${await explain(database, coordinator.id, code)}`);
    } finally {
      await sanad.close();
    }
  } finally {
    if (keep) console.log(`kept: BENCH_EXPORT_DATABASE_URL=${database.databaseUrl}`);
    else await database.dispose();
  }
}

await main();
