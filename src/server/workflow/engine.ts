/**
 * One step of one process instance (docs/WORKFLOW.md "How a step runs"): recover the instance from its stored state,
 * apply the event (start, task completion, message, signal, timer, retry), run until it waits,
 * then write the new state, open tasks, timer and retry jobs and history rows — all with the
 * caller's transaction client, under the instance row lock the caller holds. Nothing here sets a
 * real timer: timers become job rows, and a fired job is an event of its own step.
 *
 * Two runners produce a step's result (engine-common.ts `Advanced`): Sanad's own interpreter of
 * the BPMN subset the project uses (engine-interpreter.ts), which runs every new instance, and
 * bpmn-engine (engine-legacy.ts) for instances whose stored state bpmn-engine wrote. The stored
 * state's marker chooses (docs/WORKFLOW.md "Two runners").
 */
import type { DefinitionInfo } from './definitions';
import { addDuration, isDuration } from './expressions';
import { plainValues } from './variables';
import { invalidRequest } from './errors';
import { taskAttributes, type Advanced, type Clock, type InstanceRecord, type Runner, type StepEvent, type StepSettings, type WaitingTimer } from './engine-common';
import { advanceInterpreter, isInterpreterState } from './engine-interpreter';
import { advanceLegacy } from './engine-legacy';

export { systemClock, type Clock, type InstanceRecord, type StepEvent, type StepSettings } from './engine-common';

export interface StepOutcome {
  /** Whether the event found what it was meant for (a waiting message event, the task, the timer). */
  matched: boolean;
  state: 'ACTIVE' | 'COMPLETED';
}

/** The runner of an instance: the interpreter for new instances and its own states, bpmn-engine for the states it wrote. */
export function runnerFor(instance: InstanceRecord): Runner {
  return instance.engineState === null || isInterpreterState(instance.engineState) ? advanceInterpreter : advanceLegacy;
}

/**
 * Runs one step and writes it. `runner` is for tests that need an instance in bpmn-engine's
 * format (as instances started before the interpreter are); otherwise the stored state chooses.
 */
export async function runStep(
  settings: StepSettings,
  def: DefinitionInfo,
  instance: InstanceRecord,
  event: StepEvent,
  runner: Runner = runnerFor(instance),
): Promise<StepOutcome> {
  const now = settings.clock.now();
  // The runner's objects live only inside it: they are garbage before the write's round trip.
  const advanced = await runner(settings, def, instance, event);
  await persist(settings, def, instance, { ...advanced, now });
  return { matched: advanced.matched, state: advanced.completed ? 'COMPLETED' : 'ACTIVE' };
}

export type PersistInput = Omit<Advanced, 'matched'> & { now: Date };

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

/**
 * The rows a step writes, computed from what the runner returned and what was read under the
 * lock; pure, so the differential test (engine-interpreter.test.ts) simulates the tables with it.
 */
export function planPersist(clock: Clock, def: DefinitionInfo, instance: InstanceRecord, input: PersistInput) {
  const { waiting } = input;
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
  return { waitingMessages, waitingSignals, waitingExecutions, closedTasks, newTasks, staleJobs, newTimers, started, endedOnly };
}

async function persist(settings: StepSettings, def: DefinitionInfo, instance: InstanceRecord, input: PersistInput): Promise<void> {
  const { completed, engineState } = input;
  const { waitingMessages, waitingSignals, waitingExecutions, closedTasks, newTasks, staleJobs, newTimers, started, endedOnly } = planPersist(
    settings.clock,
    def,
    instance,
    input,
  );
  // Named: each connection parses and plans this statement once, not on every step.
  await settings.sql.query({ name: 'sanad-workflow-persist', text: PERSIST_SQL, values: [
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
  ] });
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
