/**
 * Values a user task takes from the server when it is completed, never from the submitted form:
 * keyed by the task's id in the BPMN file (task_definition_key). A hook runs as the request
 * role inside the submit-form transaction, before the step, so its writes commit with the step
 * or not at all, and row-level security and the SQL functions decide who may.
 *
 * randomizeTask (workflows/trial.bpmn, "Randomize the patient"): the treatment is drawn from the
 * trial's concealed allocation (issue 15, app_public.randomize_case), or the case's existing
 * assignment is used when a coordinator already drew it on the trial page. A hand-picked
 * `treatment` in the form is refused. The draw runs as the owner (the request role has no
 * direct door to it, 0150), after the person was allowed to complete this task.
 *
 * interviewTask (workflows/trial.bpmn, "Record the interview outcome"): no person completes it.
 * The outcome comes only from a signed interview report (src/server/reports/service.ts), which
 * completes the task as the server in the signing transaction. Older process versions still
 * declare an `outcome` form field; this refusal closes that door for them too.
 *
 * safetySignalTask (workflows/safety.bpmn, "Respond to a risk answer"): closes only with a
 * recorded call or a documented reason (src/server/safety/task-hooks.ts).
 *
 * assignTherapistTask (workflows/therapist-assignment.bpmn, "Assign a therapist"): the chosen
 * `therapist` joins the case through the one command app_hidden.assign_therapist (0215), as the
 * request role, so its refusals (not a coordinator, not a therapist account) change nothing.
 */
import type { Sql } from '../db/transaction';
import { closeSafetySignalTask, SAFETY_CLOSING_FIELDS } from '../safety/task-hooks';
import type { FormField } from './definitions';
import { treatmentForTask } from '../trial/routes';
import { forbidden, invalidRequest } from './errors';
import type { TypedVariables } from './variables';

export type TaskCompletionHook = (sql: Sql, task: { taskId: string; caseId: string; submitted: TypedVariables }) => Promise<TypedVariables>;

const randomizeTask: TaskCompletionHook = async (sql, { caseId, submitted }) => {
  if (submitted.treatment !== undefined) {
    throw invalidRequest('The treatment is drawn from the concealed allocation; submit the task without a treatment.');
  }
  return { treatment: { value: await treatmentForTask(sql, caseId), type: 'String' } };
};

const assignTherapistTask: TaskCompletionHook = async (sql, { caseId, submitted }) => {
  const therapist = submitted.therapist?.value;
  if (typeof therapist !== 'string' || !UUID.test(therapist)) {
    throw invalidRequest('Choose the therapist: give the id of a therapist account as `therapist`.', 'not_a_therapist');
  }
  await sql.query('select app_hidden.assign_therapist($1, $2)', [caseId, therapist]);
  return {};
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const TASK_COMPLETION_HOOKS: Record<string, TaskCompletionHook> = { randomizeTask, safetySignalTask: closeSafetySignalTask, assignTherapistTask };

/**
 * Fields a task takes whatever its process version declared (safetySignalTask's closingReason,
 * added to workflows/safety.bpmn with issue 26, so tasks opened before can be closed with a reason).
 */
const SERVER_FIELDS: Record<string, FormField[]> = { safetySignalTask: SAFETY_CLOSING_FIELDS };

export function withServerFields(taskKey: string, declared: FormField[]): FormField[] {
  const extra = (SERVER_FIELDS[taskKey] ?? []).filter((field) => !declared.some((d) => d.id === field.id));
  return extra.length ? [...declared, ...extra] : declared;
}

/** Tasks only a server feature completes (completeTaskAsServer), with the reason a person is told. */
const SERVER_ONLY_TASKS: Record<string, string> = {
  interviewTask: 'The interview outcome is recorded by signing the interview report; this task closes when the report is signed.',
  // workflows/counseling.bpmn: the counselor is assigned on the counseling panel (one command,
  // app_hidden.assign_counselor), and the closing letter is a letter sent to the patient.
  assignCounselorTask: 'A counselor is assigned on the case\'s counseling panel; this task closes when one is assigned.',
  counselingLetterTask: 'This task closes when the counselor sends a letter to the patient.',
};

/** Refuses (403) a person's completion of a task only the server completes, before anything else. */
export function refuseServerOnlyTask(taskDefinitionKey: string): void {
  const why = SERVER_ONLY_TASKS[taskDefinitionKey];
  if (why) throw forbidden(why);
}

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
  // workflows/counseling.bpmn: the patient's "take part in the counseling" ends when the
  // counselor closes the counseling.
  closeCounselingTask: ['counselingPatientTask'],
};
