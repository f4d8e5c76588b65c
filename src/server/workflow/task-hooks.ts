/**
 * Values a user task takes from the server when it is completed, never from the submitted form:
 * keyed by the task's id in the BPMN file (task_definition_key). A hook runs as the request
 * role inside the submit-form transaction, before the step, so its writes commit with the step
 * or not at all, and row-level security and the SQL functions decide who may.
 *
 * randomizeTask (workflows/trial.bpmn, "Randomize the patient"): the treatment is drawn from the
 * trial's concealed allocation (issue 15, app_public.randomize_case), or the case's existing
 * assignment is used when a coordinator already drew it on the trial page. A hand-picked
 * `treatment` in the form is refused.
 */
import type { Sql } from '../db/transaction';
import { treatmentForTask } from '../trial/routes';
import { invalidRequest } from './errors';
import type { TypedVariables } from './variables';

export type TaskCompletionHook = (sql: Sql, task: { caseId: string; submitted: TypedVariables }) => Promise<TypedVariables>;

const randomizeTask: TaskCompletionHook = async (sql, { caseId, submitted }) => {
  if (submitted.treatment !== undefined) {
    throw invalidRequest('The treatment is drawn from the concealed allocation; submit the task without a treatment.');
  }
  return { treatment: { value: await treatmentForTask(sql, caseId), type: 'String' } };
};

export const TASK_COMPLETION_HOOKS: Record<string, TaskCompletionHook> = { randomizeTask };

/**
 * Tasks that end with another one (issue 25). The patient's "work through the treatment
 * sessions" (patientTreatmentTask) runs beside the therapist's "close the treatment"
 * (therapistTreatmentTask) and the treatment ends when both are done; the patient does the
 * sessions' work in the worksheets and letters, and no act of theirs marks the treatment as
 * complete. So when the therapist closes the treatment, the patient's task completes with it
 * (by the server, in the same transaction), and nobody has to close it by hand.
 */
export const TASKS_COMPLETED_WITH: Record<string, readonly string[]> = {
  therapistTreatmentTask: ['patientTreatmentTask'],
};
