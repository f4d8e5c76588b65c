/**
 * Camunda external tasks (issue 29): a service task whose topic a trial lists in
 * app_private.workflow_external_topics waits as an external-task job (kind 'external', 0280)
 * until a worker fetches, locks and completes it. Each call runs as the request role and calls
 * one security definer function of 0280 that asks the external-task rule of the topic and the
 * worker's lock; a refusal writes nothing. A completion keeps the worker's variables and makes the
 * job due, so the scheduler runs the step like any timer (one job system, no second loop).
 */
import type pg from 'pg';
import { withUser } from '../db/transaction';
import { camundaDate } from './camunda-query';
import { checkCallVariables, type CommandContext } from './commands';
import { CamundaError, forbidden, invalidRequest, notFound } from './errors';
import type { WorkflowHost } from './host';
import { parseTypedVariables, type TypedVariables } from './variables';

/** Camunda's limit on long polling (FetchAndLockHandlerImpl). */
export const MAX_ASYNC_RESPONSE_TIMEOUT = 1_800_000;
/** How often a long poll looks again for a task. */
const POLL_MS = 500;
/** Variables the server owns in every process: a worker never sets them. */
const SERVER_VARIABLES = new Set(['caseId', 'timeZone']);

export interface FetchTopic {
  topicName: string;
  lockDuration: number;
  variables: string[] | null;
  processDefinitionKey: string | null;
  businessKey: string | null;
}

export interface FetchInput {
  workerId: string;
  maxTasks: number;
  usePriority: boolean;
  asyncResponseTimeout: number | null;
  topics: FetchTopic[];
}

const text = (value: unknown, name: string, required = true): string | null => {
  if (value === undefined || value === null) {
    if (required) throw invalidRequest(`${name} is required.`);
    return null;
  }
  if (typeof value !== 'string' || value === '') throw invalidRequest(`${name} must be a non-empty string.`);
  return value;
};

const wholeNumber = (value: unknown, name: string, fallback: number | null): number | null => {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidRequest(`${name} must be a whole number of at least 0.`);
  return value;
};

/** Reads Camunda's FetchExternalTasksDto; anything a worker could not mean is a 400. */
export function parseFetch(body: Record<string, unknown> | null | undefined): FetchInput {
  if (!body || typeof body !== 'object') throw invalidRequest('The request body must be a JSON object with workerId, maxTasks and topics.');
  const workerId = text(body.workerId, 'workerId')!;
  const maxTasks = wholeNumber(body.maxTasks, 'maxTasks', null);
  if (maxTasks === null) throw invalidRequest('maxTasks is required.');
  const timeout = wholeNumber(body.asyncResponseTimeout, 'asyncResponseTimeout', null);
  if (timeout !== null && timeout > MAX_ASYNC_RESPONSE_TIMEOUT) {
    throw invalidRequest(`The asynchronous response timeout cannot be set to a value greater than ${MAX_ASYNC_RESPONSE_TIMEOUT} milliseconds`);
  }
  if (!Array.isArray(body.topics)) throw invalidRequest('topics must be a list of {topicName, lockDuration}.');
  const topics = body.topics.map((raw: unknown, index: number): FetchTopic => {
    if (!raw || typeof raw !== 'object') throw invalidRequest(`topics[${index}] must be an object.`);
    const topic = raw as Record<string, unknown>;
    const topicName = text(topic.topicName, `topics[${index}].topicName`)!;
    const lockDuration = wholeNumber(topic.lockDuration, `topics[${index}].lockDuration`, null);
    if (lockDuration === null || lockDuration === 0) throw invalidRequest(`topics[${index}].lockDuration must be a positive number of milliseconds.`);
    for (const unsupported of ['tenantIdIn', 'processDefinitionId', 'processDefinitionIdIn', 'processDefinitionKeyIn', 'processDefinitionVersionTag', 'processVariables']) {
      const value = topic[unsupported];
      if (value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && Object.keys(value).length === 0)) {
        throw invalidRequest(`topics[${index}].${unsupported} is not supported by this server.`);
      }
    }
    const variables = topic.variables;
    if (variables !== undefined && variables !== null && (!Array.isArray(variables) || variables.some((v) => typeof v !== 'string'))) {
      throw invalidRequest(`topics[${index}].variables must be a list of variable names.`);
    }
    return {
      topicName,
      lockDuration,
      variables: (variables as string[] | undefined) ?? null,
      processDefinitionKey: text(topic.processDefinitionKey, `topics[${index}].processDefinitionKey`, false),
      businessKey: text(topic.businessKey, `topics[${index}].businessKey`, false),
    };
  });
  return { workerId, maxTasks, usePriority: body.usePriority === true, asyncResponseTimeout: timeout, topics };
}

interface LockedRow {
  id: string;
  topic: string;
  lock_expiration: Date;
  activity_id: string;
  execution_id: string;
  process_instance_id: string;
  definition_key: string;
  definition_version: number;
  business_key: string | null;
  case_id: string;
  retries: number | null;
  error_message: string | null;
  created: Date;
  variables: TypedVariables;
}

/** Camunda's LockedExternalTaskDto (7.21), with Sanad's caseId. */
function lockedDto(row: LockedRow, workerId: string) {
  return {
    activityId: row.activity_id,
    activityInstanceId: row.execution_id,
    errorMessage: row.error_message,
    errorDetails: null,
    executionId: row.execution_id,
    id: row.id,
    lockExpirationTime: camundaDate(row.lock_expiration),
    createTime: camundaDate(row.created),
    processDefinitionId: `${row.definition_key}:${row.definition_version}`,
    processDefinitionKey: row.definition_key,
    processDefinitionVersionTag: null,
    processInstanceId: row.process_instance_id,
    tenantId: null,
    retries: row.retries,
    suspended: false,
    workerId,
    priority: 0,
    topicName: row.topic,
    businessKey: row.business_key,
    variables: row.variables,
    extensionProperties: {},
    caseId: row.case_id,
  };
}

/** One look for tasks: locks what the caller may run, in one transaction. */
export async function fetchAndLockOnce(ctx: CommandContext, input: FetchInput) {
  const topics = input.topics.map((t) => ({
    topic_name: t.topicName,
    lock_duration: t.lockDuration,
    variables: t.variables,
    process_definition_key: t.processDefinitionKey,
    business_key: t.businessKey,
  }));
  const { rows } = await ctx.sql.query<LockedRow>('select * from app_hidden.workflow_fetch_and_lock($1, $2, $3, $4)', [
    input.workerId,
    input.maxTasks,
    JSON.stringify(topics),
    input.usePriority,
  ]);
  return rows.map((row) => lockedDto(row, input.workerId));
}

/**
 * POST /external-task/fetchAndLock: with asyncResponseTimeout, looks again every POLL_MS until a
 * task is locked, the time is up, or the client went away (Camunda's long polling).
 */
export async function fetchAndLock(
  pool: pg.Pool,
  host: WorkflowHost,
  userId: string,
  input: FetchInput,
  gone: () => boolean,
): Promise<ReturnType<typeof lockedDto>[]> {
  const until = Date.now() + (input.asyncResponseTimeout ?? 0);
  for (;;) {
    const locked = input.maxTasks === 0 ? [] : await withUser(pool, { userId }, (sql) => fetchAndLockOnce({ sql, host, userId }, input));
    const left = until - Date.now();
    if (locked.length > 0 || left <= 0 || gone()) return locked;
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
  }
}

/** The answer of a function of 0280 as Camunda's error. */
function raise(verdict: string, taskId: string): void {
  if (verdict === 'ok') return;
  if (verdict === 'not found') throw notFound(`External task with id ${taskId} does not exist`);
  if (verdict.startsWith('refused: ')) throw forbidden(verdict.slice('refused: '.length));
  if (verdict.startsWith('lock: ')) throw new CamundaError(400, 'BadUserRequestException', verdict.slice('lock: '.length));
  throw new Error(`unexpected answer ${verdict}`);
}

/** The variables the rule of the task's topic lets a worker send; null: any. */
async function allowedVariables(ctx: CommandContext, taskId: string) {
  const { rows } = await ctx.sql.query<{ variables: Record<string, string> | null; topic: string }>(
    `select j.topic, d.variables from app_public.workflow_jobs j join app_public.workflow_instances i on i.id = j.process_instance_id
       cross join lateral app_hidden.workflow_decide(i.definition_key, 'external-task', j.topic, j.case_id) d
      where j.id = $1 and j.kind = 'external'`,
    [taskId],
  );
  return rows[0];
}

function refuseLocalVariables(body: Record<string, unknown>): void {
  const local = body.localVariables;
  if (local && typeof local === 'object' && Object.keys(local).length > 0) {
    throw invalidRequest('localVariables are not supported by this server: a service task has no variables of its own; send variables.');
  }
}

/** POST /external-task/{id}/complete {workerId, variables}: the worker that holds the lock. */
export async function completeExternalTask(ctx: CommandContext, taskId: string, body: Record<string, unknown>): Promise<void> {
  const workerId = text(body.workerId, 'workerId')!;
  refuseLocalVariables(body);
  const variables = parseTypedVariables(body.variables);
  for (const name of Object.keys(variables)) {
    if (SERVER_VARIABLES.has(name)) throw invalidRequest(`The variable '${name}' belongs to the server; a worker cannot set it.`);
  }
  const rule = await allowedVariables(ctx, taskId);
  if (rule) checkCallVariables(`The external task '${rule.topic}'`, rule.variables, variables);
  const { rows } = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_external_complete($1, $2, $3) as verdict', [
    taskId,
    workerId,
    JSON.stringify(variables),
  ]);
  raise(rows[0]!.verdict, taskId);
}

/** POST /external-task/{id}/failure {workerId, errorMessage, retries, retryTimeout}. */
export async function failExternalTask(ctx: CommandContext, taskId: string, body: Record<string, unknown>): Promise<void> {
  const workerId = text(body.workerId, 'workerId')!;
  refuseLocalVariables(body);
  const variables = body.variables;
  if (variables && typeof variables === 'object' && Object.keys(variables).length > 0) {
    throw invalidRequest('variables on a failure are not supported by this server; send them with the completion.');
  }
  const message = body.errorMessage === undefined || body.errorMessage === null ? null : String(body.errorMessage);
  const retries = wholeNumber(body.retries, 'retries', 0)!;
  const retryTimeout = wholeNumber(body.retryTimeout, 'retryTimeout', 0)!;
  const { rows } = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_external_failure($1, $2, $3, $4, $5) as verdict', [
    taskId,
    workerId,
    message,
    retries,
    retryTimeout,
  ]);
  raise(rows[0]!.verdict, taskId);
}

/** POST /external-task/{id}/extendLock {workerId, newDuration}. */
export async function extendExternalLock(ctx: CommandContext, taskId: string, body: Record<string, unknown>): Promise<void> {
  const workerId = text(body.workerId, 'workerId')!;
  const duration = wholeNumber(body.newDuration, 'newDuration', null);
  if (duration === null || duration === 0) throw invalidRequest('newDuration must be a positive number of milliseconds.');
  const { rows } = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_external_lock($1, $2, $3) as verdict', [taskId, workerId, duration]);
  raise(rows[0]!.verdict, taskId);
}

/** POST /external-task/{id}/unlock: gives the task back to the topic's queue. */
export async function unlockExternalTask(ctx: CommandContext, taskId: string): Promise<void> {
  const { rows } = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_external_lock($1, null, null) as verdict', [taskId]);
  raise(rows[0]!.verdict, taskId);
}

/**
 * POST /external-task/{id}/bpmnError: the processes have no error events to catch it, so the
 * call is refused after the same checks as a completion (a worker reports a failure instead).
 */
export async function bpmnErrorExternalTask(ctx: CommandContext, taskId: string, body: Record<string, unknown>): Promise<void> {
  const workerId = text(body.workerId, 'workerId')!;
  const { rows } = await ctx.sql.query<{ verdict: string }>('select verdict from app_hidden.workflow_external_check($1, $2, true)', [taskId, workerId]);
  raise(rows[0]!.verdict, taskId);
  throw invalidRequest('BPMN errors are not supported: the processes have no error events to catch one. Report a failure instead.');
}
