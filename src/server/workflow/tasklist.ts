/**
 * The tasklist calls beyond completing a task (issue 29): claim, unclaim, and reading and
 * writing a task's variables. Each runs as the request role and calls one security definer
 * function of 0280, which asks the rule table of 0020 and writes only when it allows: a refusal
 * writes nothing. Answers and errors in Camunda's shapes.
 */
import { CamundaError, forbidden, invalidRequest, notFound } from './errors';
import { checkFormVariables, type CommandContext } from './commands';
import type { FormField } from './definitions';
import { refuseServerOnlyTask, TASK_COMPLETION_HOOKS } from './task-hooks';
import type { TypedVariables } from './variables';

/** What the SQL functions answer: 'ok', 'not found', 'refused: <note>', or a function's own. */
function raise(verdict: string, taskId: string): void {
  if (verdict === 'ok') return;
  if (verdict === 'not found') throw notFound(`Cannot find task with id ${taskId}: it does not exist or is no longer open.`);
  if (verdict.startsWith('refused: ')) throw forbidden(verdict.slice('refused: '.length));
  if (verdict === 'claimed by another person') {
    throw new CamundaError(400, 'TaskAlreadyClaimedException', `Task '${taskId}' is already claimed by someone else.`);
  }
  if (verdict.startsWith('undeclared: ')) throw invalidRequest(`The task ${taskId} has no form field '${verdict.slice('undeclared: '.length)}'.`);
  throw new Error(`unexpected answer ${verdict}`);
}

/**
 * POST /task/{id}/claim {userId}: a person claims a task for themselves. The userId names the
 * caller (their account id or user name); a claim for someone else is refused, since nothing a
 * client sends may name who acts.
 */
export async function claimTask(ctx: CommandContext, taskId: string, claimant: string): Promise<void> {
  const { rows } = await ctx.sql.query<{ me: boolean }>(
    `select exists (select 1 from app_public.users u where u.id = $1 and (u.id::text = $2 or u.username = $2)) as me`,
    [ctx.userId, claimant],
  );
  if (!rows[0]!.me) throw forbidden('You can claim a task only for yourself: send your own user id.');
  const answer = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_claim_task($1, true) as verdict', [taskId]);
  raise(answer.rows[0]!.verdict, taskId);
}

/** POST /task/{id}/unclaim: the assignee gives the task back to its group (or a coordinator does). */
export async function unclaimTask(ctx: CommandContext, taskId: string): Promise<void> {
  const answer = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_claim_task($1, false) as verdict', [taskId]);
  raise(answer.rows[0]!.verdict, taskId);
}

/**
 * GET /task/{id}/variables: all process variables for the people who may read them
 * (read-variables), the task's own form fields for everyone else who sees the task.
 */
export async function readTaskVariables(ctx: CommandContext, taskId: string, names?: string[]): Promise<TypedVariables> {
  const { rows } = await ctx.sql.query<{ variables: TypedVariables | null }>('select app_hidden.workflow_task_variables($1) as variables', [taskId]);
  const variables = rows[0]?.variables;
  if (!variables) throw notFound(`task ${taskId} doesn't exist`);
  if (!names) return variables;
  return Object.fromEntries(Object.entries(variables).filter(([name]) => names.includes(name)));
}

/**
 * POST /task/{id}/variables {modifications, deletions} and PUT /task/{id}/variables/{name}: who
 * may complete the task fills in its declared form fields ahead of completing it; each value is
 * checked against its field. Deleting a variable is not supported (a form field is cleared by
 * setting it to null).
 */
export async function setTaskVariables(ctx: CommandContext, taskId: string, modifications: TypedVariables, deletions: string[]): Promise<void> {
  if (deletions.length > 0) throw invalidRequest('Deleting task variables is not supported by this server; set a form field to null to clear it.');
  const { rows } = await ctx.sql.query<{ task_definition_key: string; form_fields: FormField[] }>(
    'select task_definition_key, form_fields from app_public.workflow_tasks where id = $1 and end_time is null',
    [taskId],
  );
  const task = rows[0];
  if (!task) throw notFound(`Cannot find task with id ${taskId}: it does not exist or is no longer open.`);
  // The values the server sets itself (the interview outcome, the drawn treatment, the assigned
  // therapist, a safety task's closing) are taken only when the task is completed, through its door.
  refuseServerOnlyTask(task.task_definition_key);
  if (TASK_COMPLETION_HOOKS[task.task_definition_key]) {
    throw invalidRequest(`The form of task ${taskId} is checked when it is completed: send its values with the completion.`);
  }
  checkFormVariables(taskId, task.form_fields, modifications, { undeclared: 'refuse' });
  const answer = await ctx.sql.query<{ verdict: string }>('select app_hidden.workflow_set_task_variables($1, $2) as verdict', [
    taskId,
    JSON.stringify(modifications),
  ]);
  raise(answer.rows[0]!.verdict, taskId);
}
