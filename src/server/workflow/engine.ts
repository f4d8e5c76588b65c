/**
 * One step of one process instance (DESIGN.md §5): recover bpmn-engine from the stored state,
 * apply the event (start, task completion, message, signal, timer, retry), run until it waits,
 * then write the new state, open tasks, timer and retry jobs and history rows — all with the
 * caller's transaction client, under the instance row lock the caller holds. Nothing here sets a
 * real timer: timers become job rows, and a fired job is replayed by calling the engine's timer
 * callback during its own step.
 */
import { Engine } from 'bpmn-engine';
import { Activity, Timers } from 'bpmn-elements';
import * as gateways from 'bpmn-elements/gateways';
import type { Sql } from '../db/transaction';
import { camundaModdle, type DefinitionInfo } from './definitions';
import { addDuration, hasExpression, isDuration, isExpression, resolve, toDate } from './expressions';
import type { HandlerRegistry } from './handlers';
import { plainValues, typed, type TypedVariables } from './variables';
import { invalidRequest } from './errors';

/**
 * An inclusive gateway with several incoming flows is an OR-join (BPMN): it waits until every
 * incoming path was taken or found dead, then continues once. bpmn-elements treats only
 * parallel gateways as joins (with dead-path elimination: they run when any path was taken);
 * giving inclusive gateways that behaviour makes merges after interrupting boundary events
 * absorb the discarded path instead of letting it trail the token.
 */
function InclusiveJoin(activityDef: any, context: any) {
  return new (Activity as any)((gateways as any).InclusiveGatewayBehaviour, { ...activityDef, isParallelGateway: true }, context);
}

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
  | { kind: 'retry'; executionId: string };

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
  jobs: { executionId: string; kind: 'timer' | 'retry'; attempts: number }[];
}

/** The instance's jobs by execution id; kept current as handlers fail and succeed during the step. */
type JobMap = Map<string, { kind: 'timer' | 'retry'; attempts: number }>;

export interface StepSettings {
  sql: Sql;
  clock: Clock;
  handlers: HandlerRegistry;
  /** Attempts of a failing handler before its job is marked failed. */
  maxAttempts: number;
  /** First retry delay; it doubles with every further attempt. */
  retryBaseMs: number;
}

export interface StepOutcome {
  /** Whether the event found what it was meant for (a waiting message event, the task, the timer). */
  matched: boolean;
  state: 'ACTIVE' | 'COMPLETED';
}

/** Quiet logger for bpmn-engine: the host logs what matters. One shared object: it is asked for per element. */
const noop = () => undefined;
const QUIET = { debug: noop, error: noop, warn: noop };
function Logger() {
  return QUIET;
}

const ELEMENTS = { InclusiveGateway: InclusiveJoin };

/**
 * disableTrackState: getState() leaves out the activities and flows that hold nothing (no queued
 * message: idle, or done with nothing pending), so the stored state is about 10 KB instead of
 * 23 KB for the trial and recover() restores only what is under way. What is left out is the
 * taken/discarded counters of idle elements, which nothing here reads; a recovered element
 * without a stored state starts idle, as it was.
 */
const SETTINGS = { disableTrackState: true };

/**
 * The serialized definition (moddle-context-serializer's context: element definitions with
 * their behaviour types) that every Engine of a definition version starts from. Building it
 * walks the whole moddle tree, so it is built once per version and shared: the engines only
 * read it (activities copy what they change). Same element types as each step's engine.
 */
const sourceContexts = new WeakMap<DefinitionInfo, unknown>();
function sourceContextOf(def: DefinitionInfo): unknown {
  let context = sourceContexts.get(def);
  if (!context) {
    const builder = new Engine({ moddleOptions: { camunda: camundaModdle }, Logger, elements: ELEMENTS } as any) as any;
    // getState() would serialize the whole definition into every state, only for persist to
    // drop it again (a running instance keeps its deployed version): serialize to nothing.
    context = Object.create(builder._serializeModdleContext(def.moddleContext), { serialize: { value: () => undefined } });
    sourceContexts.set(def, context);
  }
  return context;
}

interface ServiceCall {
  activityId: string;
  executionId: string;
  callback: (err: Error | null, ...output: unknown[]) => void;
}

interface HistoryEntry {
  activityId: string;
  type: string;
  start?: Date;
  end?: Date;
}

interface TaskAttributes {
  activityId: string;
  name: string | null;
  assignee: string | null;
  candidateGroups: string[];
  due: Date | null;
  followUp: Date | null;
  priority: number;
}

/** Evaluates the Camunda attributes of a user task when it is entered. */
function taskAttributes(def: DefinitionInfo, activityId: string, scope: Record<string, unknown>, now: Date): TaskAttributes {
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
    due: toDate(info?.dueDate ? resolve(info.dueDate, scope) : null, now),
    followUp: toDate(info?.followUpDate ? resolve(info.followUpDate, scope) : null, now),
    priority: priority !== null && /^-?\d+$/.test(priority) ? Number(priority) : 50,
  };
}

export async function runStep(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, event: StepEvent): Promise<StepOutcome> {
  const now = settings.clock.now();
  // The engine (several MB of objects for the trial) lives only inside advance(): it is garbage
  // before the write's round trip, so the collector does not carry it while the step waits.
  const advanced = await advance(settings, def, instance, event);
  await persist(settings, def, instance, { ...advanced, now });
  return { matched: advanced.matched, state: advanced.completed ? 'COMPLETED' : 'ACTIVE' };
}

/** A waiting activity, as persist needs it. */
interface WaitingActivity {
  id: string;
  type: string;
  executionId: string;
}

/** A waiting timer, as persist needs it (from the engine's timer reference). */
interface WaitingTimer {
  activityId: string;
  executionId: string;
  timerType: unknown;
  expireAt: unknown;
  timeDuration: unknown;
  delay: unknown;
}

/** What a step did in the engine, as plain data. */
interface Advanced {
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

/** Recovers the engine, applies the event, runs the services until it waits again. */
async function advance(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, event: StepEvent): Promise<Advanced> {
  const { clock } = settings;
  const variables: TypedVariables = { ...instance.variables };
  const jobs: JobMap = new Map(instance.jobs.map((j) => [j.executionId, { kind: j.kind, attempts: j.attempts }]));
  const scope = () => plainValues(variables);
  const merge = (incoming: TypedVariables) => Object.assign(variables, incoming);

  const serviceQueue: ServiceCall[] = [];
  const history = new Map<string, HistoryEntry>();
  const entered = new Map<string, TaskAttributes>();
  const errors: unknown[] = [];
  let matched = event.kind === 'start';
  const completedByMessage = new Set<string>();

  const timers = new Timers({
    setTimeout: ((fn: (...args: unknown[]) => void, delay: number, ...args: unknown[]) => ({ fn, args, delay })) as any,
    clearTimeout: (() => undefined) as any,
  });

  const engine = new Engine({
    name: instance.id,
    sourceContext: sourceContextOf(def),
    moddleOptions: { camunda: camundaModdle },
    timers,
    Logger,
    elements: ELEMENTS,
    settings: SETTINGS,
    expressions: {
      resolveExpression: (expression: string) => resolve(expression, scope()),
      isExpression,
      hasExpression,
    },
    extensions: {
      sanad(activity: any) {
        if (def.serviceTasks.has(activity.id)) {
          activity.behaviour.Service = function SanadService() {
            return {
              execute(message: any, callback: ServiceCall['callback']) {
                serviceQueue.push({ activityId: activity.id, executionId: message.content.executionId, callback });
              },
            };
          };
        }
        return undefined;
      },
    },
  } as any);

  engine.on('error', (error: unknown) => errors.push(error));
  engine.broker.subscribeTmp(
    'event',
    'activity.#',
    (routingKey: string, message: any) => {
      const content = message.content;
      const executionId: string | undefined = content.executionId;
      if (!executionId || !content.id) return;
      if (routingKey === 'activity.start') {
        const entry: HistoryEntry = history.get(executionId) ?? { activityId: String(content.id), type: String(content.type) };
        entry.start ??= clock.now();
        history.set(executionId, entry);
      } else if (routingKey === 'activity.end' || routingKey === 'activity.leave' && !history.get(executionId)?.end) {
        const entry: HistoryEntry = history.get(executionId) ?? { activityId: String(content.id), type: String(content.type) };
        entry.end ??= clock.now();
        history.set(executionId, entry);
      } else if (routingKey === 'activity.wait' && content.type === 'bpmn:UserTask') {
        try {
          entered.set(executionId, taskAttributes(def, content.id, scope(), clock.now()));
        } catch (error) {
          errors.push(error);
        }
      }
    },
    { noAck: true },
  );

  // Run services one at a time on the step's connection; each behind a savepoint.
  const runServices = async () => {
    for (;;) {
      while (serviceQueue.length > 0) {
        const call = serviceQueue.shift()!;
        await runService(settings, def, instance, call, variables, event, jobs);
      }
      // Let the engine finish what it deferred, then look again.
      await new Promise((resolve) => setImmediate(resolve));
      if (serviceQueue.length === 0) return;
    }
  };

  if (instance.engineState) {
    engine.recover(instance.engineState);
    await engine.resume();
  } else {
    await engine.execute();
  }
  await runServices();

  const postponed = () => expandPostponed((engine.execution?.getPostponed() ?? []) as any[]);
  switch (event.kind) {
    case 'start':
    case 'retry':
      matched = true;
      break;
    case 'completeTask': {
      const task = postponed().find((a) => a.executionId === event.executionId && a.type === 'bpmn:UserTask');
      if (task) {
        matched = true;
        merge(event.variables);
        task.signal({ variables: plainValues(event.variables) });
      }
      break;
    }
    case 'signalExecution': {
      const waiting = postponed().find((a) => a.executionId === event.executionId && a.type !== 'bpmn:UserTask');
      if (waiting) {
        matched = true;
        merge(event.variables);
        waiting.signal({ variables: plainValues(event.variables) });
      }
      break;
    }
    case 'message': {
      const waits = postponed().some((a) => def.activityMessages.get(a.id) === event.messageName);
      const messageId = def.messageIds.get(event.messageName);
      // User tasks that a message completes (camunda:property completeOnMessage).
      const tasks = postponed().filter((a) => {
        const info = a.type === 'bpmn:UserTask' ? def.userTasks.get(a.id) : undefined;
        if (info?.completeOnMessage !== event.messageName) return false;
        // completeOnMessageMatching: only the message meant for this task (same variable values).
        return (info.completeOnMessageMatching ?? []).every(
          (name) => variables[name] !== undefined && event.variables?.[name]?.value === variables[name]!.value,
        );
      });
      if ((waits && messageId) || tasks.length > 0) {
        matched = true;
        merge(event.variables);
        for (const task of tasks) {
          completedByMessage.add(String(task.executionId));
          task.signal({ variables: plainValues(event.variables) });
        }
        if (waits && messageId) engine.execution!.signal({ id: messageId });
      }
      break;
    }
    case 'signal': {
      const waits = postponed().some((a) => def.activitySignals.get(a.id) === event.signalName);
      const signalId = def.signalIds.get(event.signalName);
      if (waits && signalId) {
        matched = true;
        merge(event.variables);
        engine.execution!.signal({ id: signalId });
      }
      break;
    }
    case 'timer': {
      const ref = (timers.executing as any[]).find((t) => t.owner?.executionId === event.executionId);
      if (ref) {
        matched = true;
        // Timers.setTimeout leaves timerRef empty for delays over 2^31 ms (about 25 days), so
        // call the timer's own callback, after taking it off the running timers.
        timers.clearTimeout(ref);
        ref.callback(...((ref.args ?? []) as unknown[]));
      }
      break;
    }
  }
  await runServices();

  if (errors.length > 0) {
    const first = errors[0];
    throw first instanceof Error ? first : new Error(String(first));
  }

  const waiting: WaitingActivity[] = postponed().map((a) => ({ id: String(a.id), type: String(a.type), executionId: String(a.executionId) }));
  const completed = waiting.length === 0;
  const endTime = clock.now();
  let engineState: string | null = null;
  if (!completed) {
    // The definition's source is the deployed version's: never stored with an instance.
    const state = await engine.getState();
    for (const definition of state.definitions ?? []) delete definition.source;
    engineState = JSON.stringify(state);
  }
  const waitingTimers: WaitingTimer[] = completed
    ? []
    : (timers.executing as any[])
        .filter((t) => t.owner?.executionId)
        .map((t) => ({
          activityId: String(t.owner.id),
          executionId: String(t.owner.executionId),
          timerType: t.owner.timerType,
          expireAt: t.owner.expireAt,
          timeDuration: t.owner.timeDuration,
          delay: t.delay,
        }));
  // No engine.stop(): stopping walks every activity and costs as much as a resume. Nothing
  // outlives the step (timers are job rows, never real timeouts), so the engine is just dropped.
  return {
    matched,
    completed,
    engineState,
    waiting,
    timers: waitingTimers,
    jobs,
    variables,
    history,
    entered,
    completedExecution: event.kind === 'completeTask' && matched ? event : undefined,
    completedByMessage,
    endTime,
  };
}

/** The waiting activities, with those inside running sub-processes. */
function expandPostponed(list: any[], seen = new Set<string>()): any[] {
  const result: any[] = [];
  for (const api of list) {
    const executionId = String(api.executionId);
    if (seen.has(executionId)) continue;
    seen.add(executionId);
    result.push(api);
    if (api.type === 'bpmn:SubProcess' && typeof api.getPostponed === 'function') {
      result.push(...expandPostponed(api.getPostponed() as any[], seen));
    }
  }
  return result;
}

async function runService(
  settings: StepSettings,
  def: DefinitionInfo,
  instance: InstanceRecord,
  call: ServiceCall,
  variables: TypedVariables,
  event: StepEvent,
  jobs: JobMap,
): Promise<void> {
  const { sql, clock } = settings;
  const service = def.serviceTasks.get(call.activityId)!;
  const known = jobs.get(call.executionId);
  const job = known?.kind === 'retry' ? known : undefined;
  // A service waiting for its retry only runs when its own job fires, not on every resume.
  if (job && !(event.kind === 'retry' && event.executionId === call.executionId)) return;

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
    call.callback(null, output ?? {});
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
    // No callback: the service task keeps waiting for its retry job.
  }
}

type PersistInput = Omit<Advanced, 'matched'> & { now: Date };

/**
 * Everything a step writes, in one statement (data-modifying CTEs): the instance row, the engine
 * state (removed once the instance completed), closed and new user tasks, stale and new jobs,
 * and history rows. One round trip instead of one per row; the row sets travel as JSON. The
 * CTEs touch disjoint rows (a closed task is not a new one, a stale job not a new timer, a
 * history row is either started in this step or only ended in it), as one statement requires.
 */
const PERSIST_SQL = `
with instance as (
  update app_public.workflow_instances
     set variables = $3, state = $4, end_time = $5, waiting_messages = $6, waiting_signals = $7, waiting_executions = $8
   where id = $1
),
saved_state as (
  insert into app_private.workflow_engine_states (instance_id, state, step)
  select $1, $9::jsonb, $10 where $9::jsonb is not null
  on conflict (instance_id) do update set state = excluded.state, step = excluded.step
),
dropped_state as (
  delete from app_private.workflow_engine_states where instance_id = $1 and $9::jsonb is null
),
closed_tasks as (
  update app_public.workflow_tasks t
     set end_time = $11, delete_reason = c.reason, completed_by = c.completed_by
    from jsonb_to_recordset($12::jsonb) as c(id uuid, reason text, completed_by uuid)
   where t.id = c.id
),
opened_tasks as (
  insert into app_public.workflow_tasks
    (process_instance_id, case_id, execution_id, task_definition_key, name, assignee, candidate_groups, due, follow_up,
     priority, form_fields, created)
  select $1, $2, x.execution_id, x.task_definition_key, x.name, x.assignee, x.candidate_groups, x.due, x.follow_up,
         x.priority, x.form_fields, x.created
    from jsonb_to_recordset($13::jsonb) as x(execution_id text, task_definition_key text, name text, assignee text,
         candidate_groups text[], due timestamptz, follow_up timestamptz, priority integer, form_fields jsonb, created timestamptz)
),
stale_jobs as (
  delete from app_public.workflow_jobs where process_instance_id = $1 and execution_id = any ($14::text[])
),
timer_jobs as (
  insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, activity_name, execution_id, due_date, created)
  select $1, $2, 'timer', x.activity_id, x.activity_name, x.execution_id, x.due_date, x.created
    from jsonb_to_recordset($15::jsonb) as x(activity_id text, activity_name text, execution_id text, due_date timestamptz, created timestamptz)
),
started as (
  insert into app_public.workflow_history
    (process_instance_id, case_id, activity_id, activity_name, activity_type, execution_id, start_time, end_time)
  select $1, $2, e.activity_id, e.activity_name, e.activity_type, e.execution_id, e.start_time, e.end_time
    from jsonb_to_recordset($16::jsonb)
      as e(activity_id text, activity_name text, activity_type text, execution_id text, start_time timestamptz, end_time timestamptz)
  on conflict (process_instance_id, execution_id) do update
    set end_time = coalesce(app_public.workflow_history.end_time, excluded.end_time)
),
ended as (
  update app_public.workflow_history set end_time = $11
   where process_instance_id = $1 and execution_id = any ($17::text[]) and end_time is null
)
select 1`;

async function persist(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, input: PersistInput): Promise<void> {
  const { sql, clock } = settings;
  const { waiting, completed, engineState } = input;
  const waitingMessages = [
    ...new Set(
      waiting
        .map((a) => def.activityMessages.get(a.id) ?? (a.type === 'bpmn:UserTask' ? def.userTasks.get(a.id)?.completeOnMessage : undefined))
        .filter((m): m is string => !!m),
    ),
  ];
  const waitingSignals = [...new Set(waiting.map((a) => def.activitySignals.get(a.id)).filter((m): m is string => !!m))];
  // What POST /execution/{id}/signal may move: not user tasks (they are completed) and not the
  // sub-processes that hold the trial's phases (a phase is no wait state: its inner events are).
  const waitingExecutions = waiting.filter((a) => a.type !== 'bpmn:UserTask' && a.type !== 'bpmn:SubProcess').map((a) => a.executionId);

  // User tasks: close those no longer waiting, open the new ones.
  const openTasks = waiting.filter((a) => a.type === 'bpmn:UserTask');
  const known = new Set(instance.openTasks.map((r) => r.executionId));
  const stillOpen = new Set(openTasks.map((a) => a.executionId));
  const closedTasks = instance.openTasks
    .filter((row) => !stillOpen.has(row.executionId))
    .map((row) => {
      const byUser = input.completedExecution?.executionId === row.executionId;
      const completedTask = byUser || input.completedByMessage.has(row.executionId);
      return { id: row.id, reason: completedTask ? 'completed' : 'deleted', completed_by: byUser ? input.completedExecution!.userId : null };
    });
  const newTasks = openTasks
    .filter((task) => !known.has(task.executionId))
    .map((task) => {
      const executionId = task.executionId;
      const attributes = input.entered.get(executionId) ?? taskAttributes(def, task.id, plainValues(input.variables), clock.now());
      return {
        execution_id: executionId,
        task_definition_key: attributes.activityId,
        name: attributes.name,
        assignee: attributes.assignee,
        candidate_groups: attributes.candidateGroups,
        due: attributes.due,
        follow_up: attributes.followUp,
        priority: attributes.priority,
        form_fields: def.userTasks.get(attributes.activityId)?.formFields ?? [],
        created: clock.now(),
      };
    });

  // Timer jobs: one row per waiting timer; the stored due date is the truth (PUT /job/{id}/duedate moves it).
  const timerIds = new Set(input.timers.map((t) => t.executionId));
  const waitingIds = new Set(waiting.map((a) => a.executionId));
  const staleJobs = [...input.jobs]
    .filter(([executionId, job]) => (job.kind === 'timer' ? !timerIds.has(executionId) : !waitingIds.has(executionId)))
    .map(([executionId]) => executionId);
  const newTimers = input.timers
    .filter((timer) => !input.jobs.has(timer.executionId))
    .map((timer) => ({
      activity_id: timer.activityId,
      activity_name: def.names.get(timer.activityId) ?? null,
      execution_id: timer.executionId,
      due_date: timerDue(timer, clock.now()),
      created: clock.now(),
    }));

  // History: one row per activity execution that started; its end filled in when it ends.
  // Activities on a path not taken are discarded without starting and leave no row.
  const entries = [...input.history.entries()];
  const started = entries
    .filter(([, e]) => e.start)
    .map(([executionId, e]) => ({
      activity_id: e.activityId,
      activity_name: def.names.get(e.activityId) ?? null,
      activity_type: e.type,
      execution_id: executionId,
      start_time: e.start ?? null,
      end_time: e.end ?? null,
    }));
  const endedOnly = entries.filter(([, e]) => !e.start && e.end).map(([executionId]) => executionId);

  await sql.query(PERSIST_SQL, [
    instance.id,
    instance.caseId,
    JSON.stringify(input.variables),
    completed ? 'COMPLETED' : 'ACTIVE',
    completed ? input.endTime : null,
    waitingMessages,
    waitingSignals,
    waitingExecutions,
    engineState,
    instance.step + 1,
    input.endTime,
    JSON.stringify(closedTasks),
    JSON.stringify(newTasks),
    staleJobs,
    JSON.stringify(newTimers),
    JSON.stringify(started),
    endedOnly,
  ]);
}

/** When a waiting timer is due: its date, its ISO duration from now, or the engine's delay. */
function timerDue(timer: WaitingTimer, now: Date): Date {
  if (timer.timerType === 'timeDate' && timer.expireAt) return new Date(timer.expireAt as string | number | Date);
  if (timer.timerType === 'timeDuration' && typeof timer.timeDuration === 'string' && isDuration(timer.timeDuration)) {
    return addDuration(now, timer.timeDuration);
  }
  return new Date(now.getTime() + Math.max(0, Number(timer.delay) || 0));
}

/** Refuses a start for a definition whose process cannot begin (used by the REST start). */
export function assertStartable(def: DefinitionInfo | undefined, key: string): asserts def is DefinitionInfo {
  if (!def) throw invalidRequest(`No process definition with the key '${key}' is deployed.`);
}
