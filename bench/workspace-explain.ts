/**
 * `npm run bench:workspace:explain`: where the case workspace scenarios spend their time in
 * the database. Sends each scenario's request once to the app, records the SQL the server ran
 * for it (PostGraphile's statements, or the REST layer's), and prints EXPLAIN (ANALYZE,
 * BUFFERS) of each statement and of the scenario's baseline SQL, run as the server runs them:
 * in a withUser transaction, as sanad_user with jwt.claims.user_id set, so that row-level
 * security is in the plans.
 *
 * Same databases and settings as workspace-run.ts (BENCH_ONLY, BENCH_WORKSPACE_URL,
 * BENCH_WORKSPACE_SCALE, BENCH_SCENARIO, BENCH_MIGRATE_UNTIL). BENCH_EXPLAIN_GENERIC=1 explains
 * the generic plans (plan_cache_mode = force_generic_plan), which PostGraphile's prepared
 * statements get after a few executions when PostgreSQL finds them no worse than the custom
 * ones. The first execution in a session includes compiling the PL/pgSQL functions it calls.
 */
import './production-mode';
import type pg from 'pg';
import { migrate } from '../src/server/db/migrate';
import { withUser } from '../src/server/db/transaction';
import type { BenchDatabase } from './databases';
import { chooseDatabases, migrationsDir, openExistingPostgres, readSettings, startServer } from './harness';
import type { LoadRequest } from './load';
import { signIn } from './scenarios';
import type { SqlRequest } from './sql-load';
import { workspaceScenarios } from './workspace';
import { describeSeed, measureSize, seedWorkspace, workspaceScale, workspaceSize, type SeededWorkspace } from './workspace-seed';

interface Statement {
  text: string;
  values: unknown[];
}

/**
 * The message that opens a request's part: the role and user id, as withUser
 * (`begin; set local role …`) and PostGraphile's adaptor (`begin; select set_config('role', …)`,
 * src/server/graphql/pg-adaptor.ts) set them.
 */
const REQUEST_SETTINGS = /^\s*(begin;\s*)?(select set_config\(|set local role )/i;
const TRANSACTION_END = /^\s*(commit|rollback)\b/i;

/**
 * Records the statements sent as a signed-in request (after the role is set, until the
 * transaction ends) on any of the pool's connections while recording is on, by wrapping each
 * connection's query method the first time the pool hands it out. The token check and other
 * owner work around a request are left out: they are not what the scenario asks.
 */
function recorder(pool: pg.Pool): { start(): void; stop(): Statement[] } {
  let recorded: Statement[] | undefined;
  const wrapped = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (wrapped.has(client)) return;
    wrapped.add(client);
    let asUser = false;
    const original = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const [config, values] = args;
      const statement = typeof config === 'string' ? { text: config, values } : (config as { text?: string; values?: unknown });
      const text = statement.text ?? '';
      if (REQUEST_SETTINGS.test(text)) asUser = true;
      else if (TRANSACTION_END.test(text)) asUser = false;
      else if (recorded && asUser) {
        const given = Array.isArray(values) ? values : statement.values;
        recorded.push({ text, values: Array.isArray(given) ? given : [] });
      }
      return original(...args);
    };
  });
  return {
    start: () => void (recorded = []),
    stop: () => {
      const statements = recorded ?? [];
      recorded = undefined;
      return statements;
    },
  };
}

async function send(baseUrl: string, request: LoadRequest): Promise<number> {
  const init: RequestInit = { method: request.method, headers: request.headers };
  if (request.bodies?.[0] !== undefined) init.body = request.bodies[0];
  const response = await fetch(baseUrl + request.path, init);
  await response.arrayBuffer();
  return response.status;
}

async function explain(pool: pg.Pool, userId: string, statement: Statement, generic: boolean): Promise<string> {
  return withUser(pool, { userId }, async (sql) => {
    if (generic) await sql.query(`select set_config('plan_cache_mode', 'force_generic_plan', true)`);
    const { rows } = await sql.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${statement.text}`, statement.values);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

/** PostGraphile passes whole rows as JSON to its batched statements: the start says enough. */
function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}… (${text.length} characters)` : text;
}

function indent(text: string): string {
  return text.replace(/^/gm, '    ');
}

async function explainScenarios(database: BenchDatabase, seed: SeededWorkspace, record: ReturnType<typeof recorder>, generic: boolean): Promise<void> {
  const { sanad, baseUrl } = await startServer(database);
  try {
    const tokens = { therapist: await signIn(baseUrl, seed.therapist.username), coordinator: await signIn(baseUrl, seed.coordinator.username) };
    const only = process.env.BENCH_SCENARIO;
    for (const scenario of workspaceScenarios(seed, tokens).filter((s) => !only || s.name.includes(only))) {
      console.log(`\n=== ${scenario.name}`);
      record.start();
      const status = await send(baseUrl, scenario.request);
      const statements = record.stop();
      console.log(`  API answered ${status} after ${statements.length} statement(s)`);
      if (status !== 404) {
        for (const statement of statements) {
          console.log(`  --- API statement, values ${shorten(JSON.stringify(statement.values))}:\n${indent(statement.text.trim())}`);
          console.log(indent(await explain(database.db.pool, scenario.sql.userId, statement, generic)));
        }
      }
      const baseline: SqlRequest = scenario.sql;
      console.log(`  --- SQL baseline, values ${JSON.stringify(baseline.values[0])}`);
      console.log(indent(await explain(database.db.pool, baseline.userId, { text: baseline.text, values: baseline.values[0] ?? [] }, generic)));
    }
  } finally {
    await sanad.close();
  }
}

async function main(): Promise<void> {
  const settings = readSettings(process.env);
  const reuseUrl = process.env.BENCH_WORKSPACE_URL;
  const generic = process.env.BENCH_EXPLAIN_GENERIC === '1';
  const choices = reuseUrl
    ? [{ label: 'postgres' as const, open: () => openExistingPostgres(reuseUrl) }]
    : await chooseDatabases(settings, 'sanad_bench_ws');
  for (const { label, open } of choices) {
    console.log(`\n##### ${label}${generic ? ' (generic plans)' : ''}`);
    const database = await open();
    try {
      // Before anything else takes a connection, so that every connection is recorded.
      const record = recorder(database.db.pool);
      await migrate(database.db.pool, migrationsDir(database.dataDir, process.env));
      const seed = reuseUrl
        ? await describeSeed(database.db.pool, await measureSize(database.db.pool))
        : await seedWorkspace(database.db.pool, workspaceSize(workspaceScale(database.kind, process.env)));
      await explainScenarios(database, seed, record, generic);
    } finally {
      await database.dispose();
    }
  }
}

main().catch((error: unknown) => {
  console.error('The workspace explain failed:', error);
  process.exitCode = 1;
});
