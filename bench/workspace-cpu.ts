/**
 * `npx tsx bench/workspace-cpu.ts`: where the time of a case workspace request goes, measured
 * with one client at a time (figures that hold while other work shares the machine): for each
 * scenario of workspace.ts, the API's Node CPU (server thread), PostgreSQL CPU and statement
 * time and round trips per request, beside the same for its direct SQL (withUser, one pooled
 * connection), and for the web app's requests the same on the floor server (floor-server.ts:
 * bare node:http sending the API's own message), so API minus floor is what Sanad's server code
 * costs and floor minus SQL what any HTTP server costs. At concurrency 32 on two cores a p99 is about 32 × (CPU per request) / 2, so the
 * sum of Node and PostgreSQL CPU is the figure that decides the latency targets.
 *
 * PostgreSQL only (backends are read from /proc). BENCH_WORKSPACE_URL: a database seeded earlier
 * (BENCH_KEEP=1 of workspace-run.ts), migrated and used as it is; otherwise a fresh one at
 * BENCH_WORKSPACE_SCALE (default 0.3). BENCH_SCENARIO, BENCH_CPU_REQUESTS as elsewhere.
 */
import './production-mode';
import pg from 'pg';
import { migrate } from '../src/server/db/migrate';
import { withUser } from '../src/server/db/transaction';
import { activeMs, backendTicks, countQueries, CPU_NOTE, describeFigures, measureScript, ticksBetween, TICK_MS } from './cpu-per-request';
import { findPostgresServer, openPostgresBench, type BenchDatabase } from './databases';
import { migrationsDir, openExistingPostgres, serverPoolSize, startServer, timed } from './harness';
import type { ClientScript, LoadRequest } from './load';
import { checkFloor, startFloorServer, type FloorServer } from './floor-server';
import { signIn } from './scenarios';
import { preparedQuery, type SqlRequest } from './sql-load';
import { workspaceScenarios } from './workspace';
import { describeSeed, measureSize, seedWorkspace, workspaceSize, type SeededWorkspace } from './workspace-seed';

const REQUESTS = Number(process.env.BENCH_CPU_REQUESTS ?? 1000);

async function open(): Promise<{ database: BenchDatabase; seed: SeededWorkspace }> {
  const existing = process.env.BENCH_WORKSPACE_URL;
  if (existing) {
    const database = await openExistingPostgres(existing);
    await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
    return { database, seed: await describeSeed(database.db.pool, await measureSize(database.db.pool)) };
  }
  const server = await findPostgresServer(process.env);
  if (!server) throw new Error('No PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  const database = await openPostgresBench(server, serverPoolSize(), 'sanad_bench_wscpu');
  await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
  const size = workspaceSize(Number(process.env.BENCH_WORKSPACE_SCALE ?? 0.3));
  return { database, seed: await timed('seed', () => seedWorkspace(database.db.pool, size)) };
}

function script(request: LoadRequest): ClientScript {
  const bodies = request.bodies?.length ? request.bodies : [undefined];
  return {
    method: request.method,
    headers: request.headers,
    ...(request.graphql ? { graphql: true } : {}),
    steps: bodies.map((body) => (body === undefined ? { path: request.path } : { path: request.path, body })),
  };
}

/** The direct SQL, one request after the other on one connection, as workspace-run.ts sends it. */
async function measureSql(sql: SqlRequest, pool: pg.Pool, monitor: pg.Client): Promise<string> {
  for (let i = 0; i < 50; i++) await withUser(pool, { userId: sql.userId }, (client) => client.query(preparedQuery(sql.text, sql.values[i % sql.values.length] ?? [])));
  const ticks0 = await backendTicks(monitor);
  const active0 = await activeMs(monitor);
  const thread0 = process.threadCpuUsage();
  const queries = countQueries();
  for (let i = 0; i < REQUESTS; i++) await withUser(pool, { userId: sql.userId }, (client) => client.query(preparedQuery(sql.text, sql.values[i % sql.values.length] ?? [])));
  const { count } = queries.stop();
  const thread1 = process.threadCpuUsage(thread0);
  const ticks1 = await backendTicks(monitor);
  const active1 = await activeMs(monitor);
  const node = (thread1.user + thread1.system) / 1000 / REQUESTS;
  const pgCpu = (ticksBetween(ticks0, ticks1) * TICK_MS) / REQUESTS;
  return `  SQL: Node ${node.toFixed(3)} ms; PostgreSQL CPU ${pgCpu.toFixed(3)} ms, statement time ${((active1 - active0) / REQUESTS).toFixed(3)} ms; ${(count / REQUESTS).toFixed(1)} round trips`;
}

async function main(): Promise<void> {
  const { database, seed } = await open();
  const monitor = new pg.Client({ connectionString: database.databaseUrl });
  await monitor.connect();
  const pool = new pg.Pool({ connectionString: database.databaseUrl, max: 1 });
  const { sanad, baseUrl } = await startServer(database);
  let floor: FloorServer | undefined;
  try {
    const tokens = { therapist: await signIn(baseUrl, seed.therapist.username), coordinator: await signIn(baseUrl, seed.coordinator.username) };
    floor = await startFloorServer(
      database.db.pool,
      new Map([
        [tokens.therapist, seed.therapist.id],
        [tokens.coordinator, seed.coordinator.id],
      ]),
    );
    for (const scenario of workspaceScenarios(seed, tokens).filter((s) => !process.env.BENCH_SCENARIO || s.name.includes(process.env.BENCH_SCENARIO))) {
      await scenario.check(baseUrl, pool);
      console.log(describeFigures(await measureScript(scenario.name, script(scenario.request), baseUrl, monitor, process.env.BENCH_CPU_PROFILE)));
      if (scenario.group === 'web') {
        await checkFloor(scenario, baseUrl, floor.baseUrl);
        const figures = await measureScript(`${scenario.name}, floor server`, script(scenario.request), floor.baseUrl, monitor, process.env.BENCH_CPU_PROFILE);
        console.log(describeFigures(figures));
      }
      console.log(await measureSql(scenario.sql, pool, monitor));
    }
    console.log(`\n${CPU_NOTE}`);
  } finally {
    await floor?.close();
    await sanad.close();
    await pool.end();
    await monitor.end();
    await database.dispose();
  }
}

main().catch((error: unknown) => {
  console.error('The workspace CPU measurement failed:', error);
  process.exitCode = 1;
});
