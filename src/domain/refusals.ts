/**
 * Every refusal of the database, said in words a person can act on (issue 27, item 7).
 *
 * The database keeps the rules (constraints, row-level security, `raise exception` in SQL
 * functions), so its errors are how most refusals start. Their own texts ("new row violates
 * row-level security policy for table …", "violates check constraint sent_is_filled") name
 * tables, columns and constraints and must never reach a person. This module is the one
 * mapping from what PostgreSQL reports (SQLSTATE, constraint name, the hint our SQL sets) to
 * a stable refusal code, its HTTP status and a plain English sentence for API clients. The
 * web app translates the code (`refusals.<code>`, or the older `errorCodes.<code>`), so REST,
 * GraphQL, the workflow routes and the screens all say the same thing.
 *
 * Adding a constraint: give it a name ending in one of the suffixes below (`_length`,
 * `_known`, `_format`, `_range`, …) or an entry in BY_CONSTRAINT. A test scans the migrated
 * database and fails for any constraint without a specific code.
 */

/** What node-postgres and PGlite attach to an error raised by the database. */
export interface DatabaseErrorFacts {
  code: string;
  message?: string;
  constraint?: string;
  hint?: string;
}

export interface Refusal {
  /** Stable, machine-readable; the web app's translation key (see refusalKeys). */
  code: string;
  /** The HTTP status that fits (4xx). */
  status: number;
  /** A plain English sentence for API clients; never a database text. */
  message: string;
}

/** English sentences of the codes below; ar/de/en translations live in src/web/i18n (`refusals`). */
export const REFUSAL_MESSAGES = {
  forbidden: 'You are not allowed to do this.',
  sign_in_required: 'Please sign in first.',
  value_required: 'A required value is missing.',
  text_length: 'A text is empty or longer than allowed. Please check its length.',
  out_of_range: 'A number is outside the range allowed for it.',
  answer_out_of_range: 'An answer is not on the questionnaire’s scale.',
  not_a_choice: 'A value is not one of the choices offered.',
  format_invalid: 'A value does not have the expected form.',
  invalid_email: 'Please enter a valid email address.',
  invalid_phone: 'Please enter a valid phone number (digits, spaces and + ( ) . / - only).',
  invalid_username: 'A username has 3 to 40 letters, digits, dots, dashes or underscores and starts with a letter or digit.',
  invalid_value: 'A value has the wrong form. Check dates, numbers and ids.',
  value_not_allowed: 'A value is not allowed here: it is too long, outside its range or not one of the choices.',
  values_inconsistent: 'Some values do not fit together. Please check the form.',
  duplicate: 'This exists already.',
  already_recorded: 'This was recorded already. Open the existing record and change it instead.',
  email_taken: 'This email address already belongs to an account.',
  username_taken: 'This username is taken. Please choose another one.',
  reference_missing: 'Something this refers to does not exist any more.',
  sent_needs_content: 'Please fill in the entry before sending it.',
  body_required: 'The message is empty. Please write something first.',
  recipients_required: 'Please choose at least one group to send the message to.',
  one_patient: 'This case has a patient already; a case has only one.',
  already_member: 'This person is a member of the case already.',
  stage_format: 'This stage name is not valid.',
  slot_overlaps: 'This time overlaps another of the interviewer’s time slots.',
  end_before_start: 'The end must be after the start.',
  slot_too_long: 'A time slot can be at most 12 hours long.',
  link_invalid: 'The meeting link must be a web address starting with https://.',
  slot_taken: 'This time is no longer available. Please choose another one.',
  exclusion_needs_reason: 'Please give the reason for the exclusion.',
  follow_up_needs_contact: 'A follow-up date needs a planned follow-up contact.',
  contact_date_needs_coordinator: 'Please name the coordinator who was contacted.',
  file_invalid: 'The file is empty, its name is not allowed, or it is not the kind of document it claims to be.',
  ambiguous_change: 'The request would change more rows than it names. Add a filter that names the record.',
  read_only: 'This request may only read data.',
  rule_refused: 'This change is not allowed.',
  // Issue 30: e-signatures and the staff second factor (src/server/signing).
  signature_required: 'This act needs your electronic signature: confirm it with your password (and your code, if you use a second factor).',
  signature_invalid: 'The signature is not valid for this act any more. Confirm it again with your password.',
  signing_password_wrong: 'The password is not right. Your signature was not given.',
  mfa_code_required: 'Enter the 6-digit code of your authenticator app (or a recovery code).',
  mfa_code_invalid: 'The code is not right. Enter the current 6-digit code of your authenticator app.',
  mfa_enrolment_required: 'Your role signs with a second factor: set up your authenticator app in your profile first.',
  mfa_already_enrolled: 'A second factor is set up already. Ask a coordinator to reset it if the device is lost.',
  mfa_not_pending: 'Begin the set-up first: scan the code in your authenticator app.',
  mfa_not_enrolled: 'This person has no second factor to reset.',
  mfa_reset_coordinators_only: 'Only a coordinator can reset another person’s second factor.',
  mfa_reset_not_own: 'Another coordinator must reset your own second factor.',
} as const;

export type RefusalCode = keyof typeof REFUSAL_MESSAGES;

/** Constraints with a message of their own (everything else goes by suffix, below). */
const BY_CONSTRAINT: Record<string, RefusalCode> = {
  // messages, cases, members (0003, 0006)
  body_not_empty: 'body_required',
  sent_has_recipients: 'recipients_required',
  sender_or_system: 'values_inconsistent',
  case_members_one_patient_idx: 'one_patient',
  case_members_case_id_user_id_key: 'already_member',
  stage_format: 'stage_format',
  // accounts (0002)
  email_format: 'invalid_email',
  phone_format: 'invalid_phone',
  username_format: 'invalid_username',
  users_email_key: 'email_taken',
  users_username_key: 'username_taken',
  alias_length: 'text_length',
  // interviews (0012)
  interview_offers_no_overlap: 'slot_overlaps',
  interview_offers_time_slot_bounds: 'end_before_start',
  interview_offers_time_slot_length: 'slot_too_long',
  interview_offers_external_link_format: 'link_invalid',
  interview_bookings_one_active_per_offer: 'slot_taken',
  interview_offers_canceled_at: 'values_inconsistent',
  interview_bookings_canceled_at: 'values_inconsistent',
  interview_reports_final_signed: 'values_inconsistent',
  interview_reports_one_per_booking: 'already_recorded',
  feedback_interview_reports_one_per_booking: 'already_recorded',
  // written only by the server (safety mails 0130, access and account logs 0180): no person's
  // input reaches them, but a refusal still never shows their names
  workflow_mails_recipient: 'values_inconsistent',
  access_log_api: 'values_inconsistent',
  account_log_event: 'values_inconsistent',
  // worksheets, letters, feedback (0070, 0071): a sent entry needs its main field
  sent_is_filled: 'sent_needs_content',
  // suicide-risk calls (0050)
  case_suicide_calls_exclusion_needs_reason: 'exclusion_needs_reason',
  case_suicide_calls_follow_up_needs_contact: 'follow_up_needs_contact',
  case_suicide_calls_contact_needs_coordinator: 'contact_date_needs_coordinator',
  case_suicide_calls_description_length: 'text_length',
  // trial (0060, 0061)
  invoice_items_held_or_canceled: 'values_inconsistent',
  allocation_config_single: 'duplicate',
  invoice_settings_single: 'duplicate',
  allocation_ticket_position: 'out_of_range',
  // issue 30: a blinded assessor holds no other role; an assessment gives at least one severity
  users_assessor_alone: 'values_inconsistent',
  blinded_assessment_filled: 'values_inconsistent',
  // downloads (0073)
  download_content_not_empty: 'file_invalid',
  download_file_name_safe: 'file_invalid',
  download_type_matches_content: 'file_invalid',
  // bookkeeping rows the server writes itself
  action_tokens_check: 'values_inconsistent',
  workflow_instances_state: 'not_a_choice',
  workflow_jobs_kind: 'not_a_choice',
  workflow_calls_action: 'not_a_choice',
  workflow_calls_roles: 'not_a_choice',
  workflow_calls_variables: 'invalid_value',
  interview_report_versions_one: 'already_recorded',
  one_text_per_variant: 'duplicate',
  one_number_per_version: 'duplicate',
  safety_signals_once_per_record: 'already_recorded',
  workflow_instances_one_active_idx: 'already_recorded',
};

/**
 * PostgreSQL's own names `<table>_<column>_check`, grouped by what they check. Written out
 * because the name alone does not say whether a column holds a choice, a text or a number.
 */
const CHECKS_BY_KIND: Record<'not_a_choice' | 'text_length' | 'out_of_range', string[]> = {
  not_a_choice: [
    'audit_log_operation_check', 'content_templates_language_code_check', 'content_templates_type_check', 'users_locale_check',
    'action_tokens_kind_check', 'report_mails_kind_check', 'interview_mail_queue_kind_check', 'interview_mail_queue_method_check',
    ...[
      'accepted_reason', 'audit10', 'audit9', 'contact_via', 'earlier_treatment', 'mde_episode_start', 'mde_last_episode', 'primary_problem',
      'register_again_reasons', 'rejected_reasons', 'sex', 'state', 'status', 'suicidality_risk', 'trauma_list', 'trial_outcome',
    ].map((column) => `interview_reports_${column}_check`),
  ],
  text_length: [
    'case_messages_subject_check', 'exclusion_changes_reason_check', 'workflow_instances_business_key_check',
    'treatment_assignments_stratum_check', 'treatment_assignments_treatment_check', 'users_access_path_detail_check', 'users_access_path_kind_check',
    ...['description', 'diagnosis', 'dropout_reason', 'emergency_contact', 'reason_for_exclusion', 'title'].map((c) => `cases_${c}_check`),
    ...['content', 'description', 'subject', 'title', 'treatment_code'].map((c) => `content_templates_${c}_check`),
    ...['causes_of_changes', 'changes_for_worse', 'general_changes', 'helpful_difficult_parts', 'hindering_parts', 'motivating_parts', 'neglected_parts'].map(
      (c) => `feedback_interview_reports_${c}_check`,
    ),
    ...[
      'additional_comments', 'alias', 'amendment_reason', 'counseling_availability', 'counseling_reasons', 'counseling_specialities', 'heard_of_product',
      'mde_notes', 'medication_name', 'other_rejection_notes', 'override_reason', 'patient_name', 'pdd_notes', 'phone', 'ptsd_notes',
      'register_again_other_state', 'register_again_reason_text', 'residence', 'suicidality_notes', 'trauma_description', 'video_account', 'worst_event',
    ].map((c) => `interview_reports_${c}_check`),
  ],
  out_of_range: [
    'feedback_interview_reports_recommend_tendency_check', 'invoice_items_month_check', 'invoice_items_year_check', 'users_nr_of_logins_check',
    'case_inbox_new_messages_check',
    ...[
      'age', 'audit1', 'audit2', 'audit3', 'audit4', 'audit5', 'audit6', 'audit7', 'audit8', 'audit_total', 'dast_total', 'mde_episode_start_count',
      'mde_episode_total', 'mde_last_episode_count', 'ptsd_total', 'suicidality_score',
    ].map((c) => `interview_reports_${c}_check`),
  ],
};

for (const [kind, names] of Object.entries(CHECKS_BY_KIND)) for (const name of names) BY_CONSTRAINT[name] ??= kind as RefusalCode;

// The Camunda worker surface (0280) and the engagement thresholds (0290).
Object.assign(BY_CONSTRAINT, {
  workflow_external_topics_topic: 'format_invalid',
  workflow_jobs_worker_id: 'text_length',
  workflow_jobs_retries: 'out_of_range',
  workflow_jobs_external_topic: 'values_inconsistent',
  workflow_external_completions_variables: 'invalid_value',
  engagement_thresholds_ordered: 'values_inconsistent',
} satisfies Record<string, RefusalCode>);

/** Names by their ending: the naming rules of db/CONVENTIONS.md and the SQL generators. */
const BY_SUFFIX: [RegExp, RefusalCode][] = [
  [/_on_scale$/, 'answer_out_of_range'], // questionnaire items (generated, 0009/0016)
  [/_one_per_(time|booking|record|case)$/, 'already_recorded'],
  [/_object$/, 'invalid_value'], // JSON the server builds (scores, details)
  [/_known$/, 'not_a_choice'],
  [/_length$/, 'text_length'],
  [/_format$/, 'format_invalid'],
  [/_range$/, 'out_of_range'],
  [/_(pkey|key)$/, 'duplicate'],
  [/_fkey$/, 'reference_missing'],
  [/_single$/, 'duplicate'],
  [/_needs_reason$/, 'exclusion_needs_reason'],
  // PostgreSQL's default name for a check not listed above: a value the column does not take.
  [/_check$/, 'value_not_allowed'],
];

/** The specific code of a constraint, or undefined when neither its name nor its suffix is known. */
export function refusalCodeForConstraint(name: string): RefusalCode | undefined {
  if (Object.hasOwn(BY_CONSTRAINT, name)) return BY_CONSTRAINT[name];
  return BY_SUFFIX.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * The codes our SQL functions name in `raise … using hint = 'CODE'` keep their own code. The
 * older ones were given lower-case names when the web app first translated them.
 */
const RULE_CODES: Record<string, string> = {
  NOT_INVOLVED: 'not_involved',
  SENT_MESSAGE_IMMUTABLE: 'sent_message_locked',
  NOT_FOUND: 'message_not_found',
  SLOT_TAKEN: 'slot_taken',
  SLOT_OVERLAPS: 'slot_overlaps',
  SLOT_IN_PAST: 'slot_in_past',
  SLOT_TOO_LONG: 'slot_too_long',
  SLOT_INCOMPLETE: 'slot_incomplete',
  END_BEFORE_START: 'end_before_start',
  OFFER_NOT_FOUND: 'offer_not_found',
  BOOKING_NOT_FOUND: 'booking_not_found',
  NOT_OWNER: 'not_offer_owner',
  NOT_INTERVIEWER: 'not_interviewer',
  NOT_ADOPTIBLE: 'not_adoptible',
  OFFER_CANCELED: 'offer_canceled',
  OFFER_NOT_CANCELED: 'offer_not_canceled',
  BOOKING_CANCELED: 'booking_canceled',
  ALREADY_BOOKED: 'already_booked',
  NO_PATIENT: 'no_patient',
  LINK_INVALID: 'link_invalid',
  NOT_STARTED: 'not_started',
  SERIES_LENGTH: 'series_length',
  TIME_ZONE_UNKNOWN: 'time_zone_unknown',
};

/** A rule code set by our SQL (`hint`): upper- or lower-case words joined by underscores. */
const RULE_HINT = /^([A-Z][A-Z0-9_]+|[a-z][a-z0-9_]+)$/;

/** SQLSTATEs our SQL raises rules with, and their status when a hint names the rule. */
function ruleStatus(code: string): number | undefined {
  if (code === '42501') return 403;
  if (code === 'P0002') return 404;
  if (code === '23505' || code === '55000') return 409;
  if (code === 'P0001' || code.startsWith('22') || code.startsWith('23')) return 400;
  return undefined;
}

/** The code a rule of our SQL is known by in the web app (`NOT_INVOLVED` → `not_involved`). */
export function ruleCode(hint: string): string {
  return RULE_CODES[hint] ?? hint.toLowerCase();
}

/** True for errors PostgreSQL (node-postgres or PGlite) raised, not Node system errors. */
export function isDatabaseError(error: unknown): error is DatabaseErrorFacts & Error {
  if (typeof error !== 'object' || error === null) return false;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  // `severity` tells a server error from a Node system error such as EPIPE (also five letters).
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string';
}

const refusal = (code: RefusalCode, status: number): Refusal => ({ code, status, message: REFUSAL_MESSAGES[code] });

/**
 * The refusal a database error stands for, or undefined when the error is not the request's
 * fault (a bug, an outage): the caller answers 500 and logs it.
 */
export function refusalForDatabaseError(error: DatabaseErrorFacts, signedIn = true): Refusal | undefined {
  const { code, hint, constraint } = error;
  // A rule our SQL raised names itself in the hint; its sentence was written for people.
  const status = ruleStatus(code);
  if (hint && RULE_HINT.test(hint) && status) {
    return { code: ruleCode(hint), status, message: sentence(error.message) ?? REFUSAL_MESSAGES.rule_refused };
  }
  if (code === '42501') return signedIn ? refusal('forbidden', 403) : refusal('sign_in_required', 401);
  if (code.startsWith('28')) return refusal('forbidden', 403);
  const custom = /^PT([1-5]\d\d)$/.exec(code); // PostgREST's `raise sqlstate 'PT403'` convention
  if (custom) return { code: 'rule_refused', status: Number(custom[1]), message: sentence(error.message) ?? REFUSAL_MESSAGES.rule_refused };
  if (code === 'P0001') return { code: 'rule_refused', status: 400, message: sentence(error.message) ?? REFUSAL_MESSAGES.rule_refused };
  if (code === '21000') return refusal('ambiguous_change', 400);
  if (code === '25006') return refusal('read_only', 405);
  if (code.startsWith('23')) {
    // NOT NULL and foreign keys say the same whatever their name; the rest by constraint.
    if (code === '23502') return refusal('value_required', 400);
    if (code === '23503') return refusal('reference_missing', 409);
    const conflict = code === '23505' || code === '23P01';
    const named = constraint ? refusalCodeForConstraint(constraint) : undefined;
    return refusal(named ?? (conflict ? 'duplicate' : 'value_not_allowed'), conflict ? 409 : 400);
  }
  if (code.startsWith('22')) return refusal('invalid_value', 400);
  return undefined;
}

/**
 * A `raise exception` text of our own SQL, kept when it reads as a sentence for people; the
 * texts PostgreSQL writes itself (naming relations, columns, constraints or policies) never pass.
 */
function sentence(message: string | undefined): string | undefined {
  if (!message || RAW_DATABASE_TEXT.test(message)) return undefined;
  return message;
}

/**
 * The marks of a text PostgreSQL wrote: a test asserts none reaches a response. Our own
 * `raise exception` sentences do not use these words.
 */
export const RAW_DATABASE_TEXT =
  /violates|row-level security|relation "|constraint "|column "|syntax for type|null value in|permission denied|duplicate key|out of range for type|function \S+ does not exist|app_public|app_private|app_hidden/i;

/** Translation keys of a refusal code in the web app, first match wins. */
export function refusalKeys(code: string): string[] {
  return [`refusals.${code}`, `errorCodes.${code}`];
}

/** Every code refusalForDatabaseError can give for constraints and SQLSTATEs (the catalog test). */
export const REFUSAL_CODES = Object.keys(REFUSAL_MESSAGES) as RefusalCode[];
/** Every code the older rule hints map to. */
export const RULE_REFUSAL_CODES = Object.values(RULE_CODES);
