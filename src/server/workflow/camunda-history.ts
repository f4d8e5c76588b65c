/**
 * The further Camunda 7 reads clients use (issue 29): the engine list and version, process
 * definitions by id and their XML, deployments, historic activity and variable instances,
 * incidents and jobs. Case data is read as the request role, so row-level security (0011)
 * filters every answer to the caller's cases; variables only through
 * app_hidden.workflow_variable_instances (0280), which applies the read-variables rule.
 * Definitions are not case data: they come from the definition cache (its SQL is the host's).
 */
import type { Sql } from '../db/transaction';
import { invalidRequest, notFound } from './errors';
import type { WorkflowHost } from './host';
import { camundaDate, QueryParams, Where } from './camunda-query';
import type { TypedVariables } from './variables';

export interface ReadContext {
  sql: Sql;
  host: WorkflowHost;
}

/** The Camunda 7 REST version whose shapes Sanad answers in (checked against its OpenAPI document). */
export const CAMUNDA_REST_VERSION = '7.21.0';

const definitionId = (key: string, version: number) => `${key}:${version}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NIL = '00000000-0000-0000-0000-000000000000';
const uuidOr = (value: string | undefined) => (value === undefined ? undefined : UUID.test(value) ? value : NIL);
const uuidList = (values: string[] | undefined) => values?.map((v) => (UUID.test(v) ? v : NIL));

/** `key:version` → its parts; undefined when not of that form. */
export function parseDefinitionId(id: string): { key: string; version: number } | undefined {
  const match = /^(.+):(\d{1,9})$/.exec(id);
  return match ? { key: match[1]!, version: Number(match[2]) } : undefined;
}

// Definitions and deployments ---------------------------------------------------------------------------

interface DefinitionRow {
  key: string;
  version: number;
  source?: string;
  deployed_at: Date;
}

/** A deployed definition version (0280 workflow_deployed_definitions). Unknown: Camunda's 404. */
async function definitionRow(ctx: ReadContext, id: string): Promise<DefinitionRow> {
  const parts = parseDefinitionId(id);
  const { rows } = parts
    ? await ctx.sql.query<DefinitionRow>('select * from app_hidden.workflow_deployed_definitions($1, $2)', [parts.key, parts.version])
    : { rows: [] };
  if (!rows[0]) throw notFound(`No matching definition with id ${id}`);
  return rows[0];
}

/** GET /process-definition/{id}/xml */
export async function processDefinitionXml(ctx: ReadContext, id: string) {
  const row = await definitionRow(ctx, id);
  return { id: definitionId(row.key, row.version), bpmn20Xml: row.source ?? '' };
}

/** A deployment is one definition version deployed from workflows/<key>.bpmn. */
function deploymentDto(row: { key: string; version: number; deployed_at: Date }) {
  return {
    links: [],
    id: definitionId(row.key, row.version),
    name: `${row.key}.bpmn`,
    source: 'sanad',
    tenantId: null,
    deploymentTime: camundaDate(row.deployed_at),
  };
}

/** GET /deployment (and /count): every definition version is a deployment of its own. */
export async function queryDeployments(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const { rows: all } = await ctx.sql.query<DefinitionRow>('select key, version, deployed_at from app_hidden.workflow_deployed_definitions()');
  const id = q.string('id');
  const name = q.string('name');
  const nameLike = q.string('nameLike');
  const source = q.string('source');
  const after = q.date('after');
  const before = q.date('before');
  const by = q.string('sortBy');
  const order = q.string('sortOrder');
  if ((by === undefined) !== (order === undefined)) throw badSort();
  if (by !== undefined && !['id', 'name', 'deploymentTime', 'tenantId'].includes(by)) throw badParam('sortBy', by);
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw badParam('sortOrder', order);
  const { offset, limit } = q.page();
  let rows = all.map(deploymentDto).filter(
    (d) =>
      (id === undefined || d.id === id) &&
      (name === undefined || d.name === name) &&
      (nameLike === undefined || like(d.name, nameLike)) &&
      (source === undefined || d.source === source) &&
      (after === undefined || new Date(d.deploymentTime!.replace('+0000', 'Z')) > after) &&
      (before === undefined || new Date(d.deploymentTime!.replace('+0000', 'Z')) < before),
  );
  if (counting) return { count: rows.length };
  if (by && by !== 'tenantId') {
    const key = by === 'deploymentTime' ? 'deploymentTime' : by;
    rows = [...rows].sort((a, b) => String(a[key as 'id']).localeCompare(String(b[key as 'id'])) * (order === 'desc' ? -1 : 1));
  }
  return rows.slice(offset, offset + limit);
}

const badSort = () => invalidRequest('Only a single sorting parameter specified. sortBy and sortOrder required');
const badParam = (name: string, value: string) => invalidRequest(`Cannot set query parameter '${name}' to value '${value}'`);

function like(text: string, pattern: string): boolean {
  const regex = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('%', '.*').replaceAll('_', '.');
  return new RegExp(`^${regex}$`, 's').test(text);
}

// Historic activity instances ------------------------------------------------------------------------------

interface ActivityRow {
  id: string;
  activity_id: string;
  activity_name: string | null;
  activity_type: string;
  execution_id: string;
  process_instance_id: string;
  start_time: Date;
  end_time: Date | null;
  definition_key: string;
  definition_version: number;
  instance_state: string;
  task_id: string | null;
  assignee: string | null;
  task_reason: string | null;
  case_id: string;
}

/** Camunda's activity type names: bpmn:UserTask → userTask, bpmn:EndEvent → noneEndEvent. */
export function camundaActivityType(type: string): string {
  const name = type.replace(/^bpmn:/, '');
  if (name === 'EndEvent') return 'noneEndEvent';
  return name.charAt(0).toLowerCase() + name.slice(1);
}

const ACTIVITY_SORT = {
  activityInstanceId: 'h.id',
  instanceId: 'h.process_instance_id',
  executionId: 'h.execution_id',
  activityId: 'h.activity_id',
  activityName: 'h.activity_name',
  activityType: 'h.activity_type',
  startTime: 'h.start_time',
  endTime: 'h.end_time',
  duration: '(h.end_time - h.start_time)',
  definitionId: 'i.definition_key, i.definition_version',
};

const ACTIVITY_FROM = `from app_public.workflow_history h
  join app_public.workflow_instances i on i.id = h.process_instance_id
  left join app_public.workflow_tasks t on t.process_instance_id = h.process_instance_id and t.execution_id = h.execution_id`;

function activityWhere(q: QueryParams): Where {
  const where = new Where()
    .add('h.id = $::uuid', uuidOr(q.string('activityInstanceId')))
    .add('h.process_instance_id = $::uuid', uuidOr(q.string('processInstanceId')))
    .add('h.process_instance_id = any ($::uuid[])', uuidList(q.list('processInstanceIdIn')))
    .add('i.definition_key = $', q.string('processDefinitionKey'))
    .add('h.execution_id = $', q.string('executionId'))
    .add('h.activity_id = $', q.string('activityId'))
    .add('h.activity_id = any ($::text[])', q.list('activityIdIn'))
    .add('h.activity_name = $', q.string('activityName'))
    .add('h.activity_name like $', q.string('activityNameLike'))
    .add('t.assignee = $', q.string('taskAssignee'))
    .add('h.start_time < $', q.date('startedBefore'))
    .add('h.start_time > $', q.date('startedAfter'))
    .add('h.end_time < $', q.date('finishedBefore'))
    .add('h.end_time > $', q.date('finishedAfter'))
    .add('h.case_id::text = $', q.string('caseId'))
    .when(q.boolean('finished'), 'h.end_time is not null')
    .when(q.boolean('unfinished'), 'h.end_time is null')
    .when(q.boolean('canceled'), "t.delete_reason = 'deleted'")
    .when(q.boolean('completeScope'), "h.activity_type = 'bpmn:EndEvent'");
  const type = q.string('activityType');
  if (type !== undefined) where.add('h.activity_type = $', type === 'noneEndEvent' ? 'bpmn:EndEvent' : `bpmn:${type.charAt(0).toUpperCase()}${type.slice(1)}`);
  const definition = q.string('processDefinitionId');
  if (definition !== undefined) {
    const parts = parseDefinitionId(definition) ?? { key: definition, version: -1 };
    where.add('i.definition_key = $', parts.key).add('i.definition_version = $', parts.version);
  }
  return where;
}

function activityDto(h: ActivityRow) {
  // A task ended without being completed (interrupted, or its instance cancelled) was canceled.
  const canceled = h.task_reason === 'deleted';
  return {
    id: h.id,
    parentActivityInstanceId: null,
    activityId: h.activity_id,
    activityName: h.activity_name,
    activityType: camundaActivityType(h.activity_type),
    processDefinitionKey: h.definition_key,
    processDefinitionId: definitionId(h.definition_key, h.definition_version),
    processInstanceId: h.process_instance_id,
    executionId: h.execution_id,
    taskId: h.task_id,
    assignee: h.assignee,
    calledProcessInstanceId: null,
    calledCaseInstanceId: null,
    startTime: camundaDate(h.start_time),
    endTime: camundaDate(h.end_time),
    durationInMillis: h.end_time ? new Date(h.end_time).getTime() - new Date(h.start_time).getTime() : null,
    canceled,
    completeScope: h.activity_type === 'bpmn:EndEvent',
    tenantId: null,
    removalTime: null,
    rootProcessInstanceId: h.process_instance_id,
    caseId: h.case_id,
  };
}

/** GET /history/activity-instance (and POST, and /count). */
export async function queryHistoricActivities(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const where = activityWhere(q);
  if (counting) {
    const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${ACTIVITY_FROM} ${where.sql}`, where.values);
    return { count: rows[0]!.count };
  }
  const order = q.sort(ACTIVITY_SORT, 'h.start_time, h.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<ActivityRow>(
    `select h.id, h.activity_id, h.activity_name, h.activity_type, h.execution_id, h.process_instance_id, h.start_time, h.end_time,
            h.case_id, i.definition_key, i.definition_version, i.state as instance_state, t.id as task_id, t.assignee, t.delete_reason as task_reason
       ${ACTIVITY_FROM} ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map(activityDto);
}

// Historic variable instances -----------------------------------------------------------------------------

interface VariableRow {
  process_instance_id: string;
  case_id: string;
  definition_key: string;
  definition_version: number;
  state: string;
  start_time: Date;
  name: string;
  value: TypedVariables[string];
}

/** GET /history/variable-instance (and POST, and /count): the variables the caller may read. */
export async function queryHistoricVariables(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const instanceIds = uuidList(q.list('processInstanceIdIn') ?? (q.string('processInstanceId') !== undefined ? [q.string('processInstanceId')!] : undefined));
  const names = q.list('variableNameIn') ?? (q.string('variableName') !== undefined ? [q.string('variableName')!] : undefined);
  const nameLike = q.string('variableNameLike');
  const where = new Where()
    .add('v.definition_key = $', q.string('processDefinitionKey'))
    .add('v.case_id::text = $', q.string('caseId'));
  const from = `from app_hidden.workflow_variable_instances($1::uuid[], $2::text[], $3::text) v`;
  const conditions = where.conditions.map((c) => c.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + 3}`));
  const whereSql = conditions.length ? `where ${conditions.join(' and ')}` : '';
  const values = [instanceIds ?? null, names ?? null, nameLike ?? null, ...where.values];
  if (counting) {
    const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${from} ${whereSql}`, values);
    return { count: rows[0]!.count };
  }
  q.sort({ instanceId: 'v.process_instance_id', variableName: 'v.name' }, 'v.start_time');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<VariableRow>(`select v.* ${from} ${whereSql} offset ${offset} limit ${limit}`, values);
  return rows.map((v) => ({
    id: `${v.process_instance_id}:${v.name}`,
    name: v.name,
    type: v.value?.type ?? 'Null',
    value: v.value?.value ?? null,
    valueInfo: {},
    processDefinitionKey: v.definition_key,
    processDefinitionId: definitionId(v.definition_key, v.definition_version),
    processInstanceId: v.process_instance_id,
    executionId: v.process_instance_id,
    activityInstanceId: v.process_instance_id,
    caseDefinitionKey: null,
    caseDefinitionId: null,
    caseInstanceId: null,
    caseExecutionId: null,
    taskId: null,
    tenantId: null,
    errorMessage: null,
    state: 'CREATED',
    createTime: camundaDate(v.start_time),
    removalTime: null,
    rootProcessInstanceId: v.process_instance_id,
    caseId: v.case_id,
  }));
}

// Jobs and incidents -------------------------------------------------------------------------------------

interface JobRow {
  id: string;
  kind: string;
  activity_id: string;
  execution_id: string;
  process_instance_id: string;
  due_date: Date;
  attempts: number;
  last_error: string | null;
  failed_at: Date | null;
  created: Date;
  retries: number | null;
  definition_key: string;
  definition_version: number;
  case_id: string;
}

const JOB_FROM = 'from app_public.workflow_jobs j join app_public.workflow_instances i on i.id = j.process_instance_id';
const JOB_COLUMNS = `j.id, j.kind, j.activity_id, j.execution_id, j.process_instance_id, j.due_date, j.attempts, j.last_error,
  j.failed_at, j.created, j.retries, j.case_id, i.definition_key, i.definition_version`;

/** The retries a job has left, as Camunda counts them (0: failed, an incident). */
function retriesLeft(j: JobRow, maxAttempts: number): number {
  if (j.failed_at) return 0;
  if (j.kind === 'external') return j.retries ?? maxAttempts;
  return j.kind === 'timer' ? maxAttempts : Math.max(0, maxAttempts - j.attempts);
}

const JOB_SORT = {
  jobId: 'j.id',
  executionId: 'j.execution_id',
  processInstanceId: 'j.process_instance_id',
  processDefinitionId: 'i.definition_key, i.definition_version',
  processDefinitionKey: 'i.definition_key',
  jobRetries: 'j.attempts',
  jobDueDate: 'j.due_date',
};

/** External tasks are jobs in Sanad's tables but not Camunda jobs: GET /job leaves them out. */
function jobWhere(q: QueryParams): Where {
  const where = new Where()
    .when(true, "j.kind <> 'external'")
    .add('j.id = $::uuid', uuidOr(q.string('jobId')))
    .add('j.id = any ($::uuid[])', uuidList(q.list('jobIds')))
    .add('j.process_instance_id = $::uuid', uuidOr(q.string('processInstanceId')))
    .add('j.process_instance_id = any ($::uuid[])', uuidList(q.list('processInstanceIds')))
    .add('j.execution_id = $', q.string('executionId'))
    .add('i.definition_key = $', q.string('processDefinitionKey'))
    .add('j.activity_id = $', q.string('activityId'))
    .add('j.case_id::text = $', q.string('caseId'))
    .when(q.boolean('withRetriesLeft'), 'j.failed_at is null')
    .when(q.boolean('noRetriesLeft'), 'j.failed_at is not null')
    .when(q.boolean('withException'), 'j.last_error is not null')
    .add('j.last_error = $', q.string('exceptionMessage'))
    .when(q.boolean('timers'), "j.kind = 'timer'")
    .when(q.boolean('messages'), "j.kind = 'retry'")
    .when(q.boolean('executable'), 'j.failed_at is null and j.due_date <= now()')
    .when(q.boolean('suspended'), 'false');
  q.boolean('active');
  const definition = q.string('processDefinitionId');
  if (definition !== undefined) {
    const parts = parseDefinitionId(definition) ?? { key: definition, version: -1 };
    where.add('i.definition_key = $', parts.key).add('i.definition_version = $', parts.version);
  }
  // dueDates / createTimes: comma-separated gt_<date> / lt_<date> conditions.
  for (const [name, column] of [['dueDates', 'j.due_date'], ['createTimes', 'j.created']] as const) {
    for (const condition of q.list(name) ?? []) {
      const [operator, value] = [condition.slice(0, 2), condition.slice(3)];
      const date = condition.charAt(2) === '_' && value ? new QueryParams({ [name]: value }).date(name) : undefined;
      if ((operator !== 'gt' && operator !== 'lt') || !date) {
        throw invalidRequest(`Cannot set query parameter '${name}' to value '${condition}': use gt_<date> or lt_<date>`);
      }
      where.add(`${column} ${operator === 'gt' ? '>' : '<'} $`, date);
    }
  }
  return where;
}

/** GET /job (and POST, and /count): timers and service-task retries of the caller's cases. */
export async function queryJobs(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const where = jobWhere(q);
  if (counting) {
    const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${JOB_FROM} ${where.sql}`, where.values);
    return { count: rows[0]!.count };
  }
  const order = q.sort(JOB_SORT, 'j.due_date, j.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<JobRow>(
    `select ${JOB_COLUMNS} ${JOB_FROM} ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map((j) => ({
    id: j.id,
    jobDefinitionId: `${j.definition_key}:${j.definition_version}:${j.activity_id}`,
    dueDate: camundaDate(j.due_date),
    processInstanceId: j.process_instance_id,
    executionId: j.execution_id,
    processDefinitionId: definitionId(j.definition_key, j.definition_version),
    processDefinitionKey: j.definition_key,
    retries: retriesLeft(j, ctx.host.maxAttempts),
    exceptionMessage: j.last_error,
    failedActivityId: j.last_error ? j.activity_id : null,
    suspended: false,
    priority: 0,
    tenantId: null,
    createTime: camundaDate(j.created),
    batchId: null,
    caseId: j.case_id,
  }));
}

const INCIDENT_SORT = {
  incidentId: 'j.id',
  incidentMessage: 'j.last_error',
  incidentTimestamp: 'j.failed_at',
  incidentType: 'j.kind',
  executionId: 'j.execution_id',
  activityId: 'j.activity_id',
  processInstanceId: 'j.process_instance_id',
  processDefinitionId: 'i.definition_key, i.definition_version',
};

/**
 * GET /incident (and /count): a job or external task that failed for good (failed_at) is an
 * incident: failedJob for a service-task retry, failedExternalTask for an external task.
 */
export async function queryIncidents(ctx: ReadContext, raw: Record<string, unknown>, counting = false) {
  const q = new QueryParams(raw);
  const type = q.string('incidentType');
  if (type !== undefined && type !== 'failedJob' && type !== 'failedExternalTask') {
    // Other incident types exist in Camunda but never in Sanad: no row matches.
    return counting ? { count: 0 } : [];
  }
  const where = new Where()
    .when(true, 'j.failed_at is not null')
    .add('j.id = $::uuid', uuidOr(q.string('incidentId')))
    .add('j.kind = $', type === undefined ? undefined : type === 'failedJob' ? 'retry' : 'external')
    .add('j.last_error = $', q.string('incidentMessage'))
    .add('j.last_error like $', q.string('incidentMessageLike'))
    .add('j.process_instance_id = $::uuid', uuidOr(q.string('processInstanceId')))
    .add('j.execution_id = $', q.string('executionId'))
    .add('j.activity_id = $', q.string('activityId'))
    .add('j.activity_id = $', q.string('failedActivityId'))
    .add('i.definition_key = any ($::text[])', q.list('processDefinitionKeyIn'))
    .add('j.failed_at < $', q.date('incidentTimestampBefore'))
    .add('j.failed_at > $', q.date('incidentTimestampAfter'))
    .add('j.case_id::text = $', q.string('caseId'));
  const definition = q.string('processDefinitionId');
  if (definition !== undefined) {
    const parts = parseDefinitionId(definition) ?? { key: definition, version: -1 };
    where.add('i.definition_key = $', parts.key).add('i.definition_version = $', parts.version);
  }
  if (counting) {
    const { rows } = await ctx.sql.query<{ count: number }>(`select count(*)::integer as count ${JOB_FROM} ${where.sql}`, where.values);
    return { count: rows[0]!.count };
  }
  const order = q.sort(INCIDENT_SORT, 'j.failed_at, j.id');
  const { offset, limit } = q.page();
  const { rows } = await ctx.sql.query<JobRow>(
    `select ${JOB_COLUMNS} ${JOB_FROM} ${where.sql} order by ${order} offset ${where.param(offset)} limit ${where.param(limit)}`,
    where.values,
  );
  return rows.map((j) => ({
    id: j.id,
    processDefinitionId: definitionId(j.definition_key, j.definition_version),
    processInstanceId: j.process_instance_id,
    executionId: j.execution_id,
    incidentTimestamp: camundaDate(j.failed_at),
    incidentType: j.kind === 'external' ? 'failedExternalTask' : 'failedJob',
    activityId: j.activity_id,
    failedActivityId: j.activity_id,
    causeIncidentId: j.id,
    rootCauseIncidentId: j.id,
    configuration: j.id,
    tenantId: null,
    incidentMessage: j.last_error,
    jobDefinitionId: j.kind === 'external' ? null : `${j.definition_key}:${j.definition_version}:${j.activity_id}`,
    annotation: null,
    caseId: j.case_id,
  }));
}
