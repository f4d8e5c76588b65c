/**
 * Workflow engine at scale (issue 6): 10,000 running trial instances on PostgreSQL, then
 * - task completions through POST /api/workflow/rest/task/{id}/submit-form at concurrency 16
 *   (completions/s, p50 and p99 after a warm-up; target p99 ≤ 100 ms), and
 * - timer firings by the scheduler's claim loop (firings/s with 4 parallel workers),
 * each with the CPU it cost in Node and in the PostgreSQL backends (bench/cpu.ts).
 * BENCH_CONCURRENCY=1 (and BENCH_TIMER_WORKERS) measure the cost of one step without contention.
 * Instances are seeded by starting one trial and copying its rows (engine state, task, timer)
 * to every case, which is what 10,000 starts would write. Needs PostgreSQL (BENCH_DATABASE_URL,
 * TEST_DATABASE_URL or the default test address); skipped without one. WORKFLOWS_DIR runs it on
 * another trial version (test/fixtures/workflow-v1 is the flat trial before its phases became
 * sub-processes), BENCH_WORKFLOW_INSTANCES, _COMPLETIONS and _TIMERS make a smaller run.
 */
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { buildApp } from '../src/server/app';
import { loadConfig } from '../src/server/config';
import { migrate } from '../src/server/db/migrate';
import { withOwner } from '../src/server/db/transaction';
import { createUser } from '../src/server/admin/accounts';
import { findPostgresServer, openPostgresBench } from './databases';
import { describeMachine } from './report';
import { describeCpu, startCpu, type CpuSpent } from './cpu';
import { describeCommand, describeDatabase, figuresTable, writeResults } from './results-file';

const INSTANCES = Number(process.env.BENCH_WORKFLOW_INSTANCES ?? 10_000);
const COMPLETIONS = Number(process.env.BENCH_WORKFLOW_COMPLETIONS ?? 2_000);
const TIMERS = Number(process.env.BENCH_WORKFLOW_TIMERS ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
/**
 * The first completions warm the server up (the code's compilation, each pooled connection's
 * first statements, parsing the definition version): they run at the same concurrency before
 * the measured ones, and their slowest is printed beside the figures.
 */
const WARMUP = Number(process.env.BENCH_WORKFLOW_WARMUP ?? 64);
const TIMER_WORKERS = Number(process.env.BENCH_TIMER_WORKERS ?? Math.min(4, CONCURRENCY));

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function main(): Promise<void> {
  // Other work on the shared machine skews every figure: the load before the bench's own processes start.
  const loadBefore = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  const serverUrl = await findPostgresServer(process.env);
  if (!serverUrl) {
    console.log('workflow bench: no PostgreSQL server answers; skipped (set BENCH_DATABASE_URL)');
    return;
  }
  const bench = await openPostgresBench(serverUrl, 24, 'sanad_bench_wf');
  try {
    const pool = bench.db.pool;
    await migrate(pool);
    const config = loadConfig({
      NODE_ENV: 'test',
      DATA_DIR: bench.dataDir,
      JWT_SECRET: 'bench-secret-that-is-long-enough-for-hs256-signing',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      // One person at concurrency 32: the per-person and per-address limits are off here.
      RATE_LIMIT_PER_PERSON_PER_MINUTE: '0',
      RATE_LIMIT_PER_ADDRESS_PER_MINUTE: '0',
      LOG_LEVEL: 'silent',
      ...(process.env.WORKFLOWS_DIR ? { WORKFLOWS_DIR: process.env.WORKFLOWS_DIR } : {}),
    });
    const sanad = await buildApp({ config, db: bench.db, serveWebApp: false });
    await sanad.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(sanad.app.server.address() as AddressInfo).port}`;
    const host = sanad.workflow.host;

    // Seed: cases, one real start, copies of its rows for every other case.
    const seedStart = performance.now();
    await createUser(pool, { username: 'benchcoordinator', email: 'bench@example.org', password: 'correct horse battery', flags: ['coordinator'] });
    await pool.query(`insert into app_public.cases (stage) select 'registration' from generate_series(1, $1)`, [INSTANCES]);
    const { rows: first } = await pool.query<{ id: string }>('select id from app_public.cases order by id limit 1');
    const template = await withOwner(pool, (sql) => host.startInTx(sql, { key: 'trial', caseId: first[0]!.id, businessKey: 'trial', variables: {} }));
    await withOwner(pool, async (sql) => {
      await sql.query(
        `create temporary table bench_map on commit drop as
         select c.id as case_id, gen_random_uuid() as instance_id from app_public.cases c where c.id <> $1`,
        [first[0]!.id],
      );
      await sql.query(
        `insert into app_public.workflow_instances (id, definition_key, definition_version, business_key, case_id, state, start_time, variables, waiting_messages, waiting_signals, waiting_executions)
         select m.instance_id, i.definition_key, i.definition_version, i.business_key, m.case_id, i.state, i.start_time,
                jsonb_set(i.variables, '{caseId,value}', to_jsonb(m.case_id::text)), i.waiting_messages, i.waiting_signals, i.waiting_executions
           from bench_map m, app_public.workflow_instances i where i.id = $1`,
        [template.id],
      );
      await sql.query(
        `insert into app_private.workflow_engine_states (instance_id, state, step)
         select m.instance_id, s.state, s.step from bench_map m, app_private.workflow_engine_states s where s.instance_id = $1`,
        [template.id],
      );
      await sql.query(
        `insert into app_public.workflow_tasks (process_instance_id, case_id, execution_id, task_definition_key, name, candidate_groups, due, priority, form_fields, created)
         select m.instance_id, m.case_id, t.execution_id, t.task_definition_key, t.name, t.candidate_groups, t.due, t.priority, t.form_fields, t.created
           from bench_map m, app_public.workflow_tasks t where t.process_instance_id = $1`,
        [template.id],
      );
      await sql.query(
        `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, activity_name, execution_id, due_date, created)
         select m.instance_id, m.case_id, j.kind, j.activity_id, j.activity_name, j.execution_id, j.due_date, j.created
           from bench_map m, app_public.workflow_jobs j where j.process_instance_id = $1`,
        [template.id],
      );
    });
    await pool.query('analyze');
    const seedSeconds = (performance.now() - seedStart) / 1000;

    const signIn = await fetch(`${url}/api/auth/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'benchcoordinator', password: 'correct horse battery' }),
    });
    const token = ((await signIn.json()) as { encoded: string }).encoded;

    // Task completions at concurrency 16.
    const { rows: tasks } = await pool.query<{ id: string }>(
      `select id from app_public.workflow_tasks where end_time is null and task_definition_key = 'screeningTask' order by random() limit $1`,
      [COMPLETIONS + WARMUP],
    );
    let failures = 0;
    /** Completes the given tasks at CONCURRENCY; their latencies, sorted. */
    const completeAll = async (batch: { id: string }[]): Promise<number[]> => {
      const ms: number[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < batch.length) {
            const task = batch[next++]!;
            const started = performance.now();
            const response = await fetch(`${url}/api/workflow/rest/task/${task.id}/submit-form`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              // The screening task declares no form fields (0020: a form takes only its own): the
              // coordinator completes it by hand with none, and the trial goes on to the interview.
              body: JSON.stringify({ variables: {} }),
            });
            await response.arrayBuffer();
            ms.push(performance.now() - started);
            if (response.status !== 204) failures += 1;
          }
        }),
      );
      return ms.sort((a, b) => a - b);
    };
    const warmup = await completeAll(tasks.slice(0, WARMUP));
    const measured = tasks.slice(WARMUP);
    const completeCpu = await startCpu(pool);
    const completeStart = performance.now();
    const latencies = await completeAll(measured);
    const completeSeconds = (performance.now() - completeStart) / 1000;
    const completeSpent: CpuSpent = await completeCpu();

    // Timer firings: make reminders of untouched instances due, fire with 4 workers.
    await pool.query(
      `update app_public.workflow_jobs set due_date = now() - interval '1 minute'
        where id in (select j.id from app_public.workflow_jobs j
                      join app_public.workflow_tasks t on t.process_instance_id = j.process_instance_id and t.end_time is null and t.task_definition_key = 'screeningTask'
                     where j.activity_id = 'screeningReminder' limit $1)`,
      [TIMERS],
    );
    // Count the reminders that ran (one mail step per firing): fireDueJobs also counts a job
    // when it claimed a job that another worker fired just before, which is not a firing.
    const reminders = async () =>
      (await pool.query<{ n: number }>(`select count(*)::int as n from app_public.workflow_history where activity_id = 'screeningReminderMail'`)).rows[0]!.n;
    const remindedBefore = await reminders();
    const fireCpu = await startCpu(pool);
    const fireStart = performance.now();
    await Promise.all(
      Array.from({ length: TIMER_WORKERS }, async () => {
        while ((await host.fireDueJobs()) > 0);
      }),
    );
    const fireSeconds = (performance.now() - fireStart) / 1000;
    const fireSpent: CpuSpent = await fireCpu();
    const fired = (await reminders()) - remindedBefore;

    const screens = await taskScreenLatencies(url, token);

    const { rows: state } = await pool.query(`select count(*)::int as n from app_public.workflow_instances where state = 'ACTIVE'`);
    const machine = describeMachine();
    const figures: [string, string][] = [
      ['load before the run:', `${loadBefore} (1, 5, 15 min)`],
      ['running instances:', `${state[0].n} (seeded in ${seedSeconds.toFixed(1)} s)`],
      ['task completions:', `${measured.length} in ${completeSeconds.toFixed(1)} s = ${(measured.length / completeSeconds).toFixed(0)}/s at concurrency ${CONCURRENCY}, ${failures} failed`],
      ['submit-form latency:', `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms (target p99 ≤ 100 ms)`],
      ['warm-up before them:', `${warmup.length} completions, p50 ${percentile(warmup, 50).toFixed(1)} ms, slowest ${(warmup.at(-1) ?? 0).toFixed(1)} ms`],
      ['submit-form CPU:', `${describeCpu(completeSpent, measured.length)} (client included)`],
      ['timer firings:', `${fired} in ${fireSeconds.toFixed(1)} s = ${(fired / fireSeconds).toFixed(0)}/s (${TIMER_WORKERS} workers)`],
      ['timer firing CPU:', describeCpu(fireSpent, Math.max(1, fired))],
      ...screens.map(([name, ms]): [string, string] => [name, `p50 ${percentile(ms, 50).toFixed(1)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms (coordinator, all tasks)`]),
    ];
    console.log(`\nWorkflow engine on PostgreSQL (${machine})`);
    for (const [name, value] of figures) console.log(`  ${name.padEnd(26)}${value}`);
    writeResults({
      bench: 'workflow',
      title: `Workflow engine (bench/workflow.ts): submit-form at concurrency ${CONCURRENCY}, timer firings with ${TIMER_WORKERS} workers`,
      command: describeCommand(process.argv, process.env),
      machine,
      date: new Date(),
      databases: [await describeDatabase('postgres', pool, `${state[0].n} running trial instances${process.env.WORKFLOWS_DIR ? ` of ${process.env.WORKFLOWS_DIR}` : ''}`)],
      tables: [figuresTable(figures.map(([name, value]): [string, string] => [name.replace(/:$/, ''), value]))],
    });
    await sanad.close();
  } finally {
    await bench.dispose();
  }
}

/** The task screens' reads (db/migrations/0014) as a coordinator who sees every open task. */
async function taskScreenLatencies(url: string, token: string): Promise<[string, number[]][]> {
  const queries: [string, string][] = [
    ['/admin/tasks first page:', '{ openWorkflowTasks(first: 50) { totalCount nodes { id name due caseByCaseId { shortId } } } }'],
    ['/admin/tasks overdue:', '{ openWorkflowTasks(first: 50, overdue: true, sort: PRIORITY) { totalCount nodes { id } } }'],
    ['/admin/tasks case search:', '{ openWorkflowTasks(first: 50, caseSearch: "ab") { totalCount nodes { id } } }'],
    ['/due (myDueTasks):', '{ myDueTasksList { id } }'],
  ];
  const results: [string, number[]][] = [];
  for (const [name, query] of queries) {
    const ms: number[] = [];
    for (let i = 0; i < 30; i += 1) {
      const started = performance.now();
      const response = await fetch(`${url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      const body = (await response.json()) as { errors?: unknown[] };
      if (body.errors) throw new Error(`${name} ${JSON.stringify(body.errors)}`);
      ms.push(performance.now() - started);
    }
    results.push([name, ms.sort((a, b) => a - b)]);
  }
  return results;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
