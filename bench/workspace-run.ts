/**
 * `npm run bench` (second part), `npm run bench:workspace`: the case workspace at production
 * size (10,000 cases, 1,500 staff, 500,000 messages; see workspace-seed.ts) under load at
 * concurrency 32: the case list with and without search (as a therapist and as a coordinator),
 * the coordinator's lists paged deep (the middle and the last full page), a case's page and
 * GET /api/my_messages, each beside the same SQL sent straight through a node-postgres pool as
 * the baseline. Figures are printed, never asserted.
 *
 * Targets on PostgreSQL (issue "Speed at clinic scale"): p99 ≤ 50 ms for each case-list and
 * message scenario, ≤ 20 ms for GET /api/auth/users/me, and an API median within 1.5× of its
 * direct SQL's. `npx tsx bench/workspace-cpu.ts` shows where a request's time goes.
 *
 * As run.ts: BENCH_SECONDS, BENCH_ONLY=pglite|postgres, BENCH_DATABASE_URL. Also:
 *   BENCH_WORKSPACE_SCALE  size relative to the (default 1 on PostgreSQL, 0.2 on PGlite)
 *   BENCH_SCENARIO         run only the scenarios whose name contains this text
 *   BENCH_WORKSPACE_URL    a PostgreSQL database seeded earlier (by this benchmark, kept with
 *                          BENCH_KEEP=1): migrated, not seeded, and not dropped afterwards;
 *                          for comparing figures before and after a migration on the same data
 *   BENCH_KEEP=1           keep the server database and print its address
 *   BENCH_CONCURRENCY      virtual clients instead of 32, to see where the latency target holds
 *   BENCH_MIGRATE_UNTIL=7  apply the migrations up to this number only: the figures before a
 *                          migration (0008-workspace-indexes.sql) for comparison
 */
import './production-mode';
import fs from 'node:fs';
import pg from 'pg';
import { migrate, MIGRATIONS_DIR } from '../src/server/db/migrate';
import type { BenchDatabase } from './databases';
import {
  chooseDatabases,
  migrationsDir,
  openExistingPostgres,
  readSettings,
  serverPoolSize,
  startServer,
  timed,
  WARMUP_MS,
  type DatabaseChoice,
  type Settings,
} from './harness';
import { runLoad, summarize, type Summary } from './load';
import { describeMachine, formatColumns, milliseconds, type Column } from './report';
import { signIn } from './scenarios';
import { runSqlLoad } from './sql-load';
import { workspaceScenarios, type WorkspaceScenario } from './workspace';
import { describeSeed, describeSize, measureSize, seedWorkspace, workspaceScale, workspaceSize, type SeededWorkspace } from './workspace-seed';

/** The issue's median target on PostgreSQL (the p99 targets are the scenarios'); reported, not enforced. */
const MEDIAN_RATIO_TARGET = 1.5;

interface Row {
  database: string;
  scenario: string;
  p99TargetMs: number;
  /** Undefined when the API route does not exist yet. */
  api: Summary | undefined;
  sql: Summary;
}

const ratio = (row: Row) => (row.api ? row.api.p50 / row.sql.p50 : Number.NaN);

function verdict(row: Row): string {
  if (!row.api) return 'unavailable';
  if (row.database !== 'postgres') return '-';
  const missed = [
    ...(row.api.p99 <= row.p99TargetMs ? [] : ['p99']),
    ...(ratio(row) <= MEDIAN_RATIO_TARGET ? [] : ['median']),
  ];
  return missed.length === 0 ? 'met' : `missed (${missed.join(', ')})`;
}

const COLUMNS: Column<Row>[] = [
  { title: 'database', value: (row) => row.database, left: true },
  { title: 'scenario', value: (row) => row.scenario, left: true },
  { title: 'API req/s', value: (row) => (row.api ? row.api.perSecond.toFixed(0) : '-') },
  { title: 'API p50', value: (row) => milliseconds(row.api?.p50 ?? Number.NaN) },
  { title: 'API p99', value: (row) => milliseconds(row.api?.p99 ?? Number.NaN) },
  { title: 'SQL req/s', value: (row) => row.sql.perSecond.toFixed(0) },
  { title: 'SQL p50', value: (row) => milliseconds(row.sql.p50) },
  { title: 'SQL p99', value: (row) => milliseconds(row.sql.p99) },
  { title: 'p50 API/SQL', value: (row) => (Number.isNaN(ratio(row)) ? '-' : `${ratio(row).toFixed(2)}×`) },
  { title: 'errors', value: (row) => String((row.api?.errors ?? 0) + row.sql.errors) },
  { title: 'target', value: verdict, left: true },
];

/** Keeps a fresh server database for a later BENCH_WORKSPACE_URL run instead of dropping it. */
function kept(database: BenchDatabase): BenchDatabase {
  console.log(`  kept for BENCH_WORKSPACE_URL: ${database.databaseUrl}`);
  return {
    ...database,
    async dispose() {
      await database.db.close();
      fs.rmSync(database.dataDir, { recursive: true, force: true });
    },
  };
}

async function prepare(database: BenchDatabase, reuse: boolean): Promise<SeededWorkspace> {
  const dir = migrationsDir(database.dataDir, process.env);
  await timed(dir === MIGRATIONS_DIR ? 'migrate' : `migrate up to ${process.env.BENCH_MIGRATE_UNTIL}`, () => migrate(database.db.pool, dir));
  if (reuse) {
    const size = await measureSize(database.db.pool);
    console.log(`  reusing the seeded database, ${describeSize(size)}`);
    return describeSeed(database.db.pool, size);
  }
  const size = workspaceSize(workspaceScale(database.kind, process.env));
  return timed(`seed ${describeSize(size)}`, () => seedWorkspace(database.db.pool, size));
}

/**
 * The baseline's pool: on PostgreSQL a pool of the server's size on its own connections; on
 * PGlite the database's one connection, which the idle server shares.
 */
function baselinePool(database: BenchDatabase): { pool: pg.Pool; close: () => Promise<void> } {
  if (database.kind === 'pglite' || !database.databaseUrl) return { pool: database.db.pool, close: async () => undefined };
  const pool = new pg.Pool({ connectionString: database.databaseUrl, max: serverPoolSize() });
  // pool.end() does not wait for the sockets to close: dropping the database right after it may
  // end a closing connection with an error, which must not crash the benchmark (as in the app).
  pool.on('error', () => undefined);
  return { pool, close: () => pool.end() };
}

async function measure(label: string, scenario: WorkspaceScenario, baseUrl: string, pool: pg.Pool, settings: Settings): Promise<Row> {
  const load = { concurrency: settings.concurrency, warmupMs: WARMUP_MS, durationMs: settings.seconds * 1000 };
  const availability = await scenario.check(baseUrl, pool);
  let api: Summary | undefined;
  if (availability === 'ok') {
    const result = await runLoad({ baseUrl, request: scenario.request, ...load });
    api = summarize(result);
    if (result.sampleError) console.log(`    API: ${api.errors} errors, for example: ${result.sampleError}`);
  }
  const sqlResult = await runSqlLoad({ pool, request: scenario.sql, ...load });
  const sql = summarize(sqlResult);
  if (sqlResult.sampleError) console.log(`    SQL: ${sql.errors} errors, for example: ${sqlResult.sampleError}`);
  const row: Row = { database: label, scenario: scenario.name, p99TargetMs: scenario.p99TargetMs, api, sql };
  const apiText = api ? `API ${api.perSecond.toFixed(0)} req/s, p50 ${api.p50.toFixed(1)} ms, p99 ${api.p99.toFixed(1)} ms` : 'API unavailable (404)';
  console.log(`  ${scenario.name}: ${apiText}; SQL ${sql.perSecond.toFixed(0)} req/s, p50 ${sql.p50.toFixed(1)} ms, p99 ${sql.p99.toFixed(1)} ms`);
  return row;
}

async function benchDatabase(label: string, database: BenchDatabase, settings: Settings, reuse: boolean): Promise<Row[]> {
  const seed = await prepare(database, reuse);
  console.log(`  signed in as ${seed.therapist.username} (${seed.therapist.caseIds.length} cases) and ${seed.coordinator.username}; search "${seed.search}"`);
  const { sanad, baseUrl } = await startServer(database);
  const baseline = baselinePool(database);
  try {
    const tokens = { therapist: await signIn(baseUrl, seed.therapist.username), coordinator: await signIn(baseUrl, seed.coordinator.username) };
    const only = process.env.BENCH_SCENARIO;
    const rows: Row[] = [];
    for (const scenario of workspaceScenarios(seed, tokens).filter((s) => !only || s.name.includes(only))) {
      rows.push(await measure(label, scenario, baseUrl, baseline.pool, settings));
    }
    return rows;
  } finally {
    await baseline.close();
    await sanad.close();
  }
}

function targetNote(rows: Row[]): string | undefined {
  const watched = rows.filter((row) => row.database === 'postgres' && row.api);
  if (watched.length === 0) return undefined;
  const missed = watched.filter((row) => verdict(row) !== 'met');
  return missed.length === 0
    ? `Targets met on PostgreSQL: every p99 within its target and every median within ${MEDIAN_RATIO_TARGET}× of the SQL.`
    : `Targets (p99 ≤ 50 ms, me ≤ 20 ms; median ≤ ${MEDIAN_RATIO_TARGET}× the SQL's) missed on PostgreSQL by: ${missed.map((row) => row.scenario).join('; ')}.`;
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const reuseUrl = process.env.BENCH_WORKSPACE_URL;
  console.log(describeMachine());
  console.log(`Case workspace: concurrency ${settings.concurrency}, ${WARMUP_MS / 1000} s warm-up, ${settings.seconds} s measured per scenario and side\n`);
  const choices: DatabaseChoice[] = reuseUrl
    ? [{ label: 'postgres', open: () => openExistingPostgres(reuseUrl) }]
    : await chooseDatabases(settings, 'sanad_bench_ws');
  const rows: Row[] = [];
  for (const { label, open } of choices) {
    console.log(`${label}:`);
    const opened = await open();
    const database = process.env.BENCH_KEEP === '1' && !reuseUrl && opened.kind === 'postgres' ? kept(opened) : opened;
    try {
      rows.push(...(await benchDatabase(label, database, settings, Boolean(reuseUrl))));
    } finally {
      await database.dispose();
    }
    console.log('');
  }
  console.log(formatColumns(COLUMNS, rows));
  const note = targetNote(rows);
  if (note) console.log(`\n${note}`);
  console.log('API: the app over HTTP; SQL: the same rows through a pg pool in a withUser transaction. Latencies in ms.');
  console.log('errors: answers that were not 2xx, GraphQL answers with errors, failed connections and failed SQL.');
}

main().catch((error: unknown) => {
  console.error('The workspace benchmark failed:', error);
  process.exitCode = 1;
});
