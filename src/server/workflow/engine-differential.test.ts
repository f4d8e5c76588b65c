/**
 * The oracle for the interpreter's semantics: the same events go through the legacy bpmn-engine
 * runner and through Sanad's interpreter, for the project's processes (trial, safety, treatment
 * modules) and the flat trial of version 1, and after every step both must agree on what waits
 * (by activity id), the open user tasks, the timers (activity and due time), the retry jobs, the
 * variables, whether the event matched and whether the instance completed. Main paths are
 * scripted; seeded random walks add task completions with the values each form declares,
 * messages (waited for or not), timer firings, execution signals and failing handlers with
 * their retries. No database: a connection that answers nothing, and handlers that return what
 * the real ones would set.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Sql } from '../db/transaction';
import { analyse, type DefinitionInfo } from './definitions';
import type { Advanced, Clock, InstanceRecord, Runner, StepEvent, StepSettings } from './engine-common';
import { planPersist } from './engine';
import { advanceInterpreter } from './engine-interpreter';
import { advanceLegacy } from './engine-legacy';
import type { HandlerRegistry } from './handlers';
import { addDuration } from './expressions';
import type { TypedVariables } from './variables';
// Seeded, so that a failing walk can be replayed by its seed.
import { mulberry32 as random } from '../../../test/helpers/random';

const root = path.resolve(import.meta.dirname, '../../..');
const DAY = 86_400_000;

async function load(file: string, key: string): Promise<DefinitionInfo> {
  return analyse(key, 1, fs.readFileSync(path.join(root, file), 'utf8'));
}

const nobody: Sql = { query: async () => ({ rows: [], rowCount: 0 }) } as unknown as Sql;

/**
 * Handlers with the effect on variables that the real ones have (setDefaults sets what is unset,
 * safetySettings the due times); the rest only succeed. `fails` decides per call whether the
 * handler throws: the same decision for the n-th call of an activity in both runners.
 */
function handlers(fails: (activityId: string, call: number) => boolean): HandlerRegistry {
  const calls = new Map<string, number>();
  const wrap = (effect: (ctx: Parameters<HandlerRegistry[string]>[0]) => Record<string, unknown>) => async (ctx: Parameters<HandlerRegistry[string]>[0]) => {
    const call = (calls.get(ctx.activityId) ?? 0) + 1;
    calls.set(ctx.activityId, call);
    if (fails(ctx.activityId, call)) throw new Error(`${ctx.activityId} failed (call ${call})`);
    return effect(ctx);
  };
  const none = wrap(() => ({}));
  return {
    setStage: none,
    sendMail: none,
    postMessage: none,
    treatmentModulesPlan: none,
    treatmentModulesEnd: none,
    safetyMail: none,
    safetyEscalate: none,
    setDefaults: wrap(({ inputs, variables }) => Object.fromEntries(Object.entries(inputs).filter(([name]) => variables[name] === undefined))),
    safetySettings: wrap(({ variables }) => {
      const result: Record<string, unknown> = {};
      if (variables.taskDue === undefined) result.taskDue = 'P1D';
      if (variables.reviewDue === undefined) result.reviewDue = 'P2D';
      if (variables.ackDue === undefined) result.ackDue = 'PT2H';
      if (variables.onCallAfter === undefined) result.onCallAfter = 'PT1H';
      const followUpDate = variables.followUpDate?.value;
      if (typeof followUpDate === 'string' && variables.followUpEscalateAt === undefined) {
        result.followUpEscalateAt = addDuration(new Date(followUpDate), 'P1D').toISOString();
      }
      return result;
    }),
  };
}

/** One runner's instance with the rows persist would keep for it (tasks, timer and retry jobs). */
class Simulated {
  record: InstanceRecord;
  tasks = new Map<string, { id: string; activityId: string }>();
  timers = new Map<string, { activityId: string; due: string }>();
  retries = new Map<string, { activityId: string; attempts: number }>();
  waiting: Advanced['waiting'] = [];
  completed = false;
  private rowIds = 0;

  constructor(
    readonly runner: Runner,
    readonly def: DefinitionInfo,
    readonly clock: Clock,
    readonly settings: StepSettings,
    variables: TypedVariables,
  ) {
    this.record = { id: 'instance', caseId: 'case', businessKey: null, variables, engineState: null, step: 0, openTasks: [], jobs: [] };
  }

  async step(event: StepEvent): Promise<{ matched: boolean }> {
    const advanced = await this.runner(this.settings, this.def, this.record, event);
    const plan = planPersist(this.clock, this.def, this.record, { ...advanced, now: this.clock.now() });
    for (const closed of plan.closedTasks) for (const [executionId, task] of this.tasks) if (task.id === closed.id) this.tasks.delete(executionId);
    for (const task of plan.newTasks) this.tasks.set(task.execution_id, { id: `row${(this.rowIds += 1)}`, activityId: task.task_definition_key });
    for (const stale of plan.staleJobs) {
      this.timers.delete(stale);
      this.retries.delete(stale);
    }
    for (const timer of plan.newTimers) this.timers.set(timer.execution_id, { activityId: timer.activity_id, due: timer.due_date.toISOString() });
    for (const [executionId, job] of advanced.jobs) {
      if (job.kind === 'retry' && !plan.staleJobs.includes(executionId)) {
        this.retries.set(executionId, { activityId: this.waiting.concat(advanced.waiting).find((w) => w.executionId === executionId)?.id ?? '?', attempts: job.attempts });
      }
    }
    this.waiting = advanced.waiting;
    this.completed = advanced.completed;
    this.record = {
      ...this.record,
      variables: advanced.variables,
      engineState: advanced.engineState === null ? null : JSON.parse(advanced.engineState),
      step: this.record.step + 1,
      openTasks: [...this.tasks].map(([executionId, task]) => ({ id: task.id, executionId })),
      jobs: [
        ...[...this.timers.keys()].map((executionId) => ({ executionId, kind: 'timer' as const, attempts: 0 })),
        ...[...this.retries].map(([executionId, job]) => ({ executionId, kind: 'retry' as const, attempts: job.attempts })),
      ],
    };
    return { matched: advanced.matched };
  }

  /** What both runners must agree on. */
  snapshot(matched: boolean) {
    return {
      matched,
      completed: this.completed,
      // bpmn-engine lists a sequence flow that holds a token for a join among what it has
      // postponed; the interpreter keeps that in the join's own bookkeeping.
      waiting: this.waiting.filter((w) => w.type !== 'bpmn:SequenceFlow').map((w) => w.id).sort(),
      tasks: [...this.tasks.values()].map((t) => t.activityId).sort(),
      // bpmn-engine keeps the timer of a boundary event inside an interrupted sub-process
      // (its job later fires into nothing and is deleted); only timers of waiting events count.
      timers: this.liveTimers().map((t) => `${t.activityId}@${t.due}`).sort(),
      retries: [...this.retries.values()].map((r) => `${r.activityId}#${r.attempts}`).sort(),
      variables: this.record.variables,
    };
  }

  liveTimers(): { activityId: string; due: string }[] {
    const waiting = new Set(this.waiting.map((w) => w.id));
    return [...this.timers.values()].filter((t) => waiting.has(t.activityId));
  }

  executionOf(activityId: string, where: 'task' | 'timer' | 'retry' | 'waiting'): string | undefined {
    const pick = (entries: [string, { activityId: string }][]) => entries.filter(([, v]) => v.activityId === activityId).map(([k]) => k)[0];
    if (where === 'task') return pick([...this.tasks]);
    if (where === 'timer') return pick([...this.timers]);
    if (where === 'retry') return pick([...this.retries]);
    return this.waiting.find((w) => w.id === activityId)?.executionId;
  }
}

/** An event named by activity, so that each runner can find its own execution for it. */
type Action =
  | { task: string; variables?: TypedVariables }
  | { message: string; variables?: TypedVariables }
  | { timer: string }
  | { retry: string }
  | { signalExecution: string };

function describeAction(action: Action): string {
  return JSON.stringify(action);
}

class Pair {
  now: number;
  readonly legacy: Simulated;
  readonly interpreter: Simulated;
  readonly log: string[] = [];
  /** Every activity that waited during the walk (the walks must reach deep into each process). */
  readonly seen = new Set<string>();

  constructor(def: DefinitionInfo, variables: TypedVariables, fails: (activityId: string, call: number) => boolean, start = Date.parse('2027-03-01T09:00:00Z')) {
    this.now = start;
    const clock: Clock = { now: () => new Date(this.now) };
    const settings = (registry: HandlerRegistry): StepSettings => ({ sql: nobody, clock, handlers: registry, maxAttempts: 3, retryBaseMs: 60_000 });
    this.legacy = new Simulated(advanceLegacy, def, clock, settings(handlers(fails)), variables);
    this.interpreter = new Simulated(advanceInterpreter, def, clock, settings(handlers(fails)), variables);
  }

  private event(sim: Simulated, action: Action): StepEvent | undefined {
    const none = { executionId: 'none_0' };
    if ('task' in action) {
      const executionId = sim.executionOf(action.task, 'task') ?? none.executionId;
      return { kind: 'completeTask', executionId, variables: action.variables ?? {}, userId: null };
    }
    if ('message' in action) return { kind: 'message', messageName: action.message, variables: action.variables ?? {} };
    if ('timer' in action) return { kind: 'timer', executionId: sim.executionOf(action.timer, 'timer') ?? none.executionId };
    if ('retry' in action) return { kind: 'retry', executionId: sim.executionOf(action.retry, 'retry') ?? none.executionId };
    return { kind: 'signalExecution', executionId: sim.executionOf(action.signalExecution, 'waiting') ?? none.executionId, variables: {} };
  }

  async start(): Promise<void> {
    await this.apply({ kind: 'start' } as never);
  }

  /** Runs one action on both and expects the same outcome. */
  async apply(action: Action | { kind: 'start' }): Promise<void> {
    const label = 'kind' in action ? 'start' : describeAction(action);
    this.log.push(label);
    const legacyEvent = 'kind' in action ? (action as StepEvent) : this.event(this.legacy, action)!;
    const interpreterEvent = 'kind' in action ? (action as StepEvent) : this.event(this.interpreter, action)!;
    const a = await this.legacy.step(legacyEvent);
    const b = await this.interpreter.step(interpreterEvent);
    expect(this.interpreter.snapshot(b.matched), `after ${this.log.join(' → ')}`).toEqual(this.legacy.snapshot(a.matched));
    for (const w of this.interpreter.waiting) this.seen.add(w.id);
  }
}

/**
 * Values the server sets when it completes a task itself: the interview task has no form (issue
 * 27); signing the report sets its outcome.
 */
const SERVER_SET: Record<string, { id: string; values: string[] }> = {
  interviewTask: { id: 'outcome', values: ['ptsd', 'depression', 'counseling', 'rejected', 'later'] },
};

/** Form values a task declares: an enum's values, a boolean, or a text (or what the server sets). */
function formValues(def: DefinitionInfo, activityId: string, next: () => number): TypedVariables {
  const result: TypedVariables = {};
  const server = SERVER_SET[activityId];
  if (server) result[server.id] = { value: server.values[Math.floor(next() * server.values.length)]!, type: 'String' };
  for (const field of def.userTasks.get(activityId)?.formFields ?? []) {
    if (field.values?.length) result[field.id] = { value: field.values[Math.floor(next() * field.values.length)]!.id, type: 'String' };
    else if (field.type === 'boolean') result[field.id] = { value: next() < 0.5, type: 'Boolean' };
    else result[field.id] = { value: next() < 0.5 ? 'a' : 'b', type: 'String' };
  }
  return result;
}

/** The variables a message carries in the project (what the features send). */
function messageVariables(name: string, pair: Pair, next: () => number): TypedVariables {
  switch (name) {
    case 'screeningCompleted':
      return { excluded: { value: next() < 0.3, type: 'Boolean' } };
    case 'interviewBooked':
      return { offerId: { value: 'o1', type: 'String' }, bookingId: { value: 'b1', type: 'String' }, startsAt: { value: new Date(pair.now + DAY).toISOString(), type: 'Date' } };
    case 'dropout':
      return { askForPostIfDroppedOut: { value: next() < 0.5, type: 'Boolean' } };
    case 'worksheet_sent':
      return { worksheet: { value: next() < 0.7 ? 'cbt_thoughts' : 'ipt_conflicts', type: 'String' } };
    default:
      return {};
  }
}

/** Seeded walks from seed `from` on; the activities that waited in any of them. */
async function walks(def: DefinitionInfo, variables: () => TypedVariables, from: number, count: number, steps: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let seed = from; seed < from + count; seed += 1) for (const id of (await walk(def, variables(), seed, steps)).seen) seen.add(id);
  return seen;
}

/** A seeded walk: at each step one of the things that could happen to the instance now. */
async function walk(def: DefinitionInfo, variables: TypedVariables, seed: number, steps: number): Promise<Pair> {
  const next = random(seed);
  const failing = random(seed * 7919 + 1);
  const decisions = new Map<string, boolean>();
  // About one handler call in six fails; the same calls fail in both runners.
  const fails = (activityId: string, call: number) => {
    const key = `${activityId}#${call}`;
    if (!decisions.has(key)) decisions.set(key, failing() < 0.17);
    return decisions.get(key)!;
  };
  const pair = new Pair(def, variables, fails);
  await pair.start();
  const messages = [...def.messageIds.keys()];
  for (let i = 0; i < steps && !pair.legacy.completed; i += 1) {
    const sim = pair.legacy;
    const options: (() => Action)[] = [];
    for (const task of sim.tasks.values()) {
      options.push(() => ({ task: task.activityId, variables: formValues(def, task.activityId, next) }), () => ({ task: task.activityId, variables: formValues(def, task.activityId, next) }));
    }
    const waitedFor = new Set(
      sim.waiting.map((w) => def.activityMessages.get(w.id) ?? (w.type === 'bpmn:UserTask' ? def.userTasks.get(w.id)?.completeOnMessage : undefined)).filter((m): m is string => !!m),
    );
    for (const name of waitedFor) options.push(() => ({ message: name, variables: messageVariables(name, pair, next) }));
    if (messages.length > 0) {
      options.push(() => {
        const name = messages[Math.floor(next() * messages.length)]!;
        return { message: name, variables: messageVariables(name, pair, next) };
      });
    }
    for (const timer of sim.liveTimers()) {
      options.push(() => {
        pair.now = Math.max(pair.now, Date.parse(timer.due));
        return { timer: timer.activityId };
      });
    }
    for (const retry of sim.retries.values()) {
      options.push(() => {
        pair.now += 5 * 60_000;
        return { retry: retry.activityId };
      });
    }
    const signalable = sim.waiting.filter((w) => w.type === 'bpmn:IntermediateCatchEvent' || w.type === 'bpmn:BoundaryEvent' || w.type === 'bpmn:ServiceTask');
    if (signalable.length > 0 && next() < 0.15) {
      const chosen = signalable[Math.floor(next() * signalable.length)]!;
      options.push(() => ({ signalExecution: chosen.id }));
    }
    if (options.length === 0) break;
    pair.now += Math.floor(next() * 3 * DAY);
    await pair.apply(options[Math.floor(next() * options.length)]!());
  }
  return pair;
}

const never = () => false;
/** WORKFLOW_DIFF_WALKS=n runs n times as many random walks (a longer search before a change lands). */
const WALKS = Math.max(1, Number(process.env.WORKFLOW_DIFF_WALKS ?? 1));
const trialStart = (): TypedVariables => ({ caseId: { value: 'case', type: 'String' } });

describe('interpreter and bpmn-engine agree step by step', () => {
  it('the simulated handlers cover every service topic of the deployed workflows', async () => {
    // A topic without a simulated handler would fail in both runners alike and hide a path.
    const registry = handlers(never);
    for (const [file, key] of [['workflows/trial.bpmn', 'trial'], ['workflows/safety.bpmn', 'safety'], ['workflows/treatment-modules.bpmn', 'treatment-modules']] as const) {
      const def = await load(file, key);
      for (const service of def.serviceTasks.values()) expect(registry[service.topic], `${file}: ${service.topic}`).toBeTypeOf('function');
    }
  });

  it('trial: the accepted path to the end, with reminders', async () => {
    const def = await load('workflows/trial.bpmn', 'trial');
    const pair = new Pair(def, trialStart(), never);
    await pair.start();
    pair.now += 8 * DAY;
    await pair.apply({ timer: 'screeningReminder' });
    await pair.apply({ message: 'screeningCompleted', variables: { excluded: { value: false, type: 'Boolean' } } });
    await pair.apply({ message: 'interviewBooked', variables: { offerId: { value: 'o1', type: 'String' }, startsAt: { value: new Date(pair.now + DAY).toISOString(), type: 'Date' } } });
    await pair.apply({ task: 'interviewTask', variables: { outcome: { value: 'ptsd', type: 'String' } } });
    await pair.apply({ task: 'randomizeTask', variables: { treatment: { value: 'a', type: 'String' } } });
    await pair.apply({ message: 'preMeasurementCompleted' });
    pair.now += 43 * DAY;
    await pair.apply({ timer: 'treatmentReminder' });
    await pair.apply({ task: 'therapistTreatmentTask' });
    await pair.apply({ task: 'patientTreatmentTask' });
    await pair.apply({ message: 'postMeasurementCompleted' });
    pair.now += 100 * DAY;
    await pair.apply({ timer: 'fu1Wait' });
    await pair.apply({ message: 'fu1MeasurementCompleted' });
    pair.now += 100 * DAY;
    await pair.apply({ timer: 'fu2Wait' });
    await pair.apply({ task: 'fu2Task' });
    expect(pair.interpreter.completed).toBe(true);
  });

  it('trial: excluded, rejected, booking by hand, cancellations and dropouts', async () => {
    const def = await load('workflows/trial.bpmn', 'trial');
    const excluded = new Pair(def, trialStart(), never);
    await excluded.start();
    await excluded.apply({ message: 'screeningCompleted', variables: { excluded: { value: true, type: 'Boolean' } } });
    expect(excluded.interpreter.completed).toBe(true);

    const other = new Pair(def, trialStart(), never);
    await other.start();
    await other.apply({ task: 'screeningTask' });
    await other.apply({ task: 'bookTask' });
    await other.apply({ message: 'interviewBooked' });
    await other.apply({ message: 'interviewBookingCanceled' });
    await other.apply({ message: 'interviewBooked' });
    await other.apply({ message: 'offerCanceled' });
    await other.apply({ message: 'interviewBooked' });
    await other.apply({ task: 'interviewTask', variables: { outcome: { value: 'rejected', type: 'String' } } });
    expect(other.interpreter.completed).toBe(true);

    for (const askForPost of [true, false]) {
      const dropout = new Pair(def, trialStart(), never);
      await dropout.start();
      await dropout.apply({ message: 'screeningCompleted', variables: { excluded: { value: false, type: 'Boolean' } } });
      await dropout.apply({ message: 'interviewBooked' });
      await dropout.apply({ task: 'interviewTask', variables: { outcome: { value: 'depression', type: 'String' } } });
      await dropout.apply({ task: 'randomizeTask', variables: { treatment: { value: 'b', type: 'String' } } });
      await dropout.apply({ message: 'preMeasurementCompleted' });
      await dropout.apply({ task: 'therapistTreatmentTask' });
      await dropout.apply({ message: 'dropout', variables: { askForPostIfDroppedOut: { value: askForPost, type: 'Boolean' } } });
      expect(dropout.interpreter.completed).toBe(!askForPost);
    }
  });

  it('trial: seeded random walks', async () => {
    const def = await load('workflows/trial.bpmn', 'trial');
    const seen = await walks(def, trialStart, 1, 14 * WALKS, 28);
    // The walks went through every phase, the reminders, cancellations, dropout and retries.
    expect([...seen]).toEqual(expect.arrayContaining(['bookedWait', 'bookingCanceled', 'offerCanceled', 'treatmentReminder', 'dropout', 'postTask', 'fu2Task', 'interviewStage']));
  }, 120_000);

  it('flat trial of version 1: main path and seeded random walks', async () => {
    const def = await load('test/fixtures/workflow-v1/trial.bpmn', 'trial');
    const pair = new Pair(def, trialStart(), never);
    await pair.start();
    await pair.apply({ message: 'screeningCompleted', variables: { excluded: { value: false, type: 'Boolean' } } });
    await pair.apply({ message: 'interviewBooked' });
    await pair.apply({ message: 'offerCanceled' });
    await pair.apply({ task: 'bookTask' });
    await pair.apply({ message: 'interviewBooked' });
    await pair.apply({ task: 'interviewTask', variables: { outcome: { value: 'ptsd', type: 'String' } } });
    await pair.apply({ task: 'randomizeTask' });
    pair.now += 8 * DAY;
    await pair.apply({ timer: 'preReminder' });
    await pair.apply({ task: 'preTask' });
    await pair.apply({ task: 'patientTreatmentTask' });
    await pair.apply({ task: 'therapistTreatmentTask' });
    const seen = await walks(def, trialStart, 101, 8 * WALKS, 28);
    expect([...seen]).toEqual(expect.arrayContaining(['bookedWait', 'bookingCanceled', 'treatmentReminder', 'dropout', 'postTask', 'fu2Task']));
  }, 120_000);

  it('safety: each kind, with overdue timers, and seeded random walks', async () => {
    const def = await load('workflows/safety.bpmn', 'safety');
    const starts: TypedVariables[] = [
      { kind: { value: 'signal', type: 'String' }, safetyGroup: { value: 'therapists', type: 'String' } },
      { kind: { value: 'review', type: 'String' } },
      { kind: { value: 'followUp', type: 'String' }, callerId: { value: 'u1', type: 'String' }, followUpDate: { value: '2027-03-05T09:00:00.000Z', type: 'Date' } },
    ];
    for (const variables of starts) {
      const pair = new Pair(def, variables, never);
      await pair.start();
      const timer = [...pair.legacy.timers.values()][0]!;
      pair.now = Date.parse(timer.due);
      await pair.apply({ timer: timer.activityId });
      await pair.apply({ task: [...pair.legacy.tasks.values()][0]!.activityId });
      // The escalation chain of a risk task (issue 26) may still wait on its own timer.
      for (let left = pair.legacy.timers.size; left > 0 && !pair.interpreter.completed; left -= 1) {
        const next = [...pair.legacy.timers.values()][0]!;
        pair.now = Math.max(pair.now, Date.parse(next.due));
        await pair.apply({ timer: next.activityId });
      }
      expect(pair.interpreter.completed).toBe(true);
      for (let seed = 201; seed <= 200 + 4 * WALKS; seed += 1) await walk(def, variables, seed, 10);
    }
  }, 60_000);

  it('treatment modules: a plan, a worksheet sent, a wrong worksheet, a dropout, and seeded random walks', async () => {
    const def = await load('workflows/treatment-modules.bpmn', 'treatment-modules');
    const plan = new Pair(def, { treatment: { value: 'cbt', type: 'String' } }, never);
    await plan.start();
    expect(plan.interpreter.completed).toBe(true);
    const worksheet = (): TypedVariables => ({ worksheet: { value: 'cbt_thoughts', type: 'String' }, worksheetDue: { value: '2027-03-08T09:00:00.000Z', type: 'Date' } });
    const sent = new Pair(def, worksheet(), never);
    await sent.start();
    await sent.apply({ message: 'worksheet_sent', variables: { worksheet: { value: 'ipt_conflicts', type: 'String' } } });
    sent.now = Date.parse('2027-03-08T09:00:00.000Z');
    await sent.apply({ timer: 'worksheetReminder' });
    await sent.apply({ message: 'worksheet_sent', variables: { worksheet: { value: 'cbt_thoughts', type: 'String' } } });
    expect(sent.interpreter.completed).toBe(true);
    const dropped = new Pair(def, worksheet(), never);
    await dropped.start();
    await dropped.apply({ message: 'dropout' });
    expect(dropped.interpreter.completed).toBe(true);
    for (let seed = 301; seed <= 300 + 10 * WALKS; seed += 1) await walk(def, worksheet(), seed, 8);
  }, 60_000);
});

describe('interpreter and bpmn-engine agree on message and signal delivery', () => {
  const model = (body: string) =>
    analyse(
      'p',
      1,
      `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="d" targetNamespace="https://sanad.example.org/test">
  <message id="M_go" name="go" />
  <signal id="S_all" name="all" />
  <process id="p" isExecutable="true">
    <startEvent id="s" /><parallelGateway id="fork" />
    <sequenceFlow id="f0" sourceRef="s" targetRef="fork" />
    ${body}
  </process>
</definitions>`,
    );

  it('constructs the project processes use less: seeded random walks over a small model', async () => {
    const def = await model(`
      <subProcess id="sub">
        <startEvent id="ss" /><inclusiveGateway id="split" default="fc" />
        <userTask id="taskA" /><userTask id="taskB" /><userTask id="taskC" />
        <boundaryEvent id="goA" attachedToRef="taskA" cancelActivity="false"><messageEventDefinition messageRef="M_go" /></boundaryEvent>
        <userTask id="goTask" />
        <inclusiveGateway id="orJoin" /><parallelGateway id="pfork" /><userTask id="t1" /><userTask id="t2" /><parallelGateway id="pjoin" /><endEvent id="se" />
        <sequenceFlow id="s1" sourceRef="ss" targetRef="split" />
        <sequenceFlow id="fa" sourceRef="split" targetRef="taskA"><conditionExpression>${'$'}{a == true}</conditionExpression></sequenceFlow>
        <sequenceFlow id="fb" sourceRef="split" targetRef="taskB"><conditionExpression>${'$'}{b == true}</conditionExpression></sequenceFlow>
        <sequenceFlow id="fc" sourceRef="split" targetRef="taskC" />
        <sequenceFlow id="ja" sourceRef="taskA" targetRef="orJoin" /><sequenceFlow id="jb" sourceRef="taskB" targetRef="orJoin" /><sequenceFlow id="jc" sourceRef="taskC" targetRef="orJoin" />
        <sequenceFlow id="g1" sourceRef="goA" targetRef="goTask" />
        <sequenceFlow id="p0" sourceRef="orJoin" targetRef="pfork" /><sequenceFlow id="p1" sourceRef="pfork" targetRef="t1" /><sequenceFlow id="p2" sourceRef="pfork" targetRef="t2" />
        <sequenceFlow id="p3" sourceRef="t1" targetRef="pjoin" /><sequenceFlow id="p4" sourceRef="t2" targetRef="pjoin" /><sequenceFlow id="p5" sourceRef="pjoin" targetRef="se" />
      </subProcess>
      <boundaryEvent id="subNudge" attachedToRef="sub" cancelActivity="false"><timerEventDefinition><timeDuration>PT1H</timeDuration></timerEventDefinition></boundaryEvent>
      <boundaryEvent id="stopped" attachedToRef="sub"><signalEventDefinition signalRef="S_all" /></boundaryEvent>
      <userTask id="nudgeTask" /><userTask id="stoppedTask" /><exclusiveGateway id="xg" default="xn" /><userTask id="afterA" /><userTask id="afterNot" />
      <sequenceFlow id="m0" sourceRef="fork" targetRef="sub" />
      <sequenceFlow id="m1" sourceRef="subNudge" targetRef="nudgeTask" /><sequenceFlow id="m2" sourceRef="stopped" targetRef="stoppedTask" />
      <sequenceFlow id="m3" sourceRef="sub" targetRef="xg" />
      <sequenceFlow id="xa" sourceRef="xg" targetRef="afterA"><conditionExpression>${'$'}{a == true}</conditionExpression></sequenceFlow>
      <sequenceFlow id="xn" sourceRef="xg" targetRef="afterNot" />`);
    const seen = new Set<string>();
    for (let seed = 401; seed < 401 + 24 * WALKS; seed += 1) {
      const next = random(seed);
      const start: TypedVariables = { a: { value: next() < 0.6, type: 'Boolean' }, b: { value: next() < 0.5, type: 'Boolean' } };
      for (const id of (await walk(def, start, seed, 14)).seen) seen.add(id);
      // The signal that interrupts the sub-process, from where the walk left it.
      const pair = await walk(def, start, seed, Math.floor(next() * 6));
      if (pair.legacy.completed) continue; // the host steps only running instances
      const signal = [await pair.legacy.step({ kind: 'signal', signalName: 'all', variables: {} }), await pair.interpreter.step({ kind: 'signal', signalName: 'all', variables: {} })];
      expect(pair.interpreter.snapshot(signal[1]!.matched), `signal after ${pair.log.join(' → ')}`).toEqual(pair.legacy.snapshot(signal[0]!.matched));
    }
    expect([...seen]).toEqual(expect.arrayContaining(['taskA', 'taskB', 'taskC', 'goTask', 't1', 't2', 'nudgeTask', 'afterA', 'afterNot']));
  }, 60_000);

  it('a message reaches the first waiting catcher in document order, one per call; a signal reaches every catcher at once', async () => {
    const def = await model(`
      <intermediateCatchEvent id="first"><messageEventDefinition messageRef="M_go" /></intermediateCatchEvent>
      <intermediateCatchEvent id="second"><messageEventDefinition messageRef="M_go" /></intermediateCatchEvent>
      <intermediateCatchEvent id="sig1"><signalEventDefinition signalRef="S_all" /></intermediateCatchEvent>
      <intermediateCatchEvent id="sig2"><signalEventDefinition signalRef="S_all" /></intermediateCatchEvent>
      <userTask id="task" />
      <boundaryEvent id="sigBoundary" attachedToRef="task" cancelActivity="false"><signalEventDefinition signalRef="S_all" /></boundaryEvent>
      <userTask id="afterFirst" /><userTask id="afterSecond" /><userTask id="afterSig" /><userTask id="afterBoundary" />
      <sequenceFlow id="f1" sourceRef="fork" targetRef="first" /><sequenceFlow id="f2" sourceRef="fork" targetRef="second" />
      <sequenceFlow id="f3" sourceRef="fork" targetRef="sig1" /><sequenceFlow id="f4" sourceRef="fork" targetRef="task" />
      <sequenceFlow id="f5" sourceRef="first" targetRef="afterFirst" /><sequenceFlow id="f6" sourceRef="second" targetRef="afterSecond" />
      <sequenceFlow id="f7" sourceRef="sig1" targetRef="afterSig" /><sequenceFlow id="f8" sourceRef="sigBoundary" targetRef="afterBoundary" />
      <sequenceFlow id="f9" sourceRef="fork" targetRef="sig2" /><userTask id="afterSig2" /><sequenceFlow id="f10" sourceRef="sig2" targetRef="afterSig2" />`);
    const pair = new Pair(def, {}, never);
    await pair.start();
    await pair.apply({ message: 'go', variables: { n: { value: 1, type: 'Integer' } } });
    await pair.apply({ message: 'go', variables: { n: { value: 2, type: 'Integer' } } });
    await pair.apply({ message: 'go' });
    // bpmn-engine delivered a signal to one catcher per call; BPMN broadcasts it (issue 29), so
    // the interpreter alone is asked here: one signal moves sig1, sig2 and the task's boundary.
    const signal = await pair.interpreter.step({ kind: 'signal', signalName: 'all', variables: {} });
    expect(signal!.matched).toBe(true);
    expect(await pair.interpreter.step({ kind: 'signal', signalName: 'all', variables: {} })).toMatchObject({ matched: false });
    expect(pair.interpreter.waiting.map((w) => w.id).sort()).toEqual(['afterBoundary', 'afterFirst', 'afterSecond', 'afterSig', 'afterSig2', 'task']);
  });
});
