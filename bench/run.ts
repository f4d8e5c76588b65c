/**
 * `npm run bench`: p50/p99 latency and requests per second for sign-in, `me` and GraphQL
 * `allCases` at concurrency 32, on PGlite and (when a server answers) on PostgreSQL. Each
 * database is fresh, migrated and seeded with a trial of realistic size; the server is the
 * production build of the app on a local port. Figures are printed, never asserted: a slow run
 * is something to look into, not a failure.
 *
 * BENCH_SECONDS (default 5) sets each scenario's measured duration, after 1 s of warm-up.
 * BENCH_ONLY=pglite|postgres runs one database. BENCH_DATABASE_URL (else TEST_DATABASE_URL,
 * else postgres://postgres@127.0.0.1:5432/test if it answers) names the PostgreSQL server;
 * the benchmark creates and drops its own database there.
 */
import './production-mode';
import { migrate } from '../src/server/db/migrate';
import type { BenchDatabase } from './databases';
import { chooseDatabases, CONCURRENCY, readSettings, startServer, timed, WARMUP_MS, type Settings } from './harness';
import { runLoad, summarize } from './load';
import { describeMachine, formatTable, RESULT_COLUMNS, type ResultRow } from './report';
import { describeCommand, describeDatabase, tableOf, writeResults } from './results-file';
import { checkAnswers, scenarios, signInAll } from './scenarios';
import { DEFAULT_SEED, seedTrial } from './seed';

/** The issue's goal for `me` and `allCases` on PostgreSQL; reported, not enforced. */
const P99_TARGET_MS = 20;

async function benchDatabase(label: string, database: BenchDatabase, settings: Settings, databases: string[]): Promise<ResultRow[]> {
  await timed('migrate', () => migrate(database.db.pool));
  const seeded = `${DEFAULT_SEED.staff} staff, ${DEFAULT_SEED.patients} patients with cases`;
  const trial = await timed(`seed ${seeded}`, () => seedTrial(database.db.pool));
  databases.push(await describeDatabase(label, database.db.pool, seeded));
  const { sanad, baseUrl } = await startServer(database);
  try {
    const tokens = await signInAll(baseUrl, trial);
    await checkAnswers(baseUrl, trial, tokens);
    const rows: ResultRow[] = [];
    for (const scenario of scenarios(trial, tokens)) {
      const result = await runLoad({
        baseUrl,
        request: scenario.request,
        concurrency: CONCURRENCY,
        warmupMs: WARMUP_MS,
        durationMs: settings.seconds * 1000,
      });
      const row: ResultRow = { database: label, scenario: scenario.name, ...summarize(result) };
      console.log(`  ${scenario.name}: ${row.perSecond.toFixed(1)} req/s, p50 ${row.p50.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms`);
      if (result.sampleError) console.log(`    ${row.errors} errors, for example: ${result.sampleError}`);
      rows.push(row);
    }
    return rows;
  } finally {
    await sanad.close();
  }
}

/** One line on the issue's target, so a reader need not pick the rows out of the table. */
function targetNote(rows: ResultRow[]): string | undefined {
  const watched = rows.filter((row) => row.database === 'postgres' && row.scenario !== 'sign-in');
  if (watched.length === 0) return undefined;
  const over = watched.filter((row) => !(row.p99 < P99_TARGET_MS));
  return over.length === 0
    ? `Target met: every PostgreSQL me/allCases p99 is under ${P99_TARGET_MS} ms.`
    : `Target (p99 < ${P99_TARGET_MS} ms on PostgreSQL) missed by: ${over.map((row) => `${row.scenario} (${row.p99.toFixed(1)} ms)`).join(', ')}.`;
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const machine = describeMachine();
  console.log(machine);
  console.log(`concurrency ${CONCURRENCY}, ${WARMUP_MS / 1000} s warm-up, ${settings.seconds} s measured per scenario\n`);
  const rows: ResultRow[] = [];
  const databases: string[] = [];
  for (const { label, open } of await chooseDatabases(settings)) {
    console.log(`${label}:`);
    const database = await open();
    try {
      rows.push(...(await benchDatabase(label, database, settings, databases)));
    } finally {
      await database.dispose();
    }
    console.log('');
  }
  console.log(formatTable(rows));
  const note = targetNote(rows);
  if (note) console.log(`\n${note}`);
  const legend = 'errors: answers that were not 2xx, GraphQL answers with errors, and failed connections.';
  console.log(legend);
  writeResults({
    bench: 'auth',
    title: `Sign-in, me and allCases (bench/run.ts): concurrency ${CONCURRENCY}, ${settings.seconds} s a scenario`,
    command: describeCommand(process.argv, process.env),
    machine,
    date: new Date(),
    databases,
    tables: [tableOf(RESULT_COLUMNS, rows)],
    notes: [...(note ? [note] : []), legend],
  });
}

main().catch((error: unknown) => {
  console.error('The benchmark failed:', error);
  process.exitCode = 1;
});
