/**
 * The Camunda 7 reads a task-list client needs: tasks (list, count, one, form variables),
 * process instances, process definitions and their XML, historic tasks and process instances.
 * Every query runs as the request role, so row-level security (0011) filters each answer to the
 * caller's cases exactly as the REST collections and GraphQL do; a definition is not case data
 * and is read as the owner. Answers use Camunda's field names and date format; Sanad adds
 * `caseId` (and on one task its candidate groups and form fields).
 */
import type { Sql } from '../db/transaction';
import { notFound } from './errors';
import type { FormField } from './definitions';
import type { WorkflowHost } from './host';
import { becomeOwner } from './commands';
import { camundaDate, QueryParams, Where } from './camunda-query';
import type { TypedVariables } from './variables';

export interface ReadContext {
  sql: Sql;
  host: WorkflowHost;
}

const definitionId = (key: string, version: number) => `${key}:${version}`;

/** `key:version` → its parts; undefined when not of that form. */
function splitDefinitionId(id: string | undefined): { key: string; version: number } | undefined {
  if (id === undefined) return undefined;
  const match = /^(.+):(\d+)$/.exec(id);
  return match ? { key: match[1]!, version: Number(match[2]) } : { key: id, version: -1 };
}

// Tasks --------------------------------------------------------------------------------------------------

interface TaskRow {
  id: string;
  name: string | null;
  assignee: string | null;
  owner: string | null;
  created: Date;
  due: Date | null;
  follow_up: Date | null;
  priority: number;
  process_instance_id: string;
  execution_id: string;
  task_definition_key: string;
  case_id: string;
  candidate_groups: string[];
  end_time: Date | null;
  delete_reason: string | null;
  definition_key: string;
  definition_version: number;
  form_fields?: FormField[];
  instance_end_time?: Date | null;
}

const TASK_COLUMNS = `t.id, t.name, t.assignee, t.owner, t.created, t.due, t.follow_up, t.priority, t.process_instance_id,
  t.execution_id, t.task_definition_key, t.case_id, t.candidate_groups, t.end_time, t.delete_reason,
  i.definition_key, i.definition_version`;
const TASK_FROM = 'from app_public.workflow_tasks t join app_public.workflow_instances i on i.id = t.process_instance_id';

/** Camunda's TaskDto (7.21), with Sanad's caseId and candidateGroups. */
export function taskDto(t: TaskRow) {
  return {
    id: t.id,
    name: t.name,
    assignee: t.assignee,
    owner: t.owner,
    created: camundaDate(t.created),
    lastUpdated: null,
    due: camundaDate(t.due),
    followUp: camundaDate(t.follow_up),
    delegationState: null,
    description: null,
    executionId: t.execution_id,
    parentTaskId: null,
    priority: t.priority,
    processDefinitionId: definitionId(t.definition_key, t.definition_version),
    processInstanceId: t.process_instance_id,
    caseDefinitionId: null,
    caseInstanceId: null,
    caseExecutionId: null,
    taskDefinitionKey: t.task_definition_key,
    suspended: false,
    formKey: null,
    camundaFormRef: null,
    tenantId: null,
    taskState: t.assignee ? 'Assigned' : 'Created',
    caseId: t.case_id,
    candidateGroups: t.candidate_groups,
  };
}

const TASK_SORT = {
  instanceId: 't.process_instance_id',
  dueDate: 't.due',
  followUpDate: 't.follow_up',
  executionId: 't.execution_id',
  assignee: 't.assignee',
  created: 't.created',
  id: 't.id',
  name: 't.name',
  nameCaseInsensitive: 'lower(t.name)',
  priority: 't.priority',
};

/** The filters of GET /task and /task/count (Camunda's common ones, plus Sanad's caseId). */
function taskWhere(q: QueryParams): Where {
  const where = new Where().when(true, 't.end_time is null');
  where
    .add('t.id = $::uuid', uuidOrNone(q.string('taskId')))
    .add('t.id::text = any ($::text[])', q.list('taskIdIn'))
    .add('t.process_instance_id::text = $', q.string('processInstanceId'))
    .add('t.process_instance_id::text = any ($::text[])', q.list('processInstanceIdIn'))
    .add('i.business_key = $', q.string('processInstanceBusinessKey'))
    .add('i.business_key = any ($::text[])', q.list('processInstanceBusinessKeyIn'))
    .add('i.business_key like $', q.string('processInstanceBusinessKeyLike'))
    .add('i.definition_key = $', q.string('processDefinitionKey'))
    .add('i.definition_key = any ($::text[])', q.list('processDefinitionKeyIn'))
    .add('t.execution_id = $', q.string('executionId'))
    .add('t.assignee = $', q.string('assignee'))
    .add('t.assignee = any ($::text[])', q.list('assigneeIn'))
    .add('not (t.assignee = any ($::text[]))', q.list('assigneeNotIn'))
    .add('t.assignee like $', q.string('assigneeLike'))
    .add('t.owner = $', q.string('owner'))
    .add('t.candidate_groups && $::text[]', q.list('candidateGroups'))
    .add('t.task_definition_key = $', q.string('taskDefinitionKey'))
    .add('t.task_definition_key = any ($::text[])', q.list('taskDefinitionKeyIn'))
    .add('t.task_definition_key like $', q.string('taskDefinitionKeyLike'))
    .add('t.name = $', q.string('name'))
    .add('t.name is distinct from $', q.string('nameNotEqual'))
    .add('t.name like $', q.string('nameLike'))
    .add('t.priority = $', q.integer('priority', -(2 ** 31)))
    .add('t.priority <= $', q.integer('maxPriority', -(2 ** 31)))
    .add('t.priority >= $', q.integer('minPriority', -(2 ** 31)))
    .add('t.due = $', q.date('dueDate'))
    .add('t.due > $', q.date('dueAfter'))
    .add('t.due < $', q.date('dueBefore'))
    .add('t.follow_up = $', q.date('followUpDate'))
    .add('t.follow_up > $', q.date('followUpAfter'))
    .add('t.follow_up < $', q.date('followUpBefore'))
    .add('(t.follow_up is null or t.follow_up < $)', q.date('followUpBeforeOrNotExistent'))
    .add('t.created = $', q.date('createdOn'))
    .add('t.created > $', q.date('createdAfter'))
    .add('t.created < $', q.date('createdBefore'))
    .add('t.case_id::text = $', q.string('caseId'))
    .when(q.boolean('withoutDueDate'), 't.due is null')
    .when(q.boolean('assigned'), 't.assignee is not null')
    .when(q.boolean('unassigned'), 't.assignee is null')
    .when(q.boolean('withCandidateGroups'), "t.candidate_groups <> '{}'")
    .when(q.boolean('withoutCandidateGroups'), "t.candidate_groups = '{}'")
    // No task is ever suspended here.
    .when(q.boolean('suspended'), 'false');
  q.boolean('active');
  const definition = splitDefinitionId(q.string('processDefinitionId'));
  if (definition) where.add('i.definition_key = $', definition.key).add('i.definition_version = $', definition.version);
  // Camunda leaves assigned tasks out of a candidate-group query unless includeAssignedTasks.
  const candidateGroup = q.string('candidateGroup');
  where.add('$ = any (t.candidate_groups)', candidateGroup);
  if ((candidateGroup !== undefined || q.list('candidateGroups')) && !q.boolean('includeAssignedTasks')) where.when(true, 't.assignee is null');
  return where;
}

/** Ids are UUIDs; any other text matches nothing (a nil id) instead of failing the cast. */
function uuidOrNone(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value) ? value : '00000000-0000-0000-0000-000000000000';
}

/** GET /task */
export async function queryTasks(ctx: ReadContext, raw: Record<string, unknown>) {
  const q = new QueryParams(raw);
  const where = taskWhere(q);
  const order = q.sort(TASK_SORT, 't.created, t.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<TaskRow>(
    `select ${TASK_COLUMNS} ${TASK_FROM} ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map(taskDto);
}

/** GET /task/count */
export async function countTasks(ctx: ReadContext, raw: Record<string, unknown>) {
  const where = taskWhere(new QueryParams(raw));
  const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${TASK_FROM} ${where.sql}`, where.values);
  return { count: rows[0]!.count };
}

/** One open task the caller sees, or a 404. */
async function openTask(ctx: ReadContext, taskId: string): Promise<TaskRow> {
  const { rows } = await ctx.sql.query<TaskRow>(
    `select ${TASK_COLUMNS}, t.form_fields ${TASK_FROM} where t.id = $1 and t.end_time is null`,
    [taskId],
  );
  const task = rows[0];
  if (!task) throw notFound(`No matching task with id ${taskId}`);
  return task;
}

/** GET /task/{id}: the Camunda task with Sanad's caseId, candidateGroups and formFields. */
export async function getTask(ctx: ReadContext, taskId: string) {
  const task = await openTask(ctx, taskId);
  return { ...taskDto(task), formFields: task.form_fields ?? [] };
}

const FORM_TYPES: Record<string, string> = { string: 'String', enum: 'String', boolean: 'Boolean', long: 'Long', date: 'Date' };

/**
 * GET /task/{id}/form-variables: one entry per declared form field, its current process value
 * or its default value, typed as Camunda types form fields (enum and string are String).
 */
export async function taskFormVariables(ctx: ReadContext, taskId: string, raw: Record<string, unknown>) {
  const task = await openTask(ctx, taskId);
  const names = new QueryParams(raw).list('variableNames');
  const fields = (task.form_fields ?? []).filter((f) => !names || names.includes(f.id));
  // The task's own fields only; the request role may not read the variables column (0014).
  await becomeOwner(ctx.sql);
  const { rows } = await ctx.sql.query<{ variables: TypedVariables }>('select variables from app_public.workflow_instances where id = $1', [
    task.process_instance_id,
  ]);
  const current = rows[0]?.variables ?? {};
  const answer: Record<string, { type: string; value: unknown; valueInfo: Record<string, never> }> = {};
  for (const field of fields) {
    const type = FORM_TYPES[field.type] ?? 'String';
    const stored = current[field.id];
    let value: unknown = stored ? stored.value : (field.defaultValue ?? null);
    if (!stored && value !== null && type === 'Boolean') value = value === 'true';
    if (!stored && value !== null && type === 'Long') value = Number(value);
    // Camunda types an empty form field by the field (a String without a value), not as Null.
    answer[field.id] = { type, value, valueInfo: {} };
  }
  return answer;
}

// Process instances ---------------------------------------------------------------------------------------

interface InstanceRow {
  id: string;
  definition_key: string;
  definition_version: number;
  business_key: string | null;
  case_id: string;
  state: string;
  start_time: Date;
  end_time: Date | null;
}

const INSTANCE_COLUMNS = 'i.id, i.definition_key, i.definition_version, i.business_key, i.case_id, i.state, i.start_time, i.end_time';

/** Camunda's ProcessInstanceDto; `links` as Camunda answers a start (one "self" link) or a read (none). */
export function processInstanceDto(
  i: { id: string; definitionId: string; businessKey: string | null; ended: boolean; caseId: string },
  selfLink?: string,
) {
  return {
    links: selfLink ? [{ method: 'GET', href: selfLink, rel: 'self' }] : [],
    id: i.id,
    definitionId: i.definitionId,
    businessKey: i.businessKey,
    caseInstanceId: null,
    ended: i.ended,
    suspended: false,
    tenantId: null,
    caseId: i.caseId,
  };
}

const runningDto = (i: InstanceRow) =>
  processInstanceDto({ id: i.id, definitionId: definitionId(i.definition_key, i.definition_version), businessKey: i.business_key, ended: false, caseId: i.case_id });

function instanceWhere(q: QueryParams, running: boolean): Where {
  const where = new Where();
  if (running) where.when(true, "i.state = 'ACTIVE'");
  where
    .add('i.id::text = $', q.string('processInstanceId'))
    .add('i.id::text = any ($::text[])', q.list(running ? 'processInstanceIds' : 'processInstanceIds'))
    .add('i.business_key = $', q.string(running ? 'businessKey' : 'processInstanceBusinessKey'))
    .add('i.business_key = any ($::text[])', q.list(running ? 'businessKeyIn' : 'processInstanceBusinessKeyIn'))
    .add('i.business_key like $', q.string(running ? 'businessKeyLike' : 'processInstanceBusinessKeyLike'))
    .add('i.definition_key = $', q.string('processDefinitionKey'))
    .add('i.definition_key = any ($::text[])', q.list('processDefinitionKeyIn'))
    .add('not (i.definition_key = any ($::text[]))', q.list('processDefinitionKeyNotIn'))
    .add('i.case_id::text = $', q.string('caseId'))
    .when(q.boolean('suspended'), 'false');
  const definition = splitDefinitionId(q.string('processDefinitionId'));
  if (definition) where.add('i.definition_key = $', definition.key).add('i.definition_version = $', definition.version);
  if (!running) {
    where
      .when(q.boolean('finished'), 'i.end_time is not null')
      .when(q.boolean('unfinished'), 'i.end_time is null')
      .when(q.boolean('active'), "i.state = 'ACTIVE'")
      .when(q.boolean('completed'), "i.state = 'COMPLETED'")
      .when(q.boolean('externallyTerminated'), "i.state = 'EXTERNALLY_TERMINATED'")
      .when(q.boolean('internallyTerminated'), 'false')
      .add('i.start_time < $', q.date('startedBefore'))
      .add('i.start_time > $', q.date('startedAfter'))
      .add('i.end_time < $', q.date('finishedBefore'))
      .add('i.end_time > $', q.date('finishedAfter'));
    const state = q.string('state');
    if (state !== undefined) where.add('i.state = $', state === 'SUSPENDED' || state === 'INTERNALLY_TERMINATED' ? '-' : state);
  } else {
    q.boolean('active');
  }
  return where;
}

const RUNNING_SORT = { instanceId: 'i.id', definitionKey: 'i.definition_key', definitionId: 'i.definition_key, i.definition_version', businessKey: 'i.business_key' };

/** GET /process-instance: the running instances of the caller's cases. */
export async function queryProcessInstances(ctx: ReadContext, raw: Record<string, unknown>) {
  const q = new QueryParams(raw);
  const where = instanceWhere(q, true);
  const order = q.sort(RUNNING_SORT, 'i.start_time, i.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<InstanceRow>(
    `select ${INSTANCE_COLUMNS} from app_public.workflow_instances i ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map(runningDto);
}

/** GET /process-instance/count */
export async function countProcessInstances(ctx: ReadContext, raw: Record<string, unknown>) {
  const where = instanceWhere(new QueryParams(raw), true);
  const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count from app_public.workflow_instances i ${where.sql}`, where.values);
  return { count: rows[0]!.count };
}

/** GET /process-instance/{id}: a running instance of the caller's cases (a finished one is history). */
export async function getProcessInstance(ctx: ReadContext, instanceId: string) {
  const { rows } = await ctx.sql.query<InstanceRow>(
    `select ${INSTANCE_COLUMNS} from app_public.workflow_instances i where i.id = $1 and i.state = 'ACTIVE'`,
    [instanceId],
  );
  if (!rows[0]) throw notFound(`Process instance with id ${instanceId} does not exist`);
  return runningDto(rows[0]);
}

// History ----------------------------------------------------------------------------------------------------

const HISTORY_TASK_SORT = {
  taskId: 't.id',
  processDefinitionId: 'i.definition_key, i.definition_version',
  processInstanceId: 't.process_instance_id',
  executionId: 't.execution_id',
  activityInstanceId: 't.execution_id',
  duration: '(t.end_time - t.created)',
  endTime: 't.end_time',
  startTime: 't.created',
  taskName: 't.name',
  assignee: 't.assignee',
  owner: 't.owner',
  dueDate: 't.due',
  followUpDate: 't.follow_up',
  deleteReason: 't.delete_reason',
  taskDefinitionKey: 't.task_definition_key',
  priority: 't.priority',
};

function historyTaskWhere(q: QueryParams): Where {
  const where = new Where()
    .add('t.id = $::uuid', uuidOrNone(q.string('taskId')))
    .add('t.process_instance_id::text = $', q.string('processInstanceId'))
    .add('i.business_key = $', q.string('processInstanceBusinessKey'))
    .add('i.business_key = any ($::text[])', q.list('processInstanceBusinessKeyIn'))
    .add('i.business_key like $', q.string('processInstanceBusinessKeyLike'))
    .add('t.execution_id = $', q.string('executionId'))
    .add('i.definition_key = $', q.string('processDefinitionKey'))
    .add('t.name = $', q.string('taskName'))
    .add('t.name like $', q.string('taskNameLike'))
    .add('t.task_definition_key = $', q.string('taskDefinitionKey'))
    .add('t.task_definition_key = any ($::text[])', q.list('taskDefinitionKeyIn'))
    .add('t.delete_reason = $', q.string('taskDeleteReason'))
    .add('t.delete_reason like $', q.string('taskDeleteReasonLike'))
    .add('t.assignee = $', q.string('taskAssignee'))
    .add('t.assignee like $', q.string('taskAssigneeLike'))
    .add('t.owner = $', q.string('taskOwner'))
    .add('t.priority = $', q.integer('taskPriority', -(2 ** 31)))
    .add('t.due = $', q.date('taskDueDate'))
    .add('t.due < $', q.date('taskDueDateBefore'))
    .add('t.due > $', q.date('taskDueDateAfter'))
    .add('t.follow_up = $', q.date('taskFollowUpDate'))
    .add('t.follow_up < $', q.date('taskFollowUpDateBefore'))
    .add('t.follow_up > $', q.date('taskFollowUpDateAfter'))
    .add('t.created < $', q.date('startedBefore'))
    .add('t.created > $', q.date('startedAfter'))
    .add('t.end_time < $', q.date('finishedBefore'))
    .add('t.end_time > $', q.date('finishedAfter'))
    .add('$ = any (t.candidate_groups)', q.string('taskHadCandidateGroup'))
    .add('t.case_id::text = $', q.string('caseId'))
    .when(q.boolean('assigned'), 't.assignee is not null')
    .when(q.boolean('unassigned'), 't.assignee is null')
    .when(q.boolean('finished'), 't.end_time is not null')
    .when(q.boolean('unfinished'), 't.end_time is null')
    .when(q.boolean('processFinished'), 'i.end_time is not null')
    .when(q.boolean('processUnfinished'), 'i.end_time is null')
    .when(q.boolean('withoutTaskDueDate'), 't.due is null')
    .when(q.boolean('withCandidateGroups'), "t.candidate_groups <> '{}'")
    .when(q.boolean('withoutCandidateGroups'), "t.candidate_groups = '{}'");
  const definition = splitDefinitionId(q.string('processDefinitionId'));
  if (definition) where.add('i.definition_key = $', definition.key).add('i.definition_version = $', definition.version);
  return where;
}

/** Camunda's HistoricTaskInstanceDto, with Sanad's caseId. */
function historicTaskDto(t: TaskRow) {
  return {
    id: t.id,
    processDefinitionKey: t.definition_key,
    processDefinitionId: definitionId(t.definition_key, t.definition_version),
    processInstanceId: t.process_instance_id,
    executionId: t.execution_id,
    caseDefinitionKey: null,
    caseDefinitionId: null,
    caseInstanceId: null,
    caseExecutionId: null,
    activityInstanceId: t.execution_id,
    name: t.name,
    description: null,
    deleteReason: t.delete_reason,
    owner: t.owner,
    assignee: t.assignee,
    startTime: camundaDate(t.created),
    endTime: camundaDate(t.end_time),
    duration: t.end_time ? new Date(t.end_time).getTime() - new Date(t.created).getTime() : null,
    taskDefinitionKey: t.task_definition_key,
    priority: t.priority,
    due: camundaDate(t.due),
    parentTaskId: null,
    followUp: camundaDate(t.follow_up),
    tenantId: null,
    removalTime: null,
    rootProcessInstanceId: t.process_instance_id,
    taskState: t.end_time ? (t.delete_reason === 'completed' ? 'Completed' : 'Deleted') : t.assignee ? 'Assigned' : 'Created',
    caseId: t.case_id,
  };
}

/** GET /history/task: open and finished tasks of the caller's cases. */
export async function queryHistoricTasks(ctx: ReadContext, raw: Record<string, unknown>) {
  const q = new QueryParams(raw);
  const where = historyTaskWhere(q);
  const order = q.sort(HISTORY_TASK_SORT, 't.created, t.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<TaskRow>(
    `select ${TASK_COLUMNS} ${TASK_FROM} ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map(historicTaskDto);
}

/** GET /history/task/count */
export async function countHistoricTasks(ctx: ReadContext, raw: Record<string, unknown>) {
  const where = historyTaskWhere(new QueryParams(raw));
  const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${TASK_FROM} ${where.sql}`, where.values);
  return { count: rows[0]!.count };
}

const HISTORY_INSTANCE_SORT = {
  instanceId: 'i.id',
  definitionId: 'i.definition_key, i.definition_version',
  definitionKey: 'i.definition_key',
  definitionVersion: 'i.definition_version',
  businessKey: 'i.business_key',
  startTime: 'i.start_time',
  endTime: 'i.end_time',
  duration: '(i.end_time - i.start_time)',
};

/** GET /history/process-instance: running and finished instances of the caller's cases. */
export async function queryHistoricProcessInstances(ctx: ReadContext, raw: Record<string, unknown>) {
  const q = new QueryParams(raw);
  const where = instanceWhere(q, false);
  const order = q.sort(HISTORY_INSTANCE_SORT, 'i.start_time, i.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<InstanceRow>(
    `select ${INSTANCE_COLUMNS} from app_public.workflow_instances i ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  // Definition names are not case data: read as the owner after the filtered query.
  await becomeOwner(ctx.sql);
  const answer = [];
  for (const i of rows) {
    const definition = await ctx.host.definitions.get(ctx.sql, i.definition_key, i.definition_version);
    answer.push({
      id: i.id,
      businessKey: i.business_key,
      processDefinitionId: definitionId(i.definition_key, i.definition_version),
      processDefinitionKey: i.definition_key,
      processDefinitionName: definition.processName ?? null,
      processDefinitionVersion: i.definition_version,
      startTime: camundaDate(i.start_time),
      endTime: camundaDate(i.end_time),
      removalTime: null,
      durationInMillis: i.end_time ? new Date(i.end_time).getTime() - new Date(i.start_time).getTime() : null,
      startUserId: null,
      startActivityId: null,
      deleteReason: i.state === 'EXTERNALLY_TERMINATED' ? 'deleted' : null,
      rootProcessInstanceId: i.id,
      superProcessInstanceId: null,
      superCaseInstanceId: null,
      caseInstanceId: null,
      tenantId: null,
      state: i.state,
      restartedProcessInstanceId: null,
      caseId: i.case_id,
    });
  }
  return answer;
}

/** GET /history/process-instance/count */
export async function countHistoricProcessInstances(ctx: ReadContext, raw: Record<string, unknown>) {
  const where = instanceWhere(new QueryParams(raw), false);
  const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count from app_public.workflow_instances i ${where.sql}`, where.values);
  return { count: rows[0]!.count };
}

// Process definitions ------------------------------------------------------------------------------------------

interface DefinitionRow {
  key: string;
  version: number;
  deployed_at: Date;
  latest: number;
}

async function definitionDto(ctx: ReadContext, row: { key: string; version: number }) {
  const definition = await ctx.host.definitions.get(ctx.sql, row.key, row.version);
  const root = (definition.moddleContext as { rootElement?: { targetNamespace?: string } }).rootElement;
  return {
    id: definitionId(row.key, row.version),
    key: row.key,
    category: root?.targetNamespace ?? null,
    description: null,
    name: definition.processName ?? null,
    version: row.version,
    resource: `${row.key}.bpmn`,
    deploymentId: null,
    diagram: null,
    suspended: false,
    tenantId: null,
    versionTag: null,
    historyTimeToLive: null,
    startableInTasklist: true,
  };
}

const DEFINITION_SORT = { key: 'd.key', id: 'd.key, d.version', name: 'd.key', version: 'd.version', deployTime: 'd.deployed_at', category: 'd.key' };

/** GET /process-definition: the deployed definitions (not case data: every signed-in person). */
export async function queryProcessDefinitions(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const where = new Where()
    .add('d.key = $', q.string('key'))
    .add('d.key = any ($::text[])', q.list('keysIn') ?? q.list('keyIn'))
    .add('d.key like $', q.string('keyLike'))
    .add('d.version = $', q.integer('version', 1))
    .when(q.boolean('latestVersion'), 'd.version = d.latest')
    .when(q.boolean('suspended'), 'false');
  const idIn = q.list('processDefinitionIdIn');
  const id = q.string('processDefinitionId');
  for (const one of id !== undefined ? [id] : []) {
    const parts = splitDefinitionId(one)!;
    where.add('d.key = $', parts.key).add('d.version = $', parts.version);
  }
  if (idIn) where.add("(d.key || ':' || d.version) = any ($::text[])", idIn);
  const order = q.sort(DEFINITION_SORT, 'd.key, d.version');
  const { offset, limit } = q.page();
  await becomeOwner(ctx.sql);
  const from = `from (select key, version, deployed_at, max(version) over (partition by key) as latest from app_private.workflow_definitions) d ${where.sql}`;
  if (counting) {
    const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${from}`, where.values);
    return { count: rows[0]!.count };
  }
  const { rows } = await ctx.sql.query<DefinitionRow>(`select d.* ${from} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`, where.values);
  const name = q.string('name');
  const nameLike = q.string('nameLike');
  const answer = [];
  for (const row of rows) {
    const dto = await definitionDto(ctx, row);
    if (name !== undefined && dto.name !== name) continue;
    if (nameLike !== undefined && !likeMatches(dto.name ?? '', nameLike)) continue;
    answer.push(dto);
  }
  return answer;
}

/** SQL LIKE on a string in memory (% and _), for the name filters of definitions. */
function likeMatches(text: string, pattern: string): boolean {
  const regex = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('%', '.*').replaceAll('_', '.');
  return new RegExp(`^${regex}$`, 's').test(text);
}

async function latestDefinitionRow(ctx: ReadContext, key: string): Promise<{ key: string; version: number; source: string }> {
  await becomeOwner(ctx.sql);
  const { rows } = await ctx.sql.query<{ key: string; version: number; source: string }>(
    'select key, version, source from app_private.workflow_definitions where key = $1 order by version desc limit 1',
    [key],
  );
  if (!rows[0]) throw notFound(`No matching process definition with key: ${key} and no tenant-id`);
  return rows[0];
}

/** GET /process-definition/key/{key}: the newest version. */
export async function getProcessDefinitionByKey(ctx: ReadContext, key: string) {
  return definitionDto(ctx, await latestDefinitionRow(ctx, key));
}

/** GET /process-definition/key/{key}/xml: {id, bpmn20Xml} of the newest version. */
export async function getProcessDefinitionXml(ctx: ReadContext, key: string) {
  const row = await latestDefinitionRow(ctx, key);
  return { id: definitionId(row.key, row.version), bpmn20Xml: row.source };
}
