/**
 * The cost of one workflow step, without HTTP and without concurrency: N trial instances are
 * started, their screening tasks completed one after another, then their screening reminders
 * fired. Prints wall time, process CPU time and database round trips per step, and the round
 * trips by statement, so a change to the step path can be judged by what it costs.
 * Run: npx tsx bench/workflow-step.ts (BENCH_STEPS=150; PostgreSQL as for bench/workflow.ts).
 */
import path from 'node:path';
import { migrate } from '../src/server/db/migrate';
import { withOwner, type Sql } from '../src/server/db/transaction';
import { WorkflowHost } from '../src/server/workflow/host';
import { createLogger } from '../src/server/logger';
import { loadConfig } from '../src/server/config';
import { findPostgresServer, openPostgresBench } from './databases';
import { describeMachine } from './report';

const STEPS = Number(process.env.BENCH_STEPS ?? 150);

interface Counter {
  queries: number;
  byStatement: Map<string, number>;
}

/** The same client, counting its queries by their first words. */
function counting(sql: Sql, counter: Counter): Sql {
  return new Proxy(sql, {
    get(target, property) {
      if (property === 'query') {
        return (...args: unknown[]) => {
          counter.queries += 1;
          const statement = args[0] as string | { text: string };
          const text = (typeof statement === 'string' ? statement : statement.text).replace(/\s+/g, ' ').trim().slice(0, 70);
          counter.byStatement.set(text, (counter.byStatement.get(text) ?? 0) + 1);
          return (target.query as (...a: unknown[]) => unknown)(...args);
        };
      }
      const value = (target as unknown as Record<string | symbol, unknown>)[property];
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function measure(label: string, count: number, run: () => Promise<void>): Promise<void> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await run();
  const wall = (performance.now() - started) / count;
  const used = process.cpuUsage(cpu);
  console.log(`  ${label.padEnd(22)} ${wall.toFixed(1)} ms wall, ${((used.user + used.system) / 1000 / count).toFixed(1)} ms CPU per step (${count} steps)`);
}

async function main(): Promise<void> {
  const serverUrl = await findPostgresServer(process.env);
  if (!serverUrl) {
    console.log('workflow step bench: no PostgreSQL server answers; skipped (set BENCH_DATABASE_URL)');
    return;
  }
  const bench = await openPostgresBench(serverUrl, 4, 'sanad_bench_wfstep');
  try {
    const pool = bench.db.pool;
    await migrate(pool);
    const log = createLogger(loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent' }));
    const host = new WorkflowHost({ pool, log, workflowsDir: path.resolve(import.meta.dirname, '../workflows') });
    await host.deployAll();
    await pool.query(`insert into app_public.cases (stage) select 'registration' from generate_series(1, $1)`, [STEPS]);
    const { rows: cases } = await pool.query<{ id: string }>('select id from app_public.cases');

    console.log(`\nWorkflow step cost on PostgreSQL, one step at a time (${describeMachine()})`);
    await measure('start', cases.length, async () => {
      for (const c of cases) await withOwner(pool, (sql) => host.startInTx(sql, { key: 'trial', caseId: c.id, businessKey: 'trial', variables: {} }));
    });
    const { rows: size } = await pool.query<{ avg: number }>(`select avg(length(state::text))::int as avg from app_private.workflow_engine_states`);

    const { rows: tasks } = await pool.query<{ process_instance_id: string; execution_id: string }>(
      `select process_instance_id, execution_id from app_public.workflow_tasks where end_time is null and task_definition_key = 'screeningTask'`,
    );
    const counter: Counter = { queries: 0, byStatement: new Map() };
    await measure('task completion', tasks.length, async () => {
      for (const task of tasks) {
        await withOwner(pool, (sql) =>
          host.stepInTx(counting(sql, counter), task.process_instance_id, {
            kind: 'completeTask',
            executionId: task.execution_id,
            variables: { excluded: { value: false, type: 'Boolean' } },
            userId: null,
          }),
        );
      }
    });

    await pool.query(`update app_public.workflow_jobs set due_date = now() - interval '1 minute' where activity_id = 'bookReminder'`);
    let fired = 0;
    await measure('timer firing', tasks.length, async () => {
      while (await host.fireOneDueJob()) fired += 1;
    });

    console.log(`  engine state:          ${size[0]!.avg} characters of JSON per instance`);
    console.log(`  task completion:       ${(counter.queries / tasks.length).toFixed(1)} statements per step (plus begin and commit):`);
    for (const [text, n] of [...counter.byStatement].sort((a, b) => b[1] - a[1])) {
      console.log(`    ${(n / tasks.length).toFixed(1)} × ${text}`);
    }
    if (fired !== tasks.length) console.log(`  (fired ${fired} timers, expected ${tasks.length})`);
  } finally {
    await bench.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
