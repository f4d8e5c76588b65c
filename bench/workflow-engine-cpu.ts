/**
 * The Node CPU of one workflow step without a database: the engine path of a step (recover the
 * state, apply the event, run the services, the new state and the rows to write) on a fake
 * connection that answers every statement with no rows. Starts N trials, fires their screening
 * reminders, completes their screening tasks, the booking by message, the interview outcome and
 * the randomization, and prints the CPU time per step of each kind for both runners: Sanad's
 * interpreter (every new instance) and bpmn-engine (instances it stored before), so a change to
 * the trial's shape or to the engine can be judged in seconds.
 * Run: npx tsx bench/workflow-engine-cpu.ts [file.bpmn] (BENCH_STEPS=200).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyse, type DefinitionInfo } from '../src/server/workflow/definitions';
import { runStep, systemClock, type InstanceRecord, type StepEvent } from '../src/server/workflow/engine';
import type { Runner } from '../src/server/workflow/engine-common';
import { advanceInterpreter } from '../src/server/workflow/engine-interpreter';
import { advanceLegacy } from '../src/server/workflow/engine-legacy';
import { DEFAULT_HANDLERS } from '../src/server/workflow/handlers';
import type { Sql } from '../src/server/db/transaction';

const STEPS = Number(process.env.BENCH_STEPS ?? 200);

interface Simulated {
  record: InstanceRecord;
  tasks: Map<string, { id: string; executionId: string; key: string }>;
  timers: Map<string, { executionId: string; activityId: string }>;
}

/** A connection that remembers what persist wrote and answers everything else with no rows. */
function fakeSql(onPersist: (params: unknown[]) => void): Sql {
  return {
    query: async (statement: string | { text: string; values?: unknown[] }, params?: unknown[]) => {
      const { text, values } = typeof statement === 'string' ? { text: statement, values: params } : statement;
      if (text.includes('saved_state as')) onPersist(values ?? []);
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Sql;
}

let taskCounter = 0;
let runner: Runner = advanceInterpreter;
async function step(def: DefinitionInfo, sim: Simulated, event: StepEvent): Promise<boolean> {
  let written: unknown[] = [];
  const sql = fakeSql((params) => (written = params));
  const outcome = await runStep(
    { sql, clock: systemClock, handlers: DEFAULT_HANDLERS, maxAttempts: 5, retryBaseMs: 30_000 },
    def,
    sim.record,
    event,
    runner,
  );
  const [, , variables, , , , , , engineState, stepNo, , closed, opened, stale, newTimers] = written as [
    string, string, string, string, unknown, string[], string[], string[], string | null, number, unknown, string, string, string[], string,
  ];
  for (const c of JSON.parse(closed) as { id: string }[]) for (const [k, t] of sim.tasks) if (t.id === c.id) sim.tasks.delete(k);
  for (const o of JSON.parse(opened) as { execution_id: string; task_definition_key: string }[]) {
    taskCounter += 1;
    sim.tasks.set(o.execution_id, { id: `t${taskCounter}`, executionId: o.execution_id, key: o.task_definition_key });
  }
  for (const s of stale) sim.timers.delete(s);
  for (const t of JSON.parse(newTimers) as { execution_id: string; activity_id: string }[]) {
    sim.timers.set(t.execution_id, { executionId: t.execution_id, activityId: t.activity_id });
  }
  sim.record = {
    ...sim.record,
    variables: JSON.parse(variables),
    engineState: engineState ? JSON.parse(engineState) : null,
    step: stepNo,
    openTasks: [...sim.tasks.values()].map((t) => ({ id: t.id, executionId: t.executionId })),
    jobs: [...sim.timers.values()].map((t) => ({ executionId: t.executionId, kind: 'timer' as const, attempts: 0 })),
  };
  return outcome.matched;
}

function task(sim: Simulated, key: string) {
  const found = [...sim.tasks.values()].find((t) => t.key === key);
  if (!found) throw new Error(`no open task ${key}; open: ${[...sim.tasks.values()].map((t) => t.key).join(', ')}`);
  return found;
}

/** The CPU per step of each kind for one runner. */
async function measureRunner(def: DefinitionInfo): Promise<Map<string, { cpu: number; n: number; size: number }>> {
  const sims: Simulated[] = [];
  const kinds = new Map<string, { cpu: number; n: number; size: number }>();
  const measure = async (label: string, run: (sim: Simulated) => Promise<void>) => {
    const cpu = process.cpuUsage();
    for (const sim of sims) await run(sim);
    const used = process.cpuUsage(cpu);
    const size = sims.reduce((sum, s) => sum + (s.record.engineState ? JSON.stringify(s.record.engineState).length : 0), 0) / sims.length;
    kinds.set(label, { cpu: (used.user + used.system) / 1000, n: sims.length, size });
  };
  for (let i = 0; i < STEPS; i += 1) {
    sims.push({
      record: { id: `i${i}`, caseId: `c${i}`, businessKey: 'trial', variables: { caseId: { value: `c${i}`, type: 'String' } }, engineState: null, step: 0, openTasks: [], jobs: [] },
      tasks: new Map(),
      timers: new Map(),
    });
  }
  try {
  await measure('start', (sim) => step(def, sim, { kind: 'start' }).then(() => undefined));
  await measure('timer (reminder)', async (sim) => {
    const timer = [...sim.timers.values()].find((t) => t.activityId === 'screeningReminder')!;
    if (!(await step(def, sim, { kind: 'timer', executionId: timer.executionId }))) throw new Error('timer did not match');
  });
  await measure('complete screeningTask', async (sim) => {
    const t = task(sim, 'screeningTask');
    await step(def, sim, { kind: 'completeTask', executionId: t.executionId, variables: { excluded: { value: false, type: 'Boolean' } }, userId: null });
  });
  await measure('message interviewBooked', async (sim) => {
    const variables = { offerId: { value: 'o1', type: 'String' }, bookingId: { value: 'b1', type: 'String' }, startsAt: { value: new Date(Date.now() + 864e5).toISOString(), type: 'String' } };
    if (!(await step(def, sim, { kind: 'message', messageName: 'interviewBooked', variables: variables as never }))) throw new Error('message did not match');
  });
  await measure('complete interviewTask', async (sim) => {
    const t = task(sim, 'interviewTask');
    await step(def, sim, { kind: 'completeTask', executionId: t.executionId, variables: { outcome: { value: 'ptsd', type: 'String' } }, userId: null });
  });
  await measure('complete randomizeTask', async (sim) => {
    const t = task(sim, 'randomizeTask');
    await step(def, sim, { kind: 'completeTask', executionId: t.executionId, variables: { treatment: { value: 'a', type: 'String' } }, userId: null });
  });
  } catch (error) {
    console.log(`stopped: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`  open tasks at the end: ${[...new Set(sims.flatMap((s) => [...s.tasks.values()].map((t) => t.key)))].join(', ')}`);
  return kinds;
}

async function main(): Promise<void> {
  const file = process.argv[2] ?? path.resolve(import.meta.dirname, '../workflows/trial.bpmn');
  const def = await analyse('trial', 1, fs.readFileSync(file, 'utf8'));
  runner = advanceLegacy;
  const legacy = await measureRunner(def);
  runner = advanceInterpreter;
  await measureRunner(def); // warm-up: the interpreter's code is compiled by the first round
  const interpreter = await measureRunner(def);
  console.log(`Workflow step CPU without a database (${path.basename(file)}, ${STEPS} instances, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')})`);
  console.log(`  ${'step'.padEnd(26)} ${'bpmn-engine'.padStart(12)} ${'interpreter'.padStart(12)}   stored state (bpmn-engine → interpreter)`);
  for (const [label, k] of interpreter) {
    const old = legacy.get(label);
    const ms = (x: { cpu: number; n: number } | undefined) => (x ? `${(x.cpu / x.n).toFixed(2)} ms` : '—').padStart(12);
    console.log(`  ${label.padEnd(26)} ${ms(old)} ${ms(k)}   ${Math.round(old?.size ?? 0)} → ${Math.round(k.size)} characters`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
