/**
 * The named commands behind the Camunda REST routes: each asks "may this person do this to this
 * case?" (app_hidden.workflow_decide, db/migrations/0020), checks what the call carries, and only
 * then runs the step. Every command begins in a transaction opened as the request role
 * (withUser), so row-level security decides what exists for the caller; `becomeOwner` drops the
 * role before the host writes. A refusal throws before anything is written, and the transaction
 * rolls back anyway, so a refused call changes nothing.
 *
 * Server features do not come through here as a person: they write app_hidden.notify_workflow
 * (messages) or call `completeTaskAsServer` below (a task the server completes itself).
 */
import type { Sql } from '../db/transaction';
import { CamundaError, forbidden, invalidRequest, notFound } from './errors';
import type { FormField } from './definitions';
import type { WorkflowHost } from './host';
import { refuseServerOnlyTask, TASK_COMPLETION_HOOKS, TASKS_COMPLETED_WITH, withServerFields } from './task-hooks';
import type { TypedVariables } from './variables';
import { SIGNED_TASKS, type SignedAct } from '../../domain/signatures';
import { HttpError } from '../http/errors';
import { recordSignature, requireSignature, storedRecord } from '../signing/service';

export interface CommandContext {
  sql: Sql;
  host: WorkflowHost;
  /** The signed-in person (verified token). */
  userId: string;
  /** The signing token the request carried (header sanad-signature), for the signed tasks. */
  signature?: unknown;
}

/** Leaves the request role: what follows runs as the owner, in the same transaction. */
export async function becomeOwner(sql: Sql): Promise<void> {
  await sql.query('set local role none');
}

/** What a call may carry: {name: Camunda type}; null means anything. */
type AllowedVariables = Record<string, string> | null;

/** Refuses variables a call may not carry (400, before any step). */
export function checkCallVariables(what: string, allowed: AllowedVariables, variables: TypedVariables): void {
  if (allowed === null) return;
  const names = Object.keys(allowed);
  for (const [name, value] of Object.entries(variables)) {
    const type = allowed[name];
    if (!type) {
      throw invalidRequest(
        names.length === 0
          ? `${what} carries no variables; '${name}' cannot be set this way.`
          : `${what} accepts only the variables ${names.join(', ')}; '${name}' cannot be set this way.`,
      );
    }
    if (value.type !== type && value.type !== 'Null') throw invalidRequest(`The variable '${name}' of ${what} must be a ${type}.`);
  }
}

/**
 * A task form accepts exactly the fields its task declares (camunda:formData), each of its
 * type: no process setting (treatmentDuration, fu1After, …) can be written through a form.
 */
export function checkFormVariables(taskId: string, fields: FormField[], variables: TypedVariables, options: { undeclared: 'refuse' | 'allow' }): void {
  const declared = new Map(fields.map((f) => [f.id, f]));
  for (const name of Object.keys(variables)) {
    if (!declared.has(name) && options.undeclared === 'refuse') {
      throw invalidRequest(
        fields.length === 0
          ? `The task ${taskId} has no form fields; '${name}' cannot be set through it.`
          : `The task ${taskId} accepts only the fields ${fields.map((f) => f.id).join(', ')}; '${name}' cannot be set through it.`,
      );
    }
  }
  for (const field of fields) {
    const submitted = variables[field.id];
    if (!submitted || submitted.value === null) continue;
    const value = submitted.value;
    if (field.type === 'enum' && field.values && !field.values.some((v) => v.id === value)) {
      throw invalidRequest(`The value '${String(value)}' of '${field.id}' is not one of: ${field.values.map((v) => v.id).join(', ')}.`);
    }
    if (field.type === 'boolean' && typeof value !== 'boolean') throw invalidRequest(`'${field.id}' must be a Boolean.`);
    if (field.type === 'long' && !Number.isInteger(value)) throw invalidRequest(`'${field.id}' must be a whole number.`);
    if ((field.type === 'string' || field.type === 'enum') && typeof value !== 'string') throw invalidRequest(`'${field.id}' must be a String.`);
    if (field.type === 'date' && submitted.type !== 'Date') throw invalidRequest(`'${field.id}' must be a Date.`);
  }
}

interface Decision {
  allowed: boolean;
  variables: AllowedVariables;
  note: string;
}

/** The decision's columns; its function is joined once per row as `d` (cross join lateral). */
const DECISION_COLUMNS = 'd.allowed, d.variables, d.note';
const decide = (args: string) => `cross join lateral app_hidden.workflow_decide(${args}) d`;

// Start -----------------------------------------------------------------------------------------------

export interface StartInput {
  key: string;
  caseId: string;
  businessKey: string | null;
  variables: TypedVariables;
}

export interface StartedInstance {
  id: string;
  definitionId: string;
  businessKey: string | null;
  ended: boolean;
  caseId: string;
}

/** POST /process-definition/key/{key}/start: coordinators start processes by hand (0020). */
export async function startProcess(ctx: CommandContext, input: StartInput): Promise<StartedInstance> {
  const { sql, host } = ctx;
  const { rows } = await sql.query<Decision & { visible: boolean }>(
    `select exists (select 1 from app_public.cases where id = $1) as visible, ${DECISION_COLUMNS}
       from app_hidden.workflow_decide($2, 'start', '*', $1) d`,
    [input.caseId, input.key],
  );
  const decision = rows[0]!;
  await becomeOwner(sql);
  const definition = await host.latestDefinition(sql, input.key);
  if (!definition) throw notFound(`No matching process definition with key: ${input.key}`);
  if (!decision.visible) throw forbidden(`You are not a member of the case ${input.caseId}.`);
  if (!decision.allowed) throw forbidden(decision.note);
  checkCallVariables(`The start of '${input.key}'`, decision.variables, input.variables);
  const started = await host.startInTx(sql, input);
  return {
    id: started.id,
    definitionId: `${definition.key}:${definition.version}`,
    businessKey: input.businessKey,
    ended: started.outcome.state === 'COMPLETED',
    caseId: input.caseId,
  };
}

// Messages ----------------------------------------------------------------------------------------------

export interface MessageInput {
  messageName: string;
  businessKey?: string | undefined;
  processInstanceId?: string | undefined;
  correlationKeys: TypedVariables;
  processVariables: TypedVariables;
  all: boolean;
}

export interface MessageResult {
  processInstanceId: string;
  ended: boolean;
}

/**
 * POST /message: people send only the messages their role may send in the case (0020: staff
 * `dropout`, interviewers `offerCanceled`/`offerRescheduled`); the messages the server's
 * features send (screeningCompleted, interviewBooked, …MeasurementCompleted) are refused. The
 * message goes to the waiting instances of the cases where the caller may send it.
 */
export async function correlateMessage(ctx: CommandContext, input: MessageInput): Promise<MessageResult[]> {
  const { sql, host } = ctx;
  const { rows } = await sql.query<Decision & { id: string; refusal: string | null }>(
    `with refusal as (select app_hidden.workflow_refusal_anywhere('message', $1) as refusal)
     select refusal.refusal, i.id, ${DECISION_COLUMNS}
       from refusal
       left join app_public.workflow_instances i
         on refusal.refusal is null and i.state = 'ACTIVE' and $1 = any (i.waiting_messages)
        and ($2::text is null or i.business_key = $2) and ($3::text is null or i.id::text = $3)
       left join lateral app_hidden.workflow_decide(i.definition_key, 'message', $1, i.case_id) d on i.id is not null
      order by i.start_time`,
    [input.messageName, input.businessKey ?? null, input.processInstanceId ?? null],
  );
  const refusal = rows[0]?.refusal;
  if (refusal) throw forbidden(refusal);
  const waiting = rows.filter((row) => row.id !== null);
  if (input.processInstanceId && waiting.some((row) => !row.allowed)) throw forbidden(waiting.find((row) => !row.allowed)!.note);
  const candidates = waiting.filter((row) => row.allowed);
  for (const candidate of candidates) checkCallVariables(`The message '${input.messageName}'`, candidate.variables, input.processVariables);
  await becomeOwner(sql);
  const matched = await host.correlateInTx(sql, {
    messageName: input.messageName,
    businessKey: input.businessKey,
    processInstanceId: input.processInstanceId,
    correlationKeys: input.correlationKeys,
    variables: input.processVariables,
    candidates: input.all ? candidates : candidates.slice(0, 2),
  });
  if (input.messageName === 'dropout') await recordDropouts(sql, matched, input.processVariables);
  if (!input.all && matched.length !== 1) {
    throw new CamundaError(
      400,
      'MismatchingMessageCorrelationException',
      matched.length === 0
        ? `Cannot correlate message '${input.messageName}': No process definition or execution matches the parameters`
        : `Cannot correlate message '${input.messageName}': More than one execution matches the parameters`,
    );
  }
  return matched;
}

/**
 * A dropout a person sent ends the treatment in the process; the case is marked a dropout with
 * the sender's reason and the change recorded (0095), once per case however many of its
 * processes the message reached.
 */
async function recordDropouts(sql: Sql, matched: readonly MessageResult[], variables: TypedVariables): Promise<void> {
  if (matched.length === 0) return;
  const askForPost = variables.askForPostIfDroppedOut?.value === true;
  const reason = typeof variables.dropoutReason?.value === 'string' ? variables.dropoutReason.value : null;
  await sql.query(
    `select app_hidden.record_dropout_message(c.case_id, $2, $3, app_public.current_user_id())
       from (select distinct i.case_id from app_public.workflow_instances i where i.id = any ($1::uuid[])) c`,
    [matched.map((m) => m.processInstanceId), askForPost, reason],
  );
}

// Signals -------------------------------------------------------------------------------------------------

export interface SignalInput {
  name: string;
  executionId?: string | undefined;
  variables: TypedVariables;
}

/** POST /signal: a signal reaches every waiting instance, so only coordinators send one (0020). */
export async function throwSignal(ctx: CommandContext, input: SignalInput): Promise<MessageResult[]> {
  const { sql, host } = ctx;
  const { rows } = await sql.query<Decision & { id: string; refusal: string | null }>(
    `with refusal as (select app_hidden.workflow_refusal_anywhere('signal', $1) as refusal)
     select refusal.refusal, i.id, ${DECISION_COLUMNS}
       from refusal
       left join app_public.workflow_instances i
         on refusal.refusal is null and i.state = 'ACTIVE' and $1 = any (i.waiting_signals)
        and ($2::text is null or $2 = any (i.waiting_executions))
       left join lateral app_hidden.workflow_decide(i.definition_key, 'signal', $1, i.case_id) d on i.id is not null
      order by i.start_time`,
    [input.name, input.executionId ?? null],
  );
  const refusal = rows[0]?.refusal;
  if (refusal) throw forbidden(refusal);
  const candidates = rows.filter((row) => row.id !== null && row.allowed);
  for (const candidate of candidates) checkCallVariables(`The signal '${input.name}'`, candidate.variables, input.variables);
  await becomeOwner(sql);
  const signaled: MessageResult[] = [];
  for (const candidate of candidates) {
    const outcome = await host.stepInTx(sql, candidate.id, { kind: 'signal', signalName: input.name, variables: input.variables });
    if (outcome?.matched) signaled.push({ processInstanceId: candidate.id, ended: outcome.state === 'COMPLETED' });
  }
  return signaled;
}

// Process instances ------------------------------------------------------------------------------------------

/** Reads an active instance the caller sees, with the decision on one action; 404 / 403 otherwise. */
async function decideOnInstance(sql: Sql, instanceId: string, action: string): Promise<Decision> {
  const { rows } = await sql.query<Decision>(
    `select ${DECISION_COLUMNS}
       from app_public.workflow_instances i ${decide(`i.definition_key, '${action}', '*', i.case_id`)}
      where i.id = $1 and i.state = 'ACTIVE'`,
    [instanceId],
  );
  const decision = rows[0];
  if (!decision) throw notFound(`Process instance with id ${instanceId} does not exist`);
  if (!decision.allowed) throw forbidden(decision.note);
  return decision;
}

/** DELETE /process-instance/{id}: coordinators cancel an instance (0020). */
export async function deleteProcessInstance(ctx: CommandContext, instanceId: string): Promise<void> {
  const { sql, host } = ctx;
  await decideOnInstance(sql, instanceId, 'delete');
  await becomeOwner(sql);
  if (!(await host.terminateInTx(sql, instanceId))) throw notFound(`Process instance with id ${instanceId} does not exist`);
}

/** GET /process-instance/{id}/variables: the care staff of the case and coordinators (0020). */
export async function readProcessVariables(ctx: CommandContext, instanceId: string): Promise<TypedVariables> {
  const { sql } = ctx;
  // Finished instances keep their variables: any state, unlike the commands that move one.
  const { rows } = await sql.query<Decision>(
    `select ${DECISION_COLUMNS}
       from app_public.workflow_instances i ${decide(`i.definition_key, 'read-variables', '*', i.case_id`)}
      where i.id = $1`,
    [instanceId],
  );
  const decision = rows[0];
  if (!decision) throw notFound(`Process instance with id ${instanceId} does not exist`);
  if (!decision.allowed) throw forbidden(decision.note);
  // The request role may not read the variables column (0014).
  await becomeOwner(sql);
  const found = await sql.query<{ variables: TypedVariables }>('select variables from app_public.workflow_instances where id = $1', [instanceId]);
  return found.rows[0]!.variables;
}

/** POST /execution/{id}/signal: moves a waiting execution by hand; coordinators (0020). */
export async function signalExecution(ctx: CommandContext, executionId: string, variables: TypedVariables): Promise<void> {
  const { sql, host } = ctx;
  const { rows } = await sql.query<Decision & { id: string }>(
    `select i.id, ${DECISION_COLUMNS}
       from app_public.workflow_instances i ${decide(`i.definition_key, 'signal-execution', '*', i.case_id`)}
      where i.state = 'ACTIVE' and $1 = any (i.waiting_executions)`,
    [executionId],
  );
  const instance = rows[0];
  if (!instance) throw notFound(`Cannot find execution with id '${executionId}'`);
  if (!instance.allowed) throw forbidden(instance.note);
  checkCallVariables(`The signal of execution '${executionId}'`, instance.variables, variables);
  await becomeOwner(sql);
  const outcome = await host.stepInTx(sql, instance.id, { kind: 'signalExecution', executionId, variables });
  if (!outcome?.matched) throw notFound(`Cannot find execution with id '${executionId}'`);
}

// Tasks -------------------------------------------------------------------------------------------------------

interface OpenTask {
  id: string;
  process_instance_id: string;
  execution_id: string;
  end_time: Date | null;
  form_fields: FormField[];
}

/**
 * POST /task/{id}/complete and /submit-form: the task's candidates, its assignee and
 * coordinators (0020; the questionnaire tasks are left to the questionnaires), with exactly the
 * fields the task's form declares.
 */
export async function completeTask(
  ctx: CommandContext,
  taskId: string,
  variables: TypedVariables,
  /** Camunda's wording of the call in errors: "complete task" or "submit task form". */
  call: 'complete task' | 'submit task form' = 'complete task',
): Promise<{ processInstanceId: string }> {
  const { sql, host, userId } = ctx;
  const { rows } = await sql.query<OpenTask & Decision & { task_definition_key: string; case_id: string }>(
    `select t.id, t.process_instance_id, t.execution_id, t.end_time, t.form_fields, t.task_definition_key, t.case_id, ${DECISION_COLUMNS}
       from app_public.workflow_tasks t join app_public.workflow_instances i on i.id = t.process_instance_id
            ${decide(`i.definition_key, 'complete-task', t.task_definition_key, t.case_id, t.candidate_groups, t.assignee`)}
      where t.id = $1`,
    [taskId],
  );
  const task = rows[0];
  if (!task || task.end_time) throw notFound(`Cannot ${call} ${taskId}: task ${taskId} does not exist or is no longer open`);
  if (!task.allowed) throw forbidden(`You may not complete the task ${taskId}: ${task.note}`);
  // Some tasks are no person's to complete (interviewTask: the signed report decides).
  refuseServerOnlyTask(task.task_definition_key);
  checkFormVariables(taskId, withServerFields(task.task_definition_key, task.form_fields), variables, { undeclared: 'refuse' });
  // Some tasks take a value from the server, never from the form (the drawn treatment of
  // randomizeTask, task-hooks.ts). The hook runs as the request role, before the step, so its
  // writes commit with the step or not at all.
  const hook = TASK_COMPLETION_HOOKS[task.task_definition_key];
  // Randomizing and closing a safety task are e-signatures (issue 30): checked after who may and
  // what the form carries, before the hook draws or documents anything; spent only if the
  // completion commits.
  const signedAct = SIGNED_TASKS[task.task_definition_key];
  if (signedAct) await requireTaskSignature(ctx, signedAct, task);
  if (hook) Object.assign(variables, await hook(sql, { taskId: task.id, caseId: task.case_id, submitted: variables }));
  await becomeOwner(sql);
  await runCompletion(sql, host, task, variables, userId, call);
  if (signedAct) await signTask(sql, userId, signedAct, task, variables);
  for (const companion of TASKS_COMPLETED_WITH[task.task_definition_key] ?? []) {
    await completeTaskAsServer(sql, host, { caseId: task.case_id, taskDefinitionKey: companion });
  }
  return { processInstanceId: task.process_instance_id };
}

/** The record a task's signature is bound to: the case for a randomization, else the task. */
function signedRecordOf(act: SignedAct, task: { id: string; case_id: string }): string {
  return act === 'randomize' ? task.case_id : task.id;
}

async function requireTaskSignature(ctx: CommandContext, act: SignedAct, task: { id: string; case_id: string }): Promise<void> {
  try {
    await requireSignature(ctx.sql, ctx.signature, { userId: ctx.userId, act, recordId: signedRecordOf(act, task) });
  } catch (error) {
    // The Camunda routes answer in Camunda's shape, with the code and what to sign.
    if (error instanceof HttpError) throw new CamundaError(error.statusCode, 'AuthorizationException', error.message, error.code, error.extra);
    throw error;
  }
}

/** The manifest of a signed task: the task as closed, with the drawn assignment of a randomization. */
async function signTask(sql: Sql, userId: string, act: SignedAct, task: { id: string; case_id: string }, variables: TypedVariables): Promise<void> {
  const content: Record<string, unknown> = { task: await storedRecord(sql, 'workflow_tasks', 'id', task.id), variables };
  if (act === 'randomize') content.assignment = await storedRecord(sql, 'treatment_assignments', 'case_id', task.case_id);
  await recordSignature(sql, { signerId: userId, act, caseId: task.case_id, recordId: signedRecordOf(act, task), content });
}

async function runCompletion(
  sql: Sql,
  host: WorkflowHost,
  task: OpenTask,
  variables: TypedVariables,
  userId: string | null,
  call = 'complete task',
): Promise<void> {
  const outcome = await host.stepInTx(sql, task.process_instance_id, { kind: 'completeTask', executionId: task.execution_id, variables, userId });
  if (!outcome?.matched) throw notFound(`Cannot ${call} ${task.id}: the task is no longer open`);
}

/**
 * A server feature completes a task itself (the interview report records the interviewer's
 * outcome, trial management draws the randomization): no person's policy applies, because the
 * feature has decided who may act before it calls this. Call it inside the feature's own
 * transaction as the owner (withOwner / withOwnerAs, or after becomeOwner). The task is found
 * by its case and task definition key (the open one) or by id; declared form fields are still
 * checked by type, and the server may set further variables. `completedBy` is recorded on the
 * task (null: the server). Returns false when no such task is open.
 */
export async function completeTaskAsServer(
  sql: Sql,
  host: WorkflowHost,
  input: ({ caseId: string; taskDefinitionKey: string } | { taskId: string }) & { variables?: TypedVariables; completedBy?: string | null },
): Promise<boolean> {
  const { rows } = await sql.query<OpenTask>(
    'taskId' in input
      ? `select id, process_instance_id, execution_id, end_time, form_fields from app_public.workflow_tasks where id = $1 and end_time is null`
      : `select id, process_instance_id, execution_id, end_time, form_fields from app_public.workflow_tasks
          where case_id = $1 and task_definition_key = $2 and end_time is null order by created limit 1`,
    'taskId' in input ? [input.taskId] : [input.caseId, input.taskDefinitionKey],
  );
  const task = rows[0];
  if (!task) return false;
  const variables = input.variables ?? {};
  checkFormVariables(task.id, task.form_fields, variables, { undeclared: 'allow' });
  await runCompletion(sql, host, task, variables, input.completedBy ?? null);
  return true;
}

// Jobs ----------------------------------------------------------------------------------------------------------

/** Reads a job the caller sees with the decision on one action, then locks its instance. */
async function lockJob(sql: Sql, jobId: string, action: 'move-job' | 'retry-job'): Promise<void> {
  const { rows } = await sql.query<Decision & { process_instance_id: string; kind: string }>(
    `select j.process_instance_id, j.kind, ${DECISION_COLUMNS}
       from app_public.workflow_jobs j join app_public.workflow_instances i on i.id = j.process_instance_id
            ${decide(`i.definition_key, '${action}', '*', j.case_id`)}
      where j.id = $1`,
    [jobId],
  );
  const job = rows[0];
  if (!job) throw notFound(`Job with id ${jobId} does not exist`);
  if (!job.allowed) throw forbidden(job.note);
  // An external task waits for its worker, not for a date (0280).
  if (job.kind === 'external' && action === 'move-job') throw invalidRequest(`Job ${jobId} is an external task: it has no due date to move.`);
  await becomeOwner(sql);
  // Jobs change only under their instance's lock.
  await sql.query('select 1 from app_public.workflow_instances where id = $1 for update', [job.process_instance_id]);
}

/** PUT /job/{id}/duedate: the therapists and supervisors of the case and coordinators (0020). */
export async function moveJob(ctx: CommandContext, jobId: string, due: Date): Promise<void> {
  await lockJob(ctx.sql, jobId, 'move-job');
  await ctx.sql.query('update app_public.workflow_jobs set due_date = $2 where id = $1', [jobId, due]);
}

/** PUT /job/{id}/retries: the care staff of the case and coordinators (0020). 0 marks it failed. */
export async function setJobRetries(ctx: CommandContext, jobId: string, retries: number): Promise<void> {
  const { sql, host } = ctx;
  await lockJob(sql, jobId, 'retry-job');
  await sql.query(
    `update app_public.workflow_jobs
        set failed_at = case when $2 = 0 then coalesce(failed_at, $3) end,
            attempts = case when $2 = 0 then attempts else greatest(0, $4 - $2) end,
            -- an external task becomes fetchable again; its due date stays infinity (0280)
            due_date = case when $2 = 0 or kind = 'external' then due_date else $3 end,
            retries = case when kind = 'external' then $2::integer end,
            lock_expiration = case when kind = 'external' then null::timestamptz else lock_expiration end,
            worker_id = case when kind = 'external' then null::text else worker_id end
      where id = $1`,
    [jobId, retries, host.clock.now(), host.maxAttempts],
  );
}
