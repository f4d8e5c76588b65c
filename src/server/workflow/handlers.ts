/**
 * The named TypeScript handlers that BPMN service tasks call (`camunda:type="external"`,
 * `camunda:topic="<handler>"`, inputs as `camunda:inputParameter`s). A handler runs inside the
 * step's transaction (behind a savepoint): its database writes commit with the step or not at
 * all. Mail is queued in app_private.workflow_mails and sent after the commit, so a crash never
 * sends a mail for a step that did not happen. A handler that throws is retried with backoff.
 */
import type { Sql } from '../db/transaction';
import { isKnownStage } from '../../domain/case-stages';
import type { TypedVariables } from './variables';

export interface HandlerContext {
  sql: Sql;
  caseId: string;
  processInstanceId: string;
  activityId: string;
  /** Inputs of the service task, with expressions resolved. */
  inputs: Record<string, unknown>;
  variables: TypedVariables;
  now: Date;
}

/** A handler may return process variables to set (plain values; typed by the host). */
export type Handler = (ctx: HandlerContext) => Promise<Record<string, unknown> | void>;

export type HandlerRegistry = Record<string, Handler>;

const GROUP_COLUMNS: Record<string, string> = {
  patients: 'acts_as_patient',
  therapists: 'acts_as_therapist',
  interviewers: 'acts_as_interviewer',
  supervisors: 'acts_as_supervisor',
  supporters: 'acts_as_supporter',
  counselors: 'acts_as_counselor',
};

export const WORKFLOW_MAIL_TEMPLATES = ['workflow_task_waiting', 'workflow_task_reminder'] as const;
export type WorkflowMailTemplate = (typeof WORKFLOW_MAIL_TEMPLATES)[number];

/** System messages a process may post: content-free texts in the case's languages. */
export const SYSTEM_MESSAGES: Record<string, Record<'ar' | 'de' | 'en', string>> = {
  questionnairesDue: {
    ar: 'هناك استبيانات جديدة بانتظارك. يمكنك العثور عليها في صفحة الاستبيانات.',
    de: 'Neue Fragebögen warten auf Sie. Sie finden sie auf der Seite „Fragebögen“.',
    en: 'New questionnaires are waiting for you. You will find them on the questionnaires page.',
  },
  interviewBooked: {
    ar: 'تم حجز موعد المقابلة. ستجد التفاصيل في صفحة المواعيد.',
    de: 'Ihr Interviewtermin ist gebucht. Die Einzelheiten finden Sie auf der Terminseite.',
    en: 'Your interview is booked. You will find the details on the appointments page.',
  },
  counselingStarts: {
    ar: 'يبدأ الإرشاد الآن. سيتواصل معك مرشدك هنا ويرسل إليك الرسائل.',
    de: 'Ihre Beratung beginnt jetzt. Ihre Beraterin oder Ihr Berater meldet sich hier bei Ihnen und schreibt Ihnen Briefe.',
    en: 'Your counseling begins now. Your counselor will get in touch with you here and write you letters.',
  },
  treatmentStarts: {
    ar: 'تبدأ مرحلة العلاج الآن. سيتواصل معك معالجك هنا.',
    de: 'Die Behandlungsphase beginnt jetzt. Ihre Therapeutin oder Ihr Therapeut meldet sich hier.',
    en: 'The treatment phase starts now. Your therapist will be in touch here.',
  },
  followUpDue: {
    ar: 'حان وقت استبيانات المتابعة. شكرًا لمشاركتك.',
    de: 'Es ist Zeit für die Nachbefragung. Danke, dass Sie teilnehmen.',
    en: 'It is time for the follow-up questionnaires. Thank you for taking part.',
  },
};

function requireText(inputs: Record<string, unknown>, name: string, topic: string): string {
  const value = inputs[name];
  if (typeof value !== 'string' || value.trim() === '') throw new Error(`${topic} needs the input "${name}"`);
  return value.trim();
}

/** setStage: inputs `stage` (a stage of src/domain/case-stages.ts); `excluded` also excludes the patient. */
const setStage: Handler = async ({ sql, caseId, inputs }) => {
  const stage = requireText(inputs, 'stage', 'setStage');
  if (!isKnownStage(stage)) throw new Error(`setStage: "${stage}" is not a known case stage`);
  await sql.query('update app_public.cases set stage = $2 where id = $1', [caseId, stage]);
  // The excluded stage and the patient's flag agree, and a change of the flag is recorded (0095).
  if (stage === 'excluded') await sql.query('select app_hidden.confirm_excluded_stage($1)', [caseId]);
  return { stage };
};

/** sendMail: inputs `template` (workflow_task_waiting | workflow_task_reminder) and `to` (a group). */
const sendMail: Handler = async ({ sql, caseId, inputs }) => {
  const template = requireText(inputs, 'template', 'sendMail');
  const group = requireText(inputs, 'to', 'sendMail');
  if (!(WORKFLOW_MAIL_TEMPLATES as readonly string[]).includes(template)) throw new Error(`sendMail: unknown template "${template}"`);
  const column = GROUP_COLUMNS[group];
  if (!column) throw new Error(`sendMail: unknown group "${group}"`);
  await sql.query(
    `insert into app_private.workflow_mails (user_id, case_id, template)
     select m.user_id, m.case_id, $2 from app_public.case_members m where m.case_id = $1 and m.${column}`,
    [caseId, template],
  );
};

/** postMessage: inputs `message` (a key of SYSTEM_MESSAGES) and `to` (a group); in the patient's language. */
const postMessage: Handler = async ({ sql, caseId, inputs }) => {
  const key = requireText(inputs, 'message', 'postMessage');
  const group = requireText(inputs, 'to', 'postMessage');
  const texts = SYSTEM_MESSAGES[key];
  if (!texts) throw new Error(`postMessage: unknown message "${key}"`);
  if (!GROUP_COLUMNS[group]) throw new Error(`postMessage: unknown group "${group}"`);
  const { rows } = await sql.query<{ locale: string | null }>(
    `select u.locale from app_public.case_members m join app_public.users u on u.id = m.user_id
      where m.case_id = $1 and m.acts_as_patient`,
    [caseId],
  );
  const locale = (rows[0]?.locale ?? 'ar') as 'ar' | 'de' | 'en';
  await sql.query(
    `insert into app_public.case_messages (case_id, sender_id, from_system, body, sent_at, to_${group})
     values ($1, null, true, $2, now(), true)`,
    [caseId, texts[locale] ?? texts.ar],
  );
};

/** setVariables: every input becomes a process variable unless the variable is already set (defaults). */
const setDefaults: Handler = async ({ inputs, variables }) => {
  const result: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(inputs)) if (variables[name] === undefined) result[name] = value;
  return result;
};

export const DEFAULT_HANDLERS: HandlerRegistry = { setStage, sendMail, postMessage, setDefaults };
