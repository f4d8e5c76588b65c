/**
 * Service-task handlers of the safety process (workflows/safety.bpmn). They run inside the
 * workflow step's transaction like every handler (src/server/workflow/handlers.ts).
 *
 * - `safetySettings`: sets `taskDue` and `reviewDue` from the server's settings (SAFETY_TASK_DUE,
 *   SAFETY_REVIEW_DUE) unless the start set them, so the due times are configurable without a
 *   new process version; for a follow-up, `followUpEscalateAt` = its date + `taskDue`.
 * - `safetyMail`: queues a content-free mail (`template`) to a group (`to`): a candidate group of
 *   the case (therapists, interviewers, …) or `coordinators`, meaning every coordinator account.
 * - `safetyEscalate` (issue 26): the escalation chain of a risk task nobody has taken on
 *   (`level`: `coordinators`, then `onCall`, the SAFETY_ON_CALL_EMAIL address). It does nothing
 *   once someone said "I am on it" or the task is closed; each level is recorded on the signal.
 *   `safetySettings` also sets `ackDue` and `onCallAfter` (SAFETY_ACK_DUE, SAFETY_ON_CALL_AFTER).
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

export const ESCALATION_LEVELS = ['coordinators', 'onCall'] as const;

/** One step of the escalation chain of a risk task nobody has taken on (see the header). */
function safetyEscalate(settings: Config['safety']): Handler {
  return async ({ sql, caseId, inputs, variables, now }) => {
    const level = text(inputs, 'level');
    if (!(ESCALATION_LEVELS as readonly string[]).includes(level)) throw new Error(`safetyEscalate: unknown level "${level}"`);
    const signalId = variables.signalId?.value;
    if (typeof signalId !== 'string') throw new Error('safetyEscalate needs the variable "signalId"');
    const { rows } = await sql.query<{ open: boolean }>(
      `select s.acknowledged_at is null and s.resolved_at is null as open from app_public.safety_signals s where s.id = $1 for update`,
      [signalId],
    );
    if (!rows[0]?.open) return;
    if (level === 'coordinators') {
      await sql.query(
        `insert into app_private.workflow_mails (user_id, case_id, template)
         select u.id, $1::uuid, 'safety_task_unacknowledged' from app_public.users u where u.is_coordinator_account`,
        [caseId],
      );
      await sql.query('update app_public.safety_signals set escalated_to_coordinators_at = coalesce(escalated_to_coordinators_at, $2) where id = $1', [signalId, now]);
      return;
    }
    // No on-call address configured: the chain ends with the coordinators (README "Settings").
    if (!settings.onCallEmail) return;
    await sql.query(
      `insert into app_private.workflow_mails (to_address, locale, case_id, template) values ($1, $2, $3, 'safety_on_call')`,
      [settings.onCallEmail, settings.onCallLocale, caseId],
    );
    await sql.query('update app_public.safety_signals set escalated_to_on_call_at = coalesce(escalated_to_on_call_at, $2) where id = $1', [signalId, now]);
  };
}

export function safetyHandlers(settings: Config['safety']): HandlerRegistry {
  const safetySettings: Handler = async ({ variables }) => {
    const result: Record<string, unknown> = {};
    if (variables.taskDue === undefined) result.taskDue = settings.taskDue;
    if (variables.reviewDue === undefined) result.reviewDue = settings.reviewDue;
    if (variables.ackDue === undefined) result.ackDue = settings.ackDue;
    if (variables.onCallAfter === undefined) result.onCallAfter = settings.onCallAfter;
    // A follow-up escalates when it is still open one task period after its date.
    const followUpDate = variables.followUpDate?.value;
    if (typeof followUpDate === 'string' && variables.followUpEscalateAt === undefined) {
      const taskDue = typeof variables.taskDue?.value === 'string' ? variables.taskDue.value : settings.taskDue;
      const zone = typeof variables.timeZone?.value === 'string' ? variables.timeZone.value : 'UTC';
      result.followUpEscalateAt = addDuration(new Date(followUpDate), taskDue, zone).toISOString();
    }
    return result;
  };
  return { safetySettings, safetyMail, safetyEscalate: safetyEscalate(settings) };
}
