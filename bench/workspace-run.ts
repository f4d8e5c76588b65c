/**
 * `npm run bench` (second part), `npm run bench:workspace`: the case workspace at production
 * size (10,000 cases, 1,500 staff, 500,000 messages; see workspace-seed.ts) under load at
 * concurrency 32: the case list with and without search (as a therapist and as a coordinator),
 * the coordinator's lists paged deep (the middle and the last full page), a case's page and
 * GET /api/my_messages, each beside the same SQL sent straight through a node-postgres pool as
 * the baseline. Figures are printed, never asserted.
 *
 * Beside the API and the SQL, the requests the web app sends (its documents on the compiled path,
 * the REST reads, me) are also measured on the floor server (floor-server.ts: bare node:http
 * sending PostgreSQL the API's own message), after checking that it answers byte for byte as the
 * API does: floor/SQL is the best any HTTP server does on this machine, API/floor what Sanad's
 * adds. A missed target is reported as below the floor when the SQL or the floor server misses it
 * too (floor.ts), so the summary separates what is ours to fix. Other clients' lighter selections,
 * answered by PostGraphile's general path, are reported in a group of their own.
 *
 * Targets on PostgreSQL (issue "Speed at clinic scale"): p99 ≤ 50 ms for each case-list and
 * message scenario, ≤ 20 ms for GET /api/auth/users/me, and an API median within 1.5× of its
 * direct SQL's. `npx tsx bench/workspace-cpu.ts` shows where a request's time goes.
 *
 * As run.ts: BENCH_SECONDS, BENCH_ONLY=pglite|postgres, BENCH_DATABASE_URL. Also:
 *   BENCH_WORKSPACE_SCALE  size relative to the issue's (default 1 on PostgreSQL, 0.2 on PGlite)
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
  baselinePool,
  chooseDatabases,
  describeSide,
  migrationsDir,
  openExistingPostgres,
  readSettings,
  startServer,
  summarizeSide,
  timed,
  WARMUP_MS,
  type DatabaseChoice,
  type Servers,
  type Settings,
} from './harness';
import { runLoad, type Summary } from './load';
import { describeMachine, formatColumns, milliseconds, type Column } from './report';
import { describeCommand, describeDatabase, tableOf, writeResults, type ResultsTable } from './results-file';
import { describePlacement, missedAbove, missedBelow, placeTargets, type TargetPlacement } from './floor';
import { checkFloor, startFloorServer, type FloorServer } from './floor-server';
import { signIn } from './scenarios';
import { runSqlLoad } from './sql-load';
import { workspaceScenarios, type ScenarioGroup, type WorkspaceScenario } from './workspace';
import { describeSeed, describeSize, measureSize, seedWorkspace, workspaceScale, workspaceSize, type SeededWorkspace } from './workspace-seed';

/** The issue's median target on PostgreSQL (the p99 targets are the scenarios'); reported, not enforced. */
const MEDIAN_RATIO_TARGET = 1.5;

interface Row {
  database: string;
  scenario: string;
  group: ScenarioGroup;
  p99TargetMs: number;
  /** Undefined when the API route does not exist yet. */
  api: Summary | undefined;
  sql: Summary;
  /** The floor server's figures (floor-server.ts); undefined where it cannot answer. */
  floor: Summary | undefined;
}

const GROUP_TITLES: Record<ScenarioGroup, string> = {
  web: "The web app's requests (its documents on the compiled path, REST, me)",
  other: "Other clients' selections, answered by PostGraphile's general path (documents the web app never sends)",
};

const ratio = (a: Summary | undefined, b: Summary | undefined) => (a && b ? a.p50 / b.p50 : Number.NaN);
const times = (value: number) => (Number.isNaN(value) ? '-' : `${value.toFixed(2)}×`);

/** Where each of the row's missed targets lies (floor.ts); undefined off PostgreSQL or without an API answer. */
function placement(row: Row): TargetPlacement | undefined {
  if (!row.api || row.database !== 'postgres') return undefined;
  return placeTargets({ api: row.api, sql: row.sql, floor: row.floor }, { p99Ms: row.p99TargetMs, medianRatio: MEDIAN_RATIO_TARGET });
}

function verdict(row: Row): string {
  if (!row.api) return 'unavailable';
  const placed = placement(row);
  return placed ? describePlacement(placed) : '-';
}

const COLUMNS: Column<Row>[] = [
  { title: 'database', value: (row) => row.database, left: true },
  { title: 'scenario', value: (row) => row.scenario, left: true },
  { title: 'API req/s', value: (row) => (row.api ? row.api.perSecond.toFixed(0) : '-') },
  { title: 'API p50', value: (row) => milliseconds(row.api?.p50 ?? Number.NaN) },
  { title: 'API p99', value: (row) => milliseconds(row.api?.p99 ?? Number.NaN) },
  { title: 'floor p50', value: (row) => milliseconds(row.floor?.p50 ?? Number.NaN) },
  { title: 'floor p99', value: (row) => milliseconds(row.floor?.p99 ?? Number.NaN) },
  { title: 'SQL req/s', value: (row) => row.sql.perSecond.toFixed(0) },
  { title: 'SQL p50', value: (row) => milliseconds(row.sql.p50) },
  { title: 'SQL p99', value: (row) => milliseconds(row.sql.p99) },
  { title: 'p50 API/SQL', value: (row) => times(ratio(row.api, row.sql)) },
  { title: 'p50 floor/SQL', value: (row) => times(ratio(row.floor, row.sql)) },
  { title: 'p50 API/floor', value: (row) => times(ratio(row.api, row.floor)) },
  { title: 'errors', value: (row) => String((row.api?.errors ?? 0) + row.sql.errors + (row.floor?.errors ?? 0)) },
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

async function prepare(label: string, database: BenchDatabase, reuse: boolean, databases: string[]): Promise<SeededWorkspace> {
  const dir = migrationsDir(database.dataDir, process.env);
  await timed(dir === MIGRATIONS_DIR ? 'migrate' : `migrate up to ${process.env.BENCH_MIGRATE_UNTIL}`, () => migrate(database.db.pool, dir));
  if (reuse) {
    const size = await measureSize(database.db.pool);
    console.log(`  reusing the seeded database, ${describeSize(size)}`);
    databases.push(await describeDatabase(label, database.db.pool, `${describeSize(size)} (seeded earlier)`));
    return describeSeed(database.db.pool, size);
  }
  const size = workspaceSize(workspaceScale(database.kind, process.env));
  databases.push(await describeDatabase(label, database.db.pool, describeSize(size)));
  return timed(`seed ${describeSize(size)}`, () => seedWorkspace(database.db.pool, size));
}

/** One HTTP side (the API or the floor server) under load; its sample error printed when it has errors. */
async function measureHttp(side: string, baseUrl: string, scenario: WorkspaceScenario, load: { concurrency: number; warmupMs: number; durationMs: number }): Promise<Summary> {
  const result = await runLoad({ baseUrl, request: scenario.request, ...load });
  return summarizeSide(side, result);
}

async function measure(label: string, scenario: WorkspaceScenario, servers: Servers, pool: pg.Pool, settings: Settings): Promise<Row> {
  const load = { concurrency: settings.concurrency, warmupMs: WARMUP_MS, durationMs: settings.seconds * 1000 };
  const availability = await scenario.check(servers.baseUrl, pool);
  const floored = availability === 'ok' && scenario.group === 'web';
  if (floored) await checkFloor(scenario, servers.baseUrl, servers.floorUrl);
  const api = availability === 'ok' ? await measureHttp('API', servers.baseUrl, scenario, load) : undefined;
  const floor = floored ? await measureHttp('floor', servers.floorUrl, scenario, load) : undefined;
  const sqlResult = await runSqlLoad({ pool, request: scenario.sql, ...load });
  const sql = summarizeSide('SQL', sqlResult);
  const row: Row = { database: label, scenario: scenario.name, group: scenario.group, p99TargetMs: scenario.p99TargetMs, api, sql, floor };
  const sides = [api ? describeSide('API', api) : 'API unavailable (404)', ...(floor ? [describeSide('floor', floor)] : []), describeSide('SQL', sql)];
  console.log(`  ${scenario.name}: ${sides.join('; ')}`);
  return row;
}

async function benchDatabase(label: string, database: BenchDatabase, settings: Settings, reuse: boolean, databases: string[]): Promise<Row[]> {
  const seed = await prepare(label, database, reuse, databases);
  console.log(`  signed in as ${seed.therapist.username} (${seed.therapist.caseIds.length} cases) and ${seed.coordinator.username}; search "${seed.search}"`);
  const { sanad, baseUrl } = await startServer(database);
  const baseline = baselinePool(database);
  let floorServer: FloorServer | undefined;
  try {
    const tokens = { therapist: await signIn(baseUrl, seed.therapist.username), coordinator: await signIn(baseUrl, seed.coordinator.username) };
    // The floor server takes these tokens as these people without verifying them (floor-server.ts).
    const users = new Map([
      [tokens.therapist, seed.therapist.id],
      [tokens.coordinator, seed.coordinator.id],
    ]);
    floorServer = await startFloorServer(database.db.pool, users);
    const servers = { baseUrl, floorUrl: floorServer.baseUrl };
    const only = process.env.BENCH_SCENARIO;
    const rows: Row[] = [];
    for (const scenario of workspaceScenarios(seed, tokens).filter((s) => !only || s.name.includes(only))) {
      rows.push(await measure(label, scenario, servers, baseline.pool, settings));
    }
    return rows;
  } finally {
    await floorServer?.close();
    await baseline.close();
    await sanad.close();
  }
}

/** A group's summary: the targets met, those missed above the floor (ours to fix) and those missed only below it. */
function groupNote(group: ScenarioGroup, rows: Row[]): string | undefined {
  const placed = rows.flatMap((row) => {
    const p = row.group === group ? placement(row) : undefined;
    return p ? [{ row, placement: p }] : [];
  });
  if (placed.length === 0) return undefined;
  const above = placed.flatMap(({ row, placement: p }) => {
    const targets = (['p99', 'median'] as const).filter((t) => p[t].kind === 'above');
    return targets.length > 0 ? [`${row.scenario} (${targets.join(', ')})`] : [];
  });
  const below = placed.flatMap(({ row, placement: p }) =>
    (['p99', 'median'] as const).flatMap((t) => {
      const place = p[t];
      return place.kind === 'below' ? [`${row.scenario} (${t}; ${place.because})`] : [];
    }),
  );
  const met = placed.filter(({ placement: p }) => !missedAbove(p) && !missedBelow(p)).map(({ row }) => row.scenario);
  return [
    `${GROUP_TITLES[group]}:`,
    `  met: ${met.length > 0 ? met.join('; ') : 'none'}.`,
    `  missed above the floor (the server's own time; ours to fix): ${above.length > 0 ? above.join('; ') : 'none'}.`,
    `  missed below the floor (the SQL or a bare node:http server already misses it): ${below.length > 0 ? below.join('; ') : 'none'}.`,
  ].join('\n');
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const reuseUrl = process.env.BENCH_WORKSPACE_URL;
  const machine = describeMachine();
  console.log(machine);
  console.log(`Case workspace: concurrency ${settings.concurrency}, ${WARMUP_MS / 1000} s warm-up, ${settings.seconds} s measured per scenario and side\n`);
  const choices: DatabaseChoice[] = reuseUrl
    ? [{ label: 'postgres', open: () => openExistingPostgres(reuseUrl) }]
    : await chooseDatabases(settings, 'sanad_bench_ws');
  const rows: Row[] = [];
  const databases: string[] = [];
  for (const { label, open } of choices) {
    console.log(`${label}:`);
    const opened = await open();
    const database = process.env.BENCH_KEEP === '1' && !reuseUrl && opened.kind === 'postgres' ? kept(opened) : opened;
    try {
      rows.push(...(await benchDatabase(label, database, settings, Boolean(reuseUrl), databases)));
    } finally {
      await database.dispose();
    }
    console.log('');
  }
  const tables: ResultsTable[] = [];
  for (const group of ['web', 'other'] as const) {
    const grouped = rows.filter((row) => row.group === group);
    if (grouped.length > 0) {
      console.log(`${GROUP_TITLES[group]}:\n${formatColumns(COLUMNS, grouped)}\n`);
      tables.push(tableOf(COLUMNS, grouped, `${GROUP_TITLES[group]}:`));
    }
  }
  const notes = (['web', 'other'] as const).flatMap((group) => groupNote(group, rows) ?? []);
  const targets = notes.length > 0 ? [`Targets on PostgreSQL: p99 ≤ 50 ms (me ≤ 20 ms); API median ≤ ${MEDIAN_RATIO_TARGET}× the SQL's.`, ...notes].join('\n') : undefined;
  if (targets) console.log(targets);
  const legend = [
    'API: the app over HTTP; SQL: the same rows through a pg pool in a withUser transaction. Latencies in ms.',
    "floor: a bare node:http server (bench/floor-server.ts) sending PostgreSQL the API's own message on the API's pool, tokens",
    "  mapped to people without verification; floor/SQL is the best any HTTP API does here, API/floor what Sanad's server adds.",
    'errors: answers that were not 2xx, GraphQL answers with errors, failed connections and failed SQL.',
  ];
  console.log(`\n${legend.join('\n')}`);
  writeResults({
    bench: 'workspace',
    title: `Case workspace (bench/workspace-run.ts): concurrency ${settings.concurrency}, ${settings.seconds} s a scenario and side`,
    command: describeCommand(process.argv, process.env),
    machine,
    date: new Date(),
    databases,
    tables,
    notes: [...(targets ? ['```', targets, '```'] : []), ...legend.map((line) => line.trim())],
  });
}

main().catch((error: unknown) => {
  console.error('The workspace benchmark failed:', error);
  process.exitCode = 1;
});
