/**
 * Service-task handlers of the safety process (workflows/safety.bpmn). They run inside the
 * workflow step's transaction like every handler (src/server/workflow/handlers.ts).
 *
 * - `safetySettings`: sets `taskDue` and `reviewDue` from the server's settings (SAFETY_TASK_DUE,
 *   SAFETY_REVIEW_DUE) unless the start set them, so the due times are configurable without a
 *   new process version; for a follow-up, `followUpEscalateAt` = its date + `taskDue`.
 * - `safetyMail`: queues a content-free mail (`template`) to a group (`to`): a candidate group of
 *   the case (therapists, interviewers, …) or `coordinators`, meaning every coordinator account.
 */
import type { Config } from '../config';
import { addDuration } from '../workflow/expressions';
import type { Handler, HandlerRegistry } from '../workflow/handlers';

export const SAFETY_MAIL_TEMPLATES = ['safety_task_waiting', 'safety_task_overdue', 'safety_call_review'] as const;

const CASE_GROUP_COLUMNS: Record<string, string> = {
  therapists: 'acts_as_therapist',
  interviewers: 'acts_as_interviewer',
  supervisors: 'acts_as_supervisor',
  supporters: 'acts_as_supporter',
  counselors: 'acts_as_counselor',
};

function text(inputs: Record<string, unknown>, name: string): string {
  const value = inputs[name];
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`safetyMail needs the input "${name}"`);
  return value.trim();
}

const safetyMail: Handler = async ({ sql, caseId, inputs }) => {
  const template = text(inputs, 'template');
  const group = text(inputs, 'to');
  if (!(SAFETY_MAIL_TEMPLATES as readonly string[]).includes(template)) throw new Error(`safetyMail: unknown template "${template}"`);
  if (group === 'coordinators') {
    await sql.query(
      `insert into app_private.workflow_mails (user_id, case_id, template)
       select u.id, $1::uuid, $2::text from app_public.users u where u.is_coordinator_account`,
      [caseId, template],
    );
    return;
  }
  const column = CASE_GROUP_COLUMNS[group];
  if (!column) throw new Error(`safetyMail: unknown group "${group}"`);
  await sql.query(
    `insert into app_private.workflow_mails (user_id, case_id, template)
     select m.user_id, m.case_id, $2 from app_public.case_members m where m.case_id = $1 and m.${column}`,
    [caseId, template],
  );
};

export function safetyHandlers(settings: Config['safety']): HandlerRegistry {
  const safetySettings: Handler = async ({ variables }) => {
    const result: Record<string, unknown> = {};
    if (variables.taskDue === undefined) result.taskDue = settings.taskDue;
    if (variables.reviewDue === undefined) result.reviewDue = settings.reviewDue;
    // A follow-up escalates when it is still open one task period after its date.
    const followUpDate = variables.followUpDate?.value;
    if (typeof followUpDate === 'string' && variables.followUpEscalateAt === undefined) {
      const taskDue = typeof variables.taskDue?.value === 'string' ? variables.taskDue.value : settings.taskDue;
      const zone = typeof variables.timeZone?.value === 'string' ? variables.timeZone.value : 'UTC';
      result.followUpEscalateAt = addDuration(new Date(followUpDate), taskDue, zone).toISOString();
    }
    return result;
  };
  return { safetySettings, safetyMail };
}
