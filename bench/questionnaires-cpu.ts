/**
 * `npx tsx bench/questionnaires-cpu.ts`: the cost of one questionnaire request, measured with
 * one client at a time (so that figures hold on a shared machine): Node CPU of the server's
 * thread, PostgreSQL CPU of the server's connections and their statement time, and round
 * trips, per request, for the three scenarios of questionnaires-run.ts. At concurrency 32 on
 * two cores a p99 is roughly 32 × (CPU per request) / 2, so these are the figures to cut.
 * Each scenario is measured on the floor server too (floor-server.ts: bare node:http sending the
 * API's own message, checked against the API first), so API minus floor is what Sanad's server
 * code costs a request.
 *
 * PostgreSQL only (the server's backends are read from /proc, so it must run on this machine).
 *   BENCH_CPU_REQUESTS        requests measured per scenario (default 1000, after 200 warm-up)
 *   BENCH_CPU_DATABASE_URL    a database seeded before (BENCH_KEEP=1 printed it): migrated to
 *                             the current migrations and used as it is, never dropped
 *   BENCH_QUESTIONNAIRE_SCALE as questionnaires-run.ts (default 1)
 *   BENCH_KEEP=1              keep the database it made and print its address
 *   BENCH_CPU_PROFILE=<dir>   write a .cpuprofile of the server thread per scenario
 *   BENCH_CPU_STATEMENTS=1    print each statement's time to answer (round trip included)
 */
import './production-mode';
import fs from 'node:fs';
import pg from 'pg';
import { migrate } from '../src/server/db/migrate';
import { findPostgresServer, openPostgresBench, type BenchDatabase } from './databases';
import { migrationsDir, openExistingPostgres, serverPoolSize, startServer, timed } from './harness';
import { questionnaireScenarios } from './questionnaires';
import { CPU_NOTE, describeFigures, measureScript, type Figures } from './cpu-per-request';
import { describeQuestionnaireSeed, questionnaireScale, questionnaireSize, seedQuestionnaires, type SeededQuestionnaires } from './questionnaires-seed';
import { signIn } from './scenarios';
import { startFloorServer, type FloorServer } from './floor-server';


async function openDatabaseForCpu(): Promise<{ database: BenchDatabase; seed: SeededQuestionnaires; keep: boolean }> {
  const size = questionnaireSize(questionnaireScale('postgres', process.env));
  const existing = process.env.BENCH_CPU_DATABASE_URL;
  if (existing) {
    const database = await openExistingPostgres(existing);
    await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
    return { database, seed: await describeQuestionnaireSeed(database.db.pool, size, 1), keep: true };
  }
  const server = await findPostgresServer(process.env);
  if (!server) throw new Error('No PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL.');
  const database = await openPostgresBench(server, serverPoolSize(), 'sanad_bench_qcpu');
  await timed('migrate', () => migrate(database.db.pool, migrationsDir(database.dataDir, process.env)));
  const seed = await timed('seed', () => seedQuestionnaires(database.db.pool, size, 1));
  return { database, seed, keep: process.env.BENCH_KEEP === '1' };
}

async function main(): Promise<void> {
  const { database, seed, keep } = await openDatabaseForCpu();
  const profileDir = process.env.BENCH_CPU_PROFILE;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const monitor = new pg.Client({ connectionString: database.databaseUrl });
  await monitor.connect();
  const { sanad, baseUrl, config } = await startServer(database);
  let floor: FloorServer | undefined;
  try {
    const bench = seed.cases[0]!;
    const tokens = new Map<string, string>();
    for (const person of [seed.coordinator, bench.patient, bench.therapist]) tokens.set(person.id, await signIn(baseUrl, person.username));
    floor = await startFloorServer(database.db.pool, new Map([...tokens].map(([userId, token]) => [token, userId])), { schedule: config.measurementSchedule });
    const results: Figures[] = [];
    for (const scenario of questionnaireScenarios(seed, tokens, 1).filter((s) => !process.env.BENCH_SCENARIO || s.name.includes(process.env.BENCH_SCENARIO))) {
      await scenario.check(baseUrl, database.db.pool);
      const figures = await measureScript(scenario.name, scenario.clients[0]!, baseUrl, monitor, profileDir);
      results.push(figures);
      console.log(describeFigures(figures));
      await scenario.checkFloor(baseUrl, floor.baseUrl, database.db.pool);
      const floorFigures = await measureScript(`${scenario.name}, floor server`, scenario.clients[0]!, floor.baseUrl, monitor, profileDir);
      results.push(floorFigures);
      console.log(describeFigures(floorFigures));
    }
    console.log(`\n${CPU_NOTE}`);
  } finally {
    await floor?.close();
    await sanad.close();
    await monitor.end();
    // A database given by BENCH_CPU_DATABASE_URL is never dropped (openExistingPostgres).
    if (keep && !process.env.BENCH_CPU_DATABASE_URL) {
      console.log(`kept: ${database.databaseUrl}`);
      await database.db.close();
      fs.rmSync(database.dataDir, { recursive: true, force: true });
    } else {
      await database.dispose();
    }
  }
}

main().catch((error: unknown) => {
  console.error('The questionnaire CPU measurement failed:', error);
  process.exitCode = 1;
});
