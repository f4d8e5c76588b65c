/**
 * Closing the task "respond to a risk answer" (workflows/safety.bpmn safetySignalTask, issue 26):
 * it closes only with a recorded call (linked to the risk answer, or recorded on the case since)
 * or a documented reason (`closingReason`). The rule is SQL's
 * (app_hidden.document_safety_task_closing, db/migrations/0130), run here as the request role in
 * the submit-form transaction before the step, so a refusal changes nothing; a trigger on the
 * completed task checks it again for every other path.
 */
import type { Sql } from '../db/transaction';
import type { FormField } from '../workflow/definitions';
import { invalidRequest } from '../workflow/errors';
import type { TypedVariables } from '../workflow/variables';

/** The field a risk task takes even when its process version declared no form (before 0130). */
export const SAFETY_CLOSING_FIELDS: FormField[] = [{ id: 'closingReason', label: 'Reason for closing without a call', type: 'string' }];

const REFUSALS: Record<string, string> = {
  SAFETY_TASK_NEEDS_CALL_OR_REASON: 'This risk task closes only with a recorded call or a documented reason: record the call from the task, or give the reason (closingReason).',
  SAFETY_TASK_NOT_YOURS: 'This safety task is for other people of the case.',
  CLOSING_REASON_TOO_LONG: 'The reason is too long (at most 4000 characters).',
};

export async function closeSafetySignalTask(sql: Sql, task: { taskId: string; submitted: TypedVariables }): Promise<TypedVariables> {
  const reason = task.submitted.closingReason?.value;
  const { rows } = await sql.query<{ refusal: string | null }>('select app_hidden.document_safety_task_closing($1, $2) as refusal', [
    task.taskId,
    typeof reason === 'string' ? reason : null,
  ]);
  const refusal = rows[0]?.refusal;
  if (refusal) throw invalidRequest(REFUSALS[refusal] ?? refusal, refusal);
  return {};
}
