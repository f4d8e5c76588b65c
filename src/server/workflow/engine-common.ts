/**
 * What both step runners share (engine-interpreter.ts, Sanad's own; engine-legacy.ts, bpmn-engine
 * for instances stored by it): the event and instance shapes, the plain-data result of a step that
 * engine.ts persists, the evaluation of a user task's Camunda attributes, and the call of a
 * service task's handler behind a savepoint with its retry job.
 */
import type { Sql } from '../db/transaction';
import type { DefinitionInfo } from './definitions';
import { resolve, toDate, zoneOf } from './expressions';
import type { HandlerRegistry } from './handlers';
import { plainValues, typed, type TypedVariables } from './variables';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export type StepEvent =
  | { kind: 'start' }
  | { kind: 'completeTask'; executionId: string; variables: TypedVariables; userId: string | null }
  | { kind: 'message'; messageName: string; variables: TypedVariables }
  | { kind: 'signal'; signalName: string; variables: TypedVariables }
  | { kind: 'signalExecution'; executionId: string; variables: TypedVariables }
  | { kind: 'timer'; executionId: string }
  | { kind: 'retry'; executionId: string }
  /** A worker completed the external task of this execution (its variables wait in app_private.workflow_external_completions). */
  | { kind: 'external'; executionId: string };

export interface InstanceRecord {
  id: string;
  caseId: string;
  businessKey: string | null;
  variables: TypedVariables;
  /** The stored engine state; null for a new instance. */
  engineState: any | null;
  step: number;
  /** The instance's open user tasks and its jobs, read under the lock with the engine state. */
  openTasks: { id: string; executionId: string }[];
  jobs: { executionId: string; kind: JobKind; attempts: number }[];
}

/** The instance's jobs by execution id; kept current as handlers fail and succeed during the step. */
export type JobKind = 'timer' | 'retry' | 'external';
export type JobMap = Map<string, { kind: JobKind; attempts: number }>;

export interface StepSettings {
  sql: Sql;
  clock: Clock;
  handlers: HandlerRegistry;
  /** Attempts of a failing handler before its job is marked failed. */
  maxAttempts: number;
  /** First retry delay; it doubles with every further attempt. */
  retryBaseMs: number;
}

export interface HistoryEntry {
  activityId: string;
  type: string;
  start?: Date;
  end?: Date;
}

export interface TaskAttributes {
  activityId: string;
  name: string | null;
  assignee: string | null;
  candidateGroups: string[];
  due: Date | null;
  followUp: Date | null;
  priority: number;
}

/** A waiting activity, as persist needs it. */
export interface WaitingActivity {
  id: string;
  type: string;
  executionId: string;
}

/** A waiting timer, as persist needs it. */
export interface WaitingTimer {
  activityId: string;
  executionId: string;
  timerType: unknown;
  expireAt: unknown;
  timeDuration: unknown;
  delay: unknown;
}

/** What a step did, as plain data (the runner's objects are garbage before the write). */
export interface Advanced {
  matched: boolean;
  completed: boolean;
  /** JSON of the engine state; null once the instance completed. */
  engineState: string | null;
  waiting: WaitingActivity[];
  timers: WaitingTimer[];
  jobs: JobMap;
  variables: TypedVariables;
  history: Map<string, HistoryEntry>;
  entered: Map<string, TaskAttributes>;
  completedExecution: { executionId: string; userId: string | null } | undefined;
  completedByMessage: Set<string>;
  endTime: Date;
}

/** Recovers the instance, applies the event and runs until the instance waits again. */
export type Runner = (settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, event: StepEvent) => Promise<Advanced>;

/** Evaluates the Camunda attributes of a user task when it is entered. */
export function taskAttributes(def: DefinitionInfo, activityId: string, scope: Record<string, unknown>, now: Date): TaskAttributes {
  const info = def.userTasks.get(activityId);
  const text = (value: string | undefined) => {
    if (value === undefined || value === '') return null;
    const resolved = resolve(value, scope);
    return resolved === null || resolved === undefined || resolved === '' ? null : String(resolved);
  };
  const groups = text(info?.candidateGroups);
  const priority = text(info?.priority);
  return {
    activityId,
    name: text(info?.name),
    assignee: text(info?.assignee),
    candidateGroups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [],
    // Durations count in the participant's calendar (issue 27).
    due: toDate(info?.dueDate ? resolve(info.dueDate, scope) : null, now, zoneOf(scope)),
    followUp: toDate(info?.followUpDate ? resolve(info.followUpDate, scope) : null, now, zoneOf(scope)),
    priority: priority !== null && /^-?\d+$/.test(priority) ? Number(priority) : 50,
  };
}

/** What calling a service task's handler came to. */
export type ServiceResult = { kind: 'done'; output: Record<string, unknown> } | { kind: 'failed' } | { kind: 'skipped' };

/**
 * Calls the handler of a service task on the step's connection, behind a savepoint. Its output
 * becomes process variables. A failure is rolled back to the savepoint and leaves (or updates) a
 * retry job, doubling the delay per attempt; the task then waits for that job. A task that
 * already waits for its retry runs only when its own job fires ('skipped' otherwise).
 */
export async function runService(
  settings: StepSettings,
  def: DefinitionInfo,
  instance: InstanceRecord,
  call: { activityId: string; executionId: string },
  variables: TypedVariables,
  event: StepEvent,
  jobs: JobMap,
): Promise<ServiceResult> {
  const { sql, clock } = settings;
  const service = def.serviceTasks.get(call.activityId)!;
  const known = jobs.get(call.executionId);
  if (known?.kind === 'external') return completeExternal(settings, instance, call, variables, event, jobs);
  const job = known?.kind === 'retry' ? known : undefined;
  if (job && !(event.kind === 'retry' && event.executionId === call.executionId)) return { kind: 'skipped' };
  if (!job && (await isExternalTopic(sql, service.topic))) {
    // A worker outside Sanad runs this topic: the task waits as an external-task job until
    // POST /external-task/{id}/complete (the due date infinity: the scheduler leaves it alone).
    await sql.query(
      `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, topic, activity_id, activity_name, execution_id, due_date, created)
       values ($1, $2, 'external', $3, $4, $5, $6, 'infinity', $7)`,
      [instance.id, instance.caseId, service.topic, call.activityId, service.name ?? null, call.executionId, clock.now()],
    );
    jobs.set(call.executionId, { kind: 'external', attempts: 0 });
    return { kind: 'failed' };
  }

  const handler = settings.handlers[service.topic];
  await sql.query('savepoint workflow_handler');
  try {
    if (!handler) throw new Error(`No handler is registered for the topic "${service.topic}"`);
    const scope = plainValues(variables);
    const inputs: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(service.inputs)) inputs[name] = resolve(value, scope);
    const output = await handler({
      sql,
      caseId: instance.caseId,
      processInstanceId: instance.id,
      activityId: call.activityId,
      inputs,
      variables,
      now: clock.now(),
    });
    await sql.query('release savepoint workflow_handler');
    for (const [name, value] of Object.entries(output ?? {})) variables[name] = typed(value);
    if (job) {
      await sql.query(`delete from app_public.workflow_jobs where process_instance_id = $1 and execution_id = $2`, [instance.id, call.executionId]);
      jobs.delete(call.executionId);
    }
    return { kind: 'done', output: output ?? {} };
  } catch (error) {
    await sql.query('rollback to savepoint workflow_handler');
    const attempts = (job?.attempts ?? 0) + 1;
    const failed = attempts >= settings.maxAttempts;
    const due = new Date(clock.now().getTime() + settings.retryBaseMs * 2 ** (attempts - 1));
    const message = error instanceof Error ? error.message : String(error);
    await sql.query(
      `insert into app_public.workflow_jobs
         (process_instance_id, case_id, kind, activity_id, activity_name, execution_id, due_date, attempts, last_error, failed_at, created)
       values ($1, $2, 'retry', $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (process_instance_id, execution_id) do update
         set due_date = excluded.due_date, attempts = excluded.attempts, last_error = excluded.last_error, failed_at = excluded.failed_at`,
      [instance.id, instance.caseId, call.activityId, service.name ?? null, call.executionId, due, attempts, message.slice(0, 2000), failed ? clock.now() : null, clock.now()],
    );
    jobs.set(call.executionId, { kind: 'retry', attempts });
    return { kind: 'failed' };
  }
}

/** Whether a trial configured this topic as external (app_private.workflow_external_topics, 0280). */
async function isExternalTopic(sql: StepSettings['sql'], topic: string): Promise<boolean> {
  const { rows } = await sql.query<{ external: boolean }>({
    name: 'sanad-workflow-external-topic',
    text: 'select exists (select 1 from app_private.workflow_external_topics where topic = $1) as external',
    values: [topic],
  });
  return rows[0]?.external === true;
}

/**
 * The step of a completed external task: the worker's variables become process variables and the
 * service task leaves. Any other event leaves it waiting.
 */
async function completeExternal(
  settings: StepSettings,
  instance: InstanceRecord,
  call: { activityId: string; executionId: string },
  variables: TypedVariables,
  event: StepEvent,
  jobs: JobMap,
): Promise<ServiceResult> {
  if (!(event.kind === 'external' && event.executionId === call.executionId)) return { kind: 'skipped' };
  const { rows } = await settings.sql.query<{ variables: TypedVariables }>(
    `delete from app_public.workflow_jobs j using app_private.workflow_external_completions c
      where c.job_id = j.id and j.process_instance_id = $1 and j.execution_id = $2
      returning c.variables`,
    [instance.id, call.executionId],
  );
  if (!rows[0]) return { kind: 'skipped' };
  Object.assign(variables, rows[0].variables);
  jobs.delete(call.executionId);
  return { kind: 'done', output: {} };
}
