/**
 * The interview report's server routines: derived columns after each save, finalize (sign,
 * lock and drive the trial in one transaction), coordinator amendment with a reason, and a
 * missed interview. Each runs its permission question under row-level security as the caller,
 * then does the server's part as the owner in the same transaction, so a refusal changes nothing.
 */
import type pg from 'pg';
import { withUser, type Sql } from '../db/transaction';
import { HttpError, badRequest, forbidden, notFound, refusalError } from '../http/errors';
import { completeTaskAsServer } from '../workflow/commands';
import type { WorkflowHost } from '../workflow/host';
import { typed } from '../workflow/variables';
import { recordSignature, requireSignature, storedRecord } from '../signing/service';
import {
  decisionSupport,
  derivedColumns,
  emptySections,
  INPUT_FIELDS,
  outcomeProblems,
  trialOutcome,
  validateReportValues,
  type OutcomeProblem,
  type ReportValues,
  type TrialOutcome,
} from '../../domain/interview-report';

const INPUT_IDS = INPUT_FIELDS.map((f) => f.id);
const INPUT_SELECT = INPUT_IDS.map((id) => `r.${id}`).join(', ');

/** Database errors of the report's triggers and constraints as errors a person can act on. */
export function reportDatabaseError(error: unknown): unknown {
  const e = error as { code?: string; message?: string; hint?: string; severity?: string };
  if (typeof e?.code !== 'string' || typeof e.severity !== 'string') return error;
  if (e.code === 'P0001') return new HttpError(400, (e.hint ?? 'invalid').toLowerCase(), e.message ?? 'The report was refused.');
  // The one-door rules of 0150 (interview phase, one signed intake report per case).
  if (e.hint === 'not_in_interview_phase') return new HttpError(409, e.hint, NOT_IN_INTERVIEW_PHASE);
  if (e.hint === 'final_report_exists') return new HttpError(409, e.hint, FINAL_REPORT_EXISTS);
  if (e.code === '23505') return new HttpError(409, 'report_exists', 'This booking already has a report; open it and save there.');
  if (e.code === '42501') return forbidden('not_allowed', 'You may not change this report: only the interviewer of the booking or a coordinator can.');
  // Everything else as every route says it (src/domain/refusals.ts), never PostgreSQL's text.
  return refusalError(error) ?? error;
}

const NOT_IN_INTERVIEW_PHASE = 'The trial of this case is not waiting for an interview outcome, so the report cannot be signed now.';
const FINAL_REPORT_EXISTS = 'This case already has a signed intake report; a coordinator amends that report instead.';

/**
 * One door for the interview outcome (issue 27): a report is signed only while the case's trial
 * waits in its interview phase, and only when no other signed report of the case decided the
 * trial (a "register again later" report decides nothing: the next interview gets its own).
 * The database holds the same rule (0150, trigger _055_one_door); this gives the clear answer.
 */
async function checkSignable(sql: Sql, report: { id: string; case_id: string }, outcome: TrialOutcome): Promise<void> {
  const { rows } = await sql.query<{ waiting: boolean; decided: boolean }>(
    `select exists (select 1 from app_public.workflow_tasks t
                     where t.case_id = $1 and t.task_definition_key = 'interviewTask' and t.end_time is null) as waiting,
            exists (select 1 from app_public.interview_reports r
                     where r.case_id = $1 and r.id <> $2 and r.state = 'final' and r.trial_outcome is distinct from 'later') as decided`,
    [report.case_id, report.id],
  );
  if (outcome !== 'later' && rows[0]!.decided) throw new HttpError(409, 'final_report_exists', FINAL_REPORT_EXISTS);
  if (!rows[0]!.waiting) throw new HttpError(409, 'not_in_interview_phase', NOT_IN_INTERVIEW_PHASE);
}

/** The interview's date (YYYY-MM-DD, UTC) of a booking: the base of every date rule. */
export async function interviewDate(sql: Sql, bookingId: string): Promise<string> {
  const { rows } = await sql.query<{ day: string }>(
    `select to_char(o.starts_at at time zone 'UTC', 'YYYY-MM-DD') as day
       from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id where b.id = $1`,
    [bookingId],
  );
  return rows[0]?.day ?? new Date().toISOString().slice(0, 10);
}

function toValues(row: Record<string, unknown>): Record<string, ReportValues[string]> {
  const values: Record<string, ReportValues[string]> = {};
  for (const id of INPUT_IDS) {
    const v = row[id];
    values[id] = v instanceof Date ? v.toISOString().slice(0, 10) : (v as ReportValues[string]);
  }
  return values;
}

/** Writes the derived columns of one report as the owner (no request role may write them). */
export async function storeDerived(sql: Sql, reportId: string): Promise<void> {
  await sql.query('set local role none');
  const { rows } = await sql.query(`select r.booking_id, ${INPUT_SELECT}, to_char(r.worst_event_on, 'YYYY-MM-DD') as worst_event_on,
      to_char(r.medication_stable_since, 'YYYY-MM-DD') as medication_stable_since, to_char(r.medication_change_planned_on, 'YYYY-MM-DD') as medication_change_planned_on,
      to_char(r.earlier_treatment_ended_on, 'YYYY-MM-DD') as earlier_treatment_ended_on, to_char(r.planned_psychotherapy_on, 'YYYY-MM-DD') as planned_psychotherapy_on
      from app_public.interview_reports r where r.id = $1`, [reportId]);
  const row = rows[0];
  if (row) {
    const derived = derivedColumns(toValues(row), await interviewDate(sql, row.booking_id));
    const names = Object.keys(derived);
    await sql.query(
      `update app_public.interview_reports set ${names.map((n, i) => `${n} = $${i + 2}`).join(', ')} where id = $1 and state = 'draft'`,
      [reportId, ...names.map((n) => derived[n])],
    );
  }
  await sql.query('set local role sanad_user');
}

/** Reads a report with its values as text dates (the domain's form). */
async function readReport(sql: Sql, reportId: string) {
  const dates = INPUT_FIELDS.filter((f) => f.type.kind === 'date').map((f) => `to_char(r.${f.id}, 'YYYY-MM-DD') as ${f.id}`);
  const { rows } = await sql.query(
    `select r.id, r.booking_id, r.case_id, r.interviewer_id, r.state, r.version, ${INPUT_SELECT}, ${dates.join(', ')}
       from app_public.interview_reports r where r.id = $1`,
    [reportId],
  );
  return rows[0] as (Record<string, unknown> & { id: string; booking_id: string; case_id: string; state: string; version: number }) | undefined;
}

export interface FinalizeResult {
  id: string;
  outcome: TrialOutcome;
  workflow: 'completed' | 'no_open_task';
  overridden: string[];
}

function refused(problems: OutcomeProblem[], coordinatorMayOverride: boolean): HttpError {
  const message = problems.map((p) => p.message).join(' ');
  return new HttpError(422, 'outcome_refused', coordinatorMayOverride ? `${message} A coordinator can override a rule with a reason.` : message, undefined, {
    problems: problems.map((p) => ({ rule: p.rule, overridable: p.overridable, message: p.message })),
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function requireUuid(value: string, what: string): string {
  if (!UUID.test(value)) throw notFound('not_found', `There is no ${what} ${value}.`);
  return value;
}

function reason(value: unknown, name: string, required: boolean): string | undefined {
  if (value === undefined || value === null || value === '') {
    if (required) throw badRequest('reason_required', `Give a reason (${name}).`, { [name]: [{ code: 'required', message: 'A reason is required.' }] });
    return undefined;
  }
  if (typeof value !== 'string' || value.trim().length === 0 || value.length > 2000) {
    throw badRequest('invalid_reason', `${name} must be a text of 1 to 2000 characters.`);
  }
  return value.trim();
}

export interface ReportServices {
  pool: pg.Pool;
  host: WorkflowHost;
  missedInterviewLimit: number;
}

/**
 * Finalize: the interviewer of the booking or a coordinator signs the report; the result is
 * checked against the rules (a hard rule only a coordinator may override, with a reason); the
 * report is locked; the trial's interview task is completed with the result; the patient's
 * exclusion, mails and re-registration reminder are queued. All in one transaction.
 */
export async function finalizeReport(
  services: ReportServices,
  userId: string,
  reportId: string,
  body: { overrideReason?: unknown; emptySectionsReason?: unknown },
  /** The signing token of this act (issue 30: an e-signature, src/server/signing). */
  signature?: unknown,
): Promise<FinalizeResult> {
  const overrideReason = reason(body.overrideReason, 'overrideReason', false);
  const emptyReason = reason(body.emptySectionsReason, 'emptySectionsReason', false);
  return withUser(services.pool, { userId }, async (sql) => {
    const visible = await readReport(sql, reportId);
    if (!visible) throw notFound('not_found', `There is no interview report ${reportId} you may see.`);
    if (visible.state === 'final') throw new HttpError(409, 'report_locked', 'This report is already finalized; a coordinator can amend it with a reason.');
    // May this person write it? The update policy answers (drafts, interviewer or coordinator).
    const writable = await sql.query(`update app_public.interview_reports set patient_reachable = patient_reachable where id = $1 returning id`, [reportId]);
    if (!writable.rowCount) throw forbidden('not_allowed', 'Only the interviewer of this booking or a coordinator can finalize the report.');
    const coordinator = (await sql.query<{ c: boolean }>('select app_hidden.is_coordinator() as c')).rows[0]!.c;
    await sql.query('set local role none');

    // A draft may be prepared before the interview; signing it needs the interview to have begun.
    await requireInterviewStarted(sql, visible.booking_id);
    const values = toValues(visible);
    // Whole sections left empty: the screen lists them and asks why; the reason is kept with the
    // report. It is a record, not a gate (docs/decisions/report-prepared-before-interview.md).
    const empty = emptySections(values);
    const day = await interviewDate(sql, visible.booking_id);
    const support = decisionSupport(values, day);
    const problems = outcomeProblems(values, support);
    const fixed = problems.filter((p) => !p.overridable);
    if (fixed.length > 0) throw refused(fixed, false);
    const overridable = problems.filter((p) => p.overridable);
    if (overridable.length > 0 && (!coordinator || !overrideReason)) throw refused(overridable, true);

    const outcome = trialOutcome(values);
    await checkSignable(sql, visible, outcome);
    // Every rule passed: now the signer's re-authentication is spent (a refusal above spends none).
    await requireSignature(sql, signature, { userId, act: 'report_sign', recordId: reportId });
    const derived = derivedColumns(values, day);
    const names = Object.keys(derived);
    await sql.query(
      `update app_public.interview_reports
          set ${names.map((n, i) => `${n} = $${i + 6}`).join(', ')},
              state = 'final', finalized_at = now(), finalized_by = $2, trial_outcome = $3, override_reason = $4, override_by = $5,
              empty_sections_reason = $${names.length + 6}
        where id = $1`,
      [reportId, userId, outcome, overridable.length > 0 ? overrideReason! : null, overridable.length > 0 ? userId : null, ...names.map((n) => derived[n]), empty.length > 0 ? (emptyReason ?? null) : null],
    );
    await markInterviewHeld(sql, visible.booking_id);
    const workflow = await applyOutcome(services, sql, { ...visible, values, outcome, userId });
    await signReportAct(sql, { userId, reportId, caseId: visible.case_id, act: 'report_sign', overridden: overridable.map((p) => p.rule), overrideReason });
    return { id: reportId, outcome, workflow, overridden: overridable.map((p) => p.rule) };
  }).catch((error: unknown) => {
    throw reportDatabaseError(error);
  });
}

/**
 * The manifests of a signed or amended report (issue 30): the signature over the report as
 * stored, and, when a coordinator overrode a rule, a second manifest with that meaning over the
 * rules and the reason, so the override is signed and shown as such.
 */
async function signReportAct(
  sql: Sql,
  act: { userId: string; reportId: string; caseId: string; act: 'report_sign' | 'report_amend'; overridden: string[]; overrideReason: string | undefined },
): Promise<void> {
  const report = await storedRecord(sql, 'interview_reports', 'id', act.reportId);
  await recordSignature(sql, { signerId: act.userId, act: act.act, caseId: act.caseId, recordId: act.reportId, content: report });
  if (act.overridden.length > 0) {
    await recordSignature(sql, {
      signerId: act.userId,
      act: 'rule_override',
      caseId: act.caseId,
      recordId: act.reportId,
      content: { rules: act.overridden, reason: act.overrideReason ?? null, reportVersion: report.version ?? null, during: act.act },
    });
  }
}

/** Refuses to sign before the booked interview's start (drafts may be prepared earlier). */
async function requireInterviewStarted(sql: Sql, bookingId: string): Promise<void> {
  const started = await sql.query(
    `select 1 from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id where b.id = $1 and o.starts_at <= now()`,
    [bookingId],
  );
  if (!started.rowCount) throw badRequest('interview_not_started', 'The interview has not started yet; the report can be signed once it has begun.');
}

/**
 * A signed report means the interview took place: the offer is marked held, which adds its
 * invoice item (trigger _500_invoice of 0061), so nobody has to mark it separately.
 */
async function markInterviewHeld(sql: Sql, bookingId: string): Promise<void> {
  await sql.query(
    `update app_public.interview_offers o set has_taken_place = true
       from app_public.interview_bookings b
      where b.id = $1 and o.id = b.offer_id and not o.has_taken_place`,
    [bookingId],
  );
}

/**
 * The result drives the case, as the owner inside the finalize transaction:
 *  - completes the trial's open "Record the interview outcome" task (task key interviewTask) with
 *    the variable `outcome` (ptsd, depression, counseling, rejected, later) and the report's id;
 *  - rejected: the patient is excluded "during the interview" with the reasons;
 *  - later: the invitation to register again is queued for the chosen date;
 *  - every outcome: a content-free mail to the patient.
 */
async function applyOutcome(
  services: ReportServices,
  sql: Sql,
  report: { id: string; case_id: string; values: Record<string, ReportValues[string]>; outcome: TrialOutcome; userId: string },
): Promise<'completed' | 'no_open_task'> {
  // The workflow's one door for a feature completing a task itself (commands.ts).
  const rejected = Array.isArray(report.values.rejected_reasons) ? (report.values.rejected_reasons as string[]) : [];
  const completed = await completeTaskAsServer(sql, services.host, {
    caseId: report.case_id,
    taskDefinitionKey: 'interviewTask',
    variables: {
      outcome: typed(report.outcome),
      interviewReportId: typed(report.id),
      rejectedReasons: typed(rejected.join(',')),
    },
    completedBy: report.userId,
  });
  // Checked before signing; a concurrent signing of another report of the case may have
  // completed the task since: then this one rolls back instead of deciding twice.
  if (!completed) throw new HttpError(409, 'not_in_interview_phase', NOT_IN_INTERVIEW_PHASE);
  const workflow = 'completed' as const;
  const { rows: patients } = await sql.query<{ user_id: string }>(
    'select m.user_id from app_public.case_members m where m.case_id = $1 and m.acts_as_patient',
    [report.case_id],
  );
  if (report.outcome === 'rejected') {
    // The interviewer who finalized decided; recorded in exclusion_changes (0095).
    await sql.query(`select app_hidden.raise_patient_exclusion($1, 'excluded_during_interview', $2, $3, true)`, [
      report.case_id,
      `excluded during the interview: ${rejected.join(', ')}`.slice(0, 2000),
      report.userId,
    ]);
  }
  for (const { user_id } of patients) {
    await sql.query(`insert into app_private.report_mails (user_id, case_id, report_id, kind) values ($1, $2, $3, 'interview_outcome')`, [user_id, report.case_id, report.id]);
    if (report.outcome === 'later' && typeof report.values.register_again_on === 'string') {
      await sql.query(
        `insert into app_private.report_mails (user_id, case_id, report_id, kind, run_after)
         values ($1, $2, $3, 'reregistration_invitation', ($4::date + time '08:00') at time zone 'UTC')`,
        [user_id, report.case_id, report.id, report.values.register_again_on],
      );
    }
  }
  return workflow;
}

/**
 * Amendment: a coordinator changes a finalized report with a reason. The database keeps the
 * version before (trigger) and allows the change only to this routine, for this report.
 */
export async function amendReport(
  services: ReportServices,
  userId: string,
  reportId: string,
  body: { reason?: unknown; values?: unknown; overrideReason?: unknown },
  /** The signing token of this act (issue 30: an e-signature, src/server/signing). */
  signature?: unknown,
): Promise<{ id: string; version: number; overridden: string[] }> {
  const why = reason(body.reason, 'reason', true)!;
  const overrideReason = reason(body.overrideReason, 'overrideReason', false);
  const patch = body.values;
  if (!patch || typeof patch !== 'object' || Array.isArray(patch) || Object.keys(patch).length === 0) {
    throw badRequest('values_required', 'Send the changed fields as "values": an object of field names and values.');
  }
  const problems = validateReportValues(patch as Record<string, unknown>);
  if (problems.length > 0) {
    throw badRequest('invalid_values', problems.map((p) => p.message).join(' '), Object.fromEntries(problems.map((p) => [p.field, [{ code: p.code, message: p.message }]])));
  }
  return withUser(services.pool, { userId }, async (sql) => {
    const visible = await readReport(sql, reportId);
    if (!visible) throw notFound('not_found', `There is no interview report ${reportId} you may see.`);
    const coordinator = (await sql.query<{ c: boolean }>('select app_hidden.is_coordinator() as c')).rows[0]!.c;
    if (!coordinator) throw forbidden('not_allowed', 'Only a coordinator can amend a finalized report.');
    if (visible.state !== 'final') throw new HttpError(409, 'report_not_final', 'This report is a draft: save the changes there instead of amending.');
    await sql.query('set local role none');
    const before = toValues(visible);
    const values = { ...before, ...(patch as Record<string, ReportValues[string]>) };
    const day = await interviewDate(sql, visible.booking_id);
    // The outcome drove the trial when the report was signed; an amendment corrects the record,
    // it does not decide again (exclusion and dropout have their own commands).
    if (trialOutcome(values) !== trialOutcome(before)) {
      throw new HttpError(409, 'outcome_change', 'An amendment cannot change the interview outcome: the trial has acted on it. Exclude the patient or mark a dropout on the case instead.');
    }
    // The same rules as on signing (issue 27): a hard rule the amended values break needs a
    // coordinator's reason, recorded with the amendment.
    const problems = outcomeProblems(values, decisionSupport(values, day));
    const fixed = problems.filter((p) => !p.overridable);
    if (fixed.length > 0) throw refused(fixed, false);
    const overridable = problems.filter((p) => p.overridable);
    if (overridable.length > 0 && !overrideReason) throw refused(overridable, true);
    await requireSignature(sql, signature, { userId, act: 'report_amend', recordId: reportId });
    const derived = derivedColumns(values, day);
    const override = overridable.length > 0 ? { override_reason: overrideReason!, override_by: userId } : {};
    const columns: Record<string, unknown> = { ...(patch as Record<string, unknown>), ...derived, ...override, trial_outcome: trialOutcome(values) };
    const names = Object.keys(columns);
    await sql.query(`select set_config('sanad.amend_report', $1, true)`, [reportId]);
    const { rows } = await sql.query<{ version: number }>(
      `update app_public.interview_reports
          set ${names.map((n, i) => `${n} = $${i + 4}`).join(', ')}, amended_at = now(), amended_by = $2, amendment_reason = $3
        where id = $1 returning version`,
      [reportId, userId, why, ...names.map((n) => columns[n])],
    );
    await sql.query(`select set_config('sanad.amend_report', '', true)`);
    await signReportAct(sql, { userId, reportId, caseId: visible.case_id, act: 'report_amend', overridden: overridable.map((p) => p.rule), overrideReason });
    return { id: reportId, version: rows[0]!.version, overridden: overridable.map((p) => p.rule) };
  }).catch((error: unknown) => {
    throw reportDatabaseError(error);
  });
}

/**
 * A booked interview did not take place: recorded by the booking's interviewer or a
 * coordinator once it has begun. Below the configured limit the booking is cancelled and the
 * trial goes back to booking (the existing `interviewBookingCanceled` message); at the limit
 * the patient is excluded "for missing interview" and the interview task ends as rejected.
 */
export async function recordMissedInterview(services: ReportServices, userId: string, bookingId: string): Promise<{ missed: number; excluded: boolean }> {
  return withUser(services.pool, { userId }, async (sql) => {
    const { rows } = await sql.query<{ case_id: string; interviewer_id: string | null; canceled: boolean; coordinator: boolean }>(
      `select b.case_id, b.interviewer_id, b.canceled, app_hidden.is_coordinator() as coordinator from app_public.interview_bookings b where b.id = $1`,
      [bookingId],
    );
    const booking = rows[0];
    if (!booking) throw notFound('not_found', `There is no interview booking ${bookingId} you may see.`);
    if (booking.interviewer_id !== userId && !booking.coordinator) throw forbidden('not_allowed', 'Only the interviewer of this booking or a coordinator can record that it was missed.');
    await sql.query('set local role none');
    const started = await sql.query(
      `select 1 from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id where b.id = $1 and o.starts_at <= now()`,
      [bookingId],
    );
    if (!started.rowCount) throw badRequest('interview_not_started', 'The interview has not started yet; record a missed interview after its start.');
    if ((await sql.query('select 1 from app_public.interview_reports where booking_id = $1', [bookingId])).rowCount) {
      throw new HttpError(409, 'report_exists', 'This interview has a report, so it took place.');
    }
    const inserted = await sql.query(
      `insert into app_public.missed_interviews (booking_id, case_id, recorded_by) values ($1, $2, $3) on conflict (booking_id) do nothing`,
      [bookingId, booking.case_id, userId],
    );
    if (!inserted.rowCount) throw new HttpError(409, 'already_missed', 'This interview is already recorded as missed.');
    const missed = Number((await sql.query<{ n: string }>('select count(*) as n from app_public.missed_interviews where case_id = $1', [booking.case_id])).rows[0]!.n);
    const excluded = missed >= services.missedInterviewLimit;
    if (!booking.canceled) {
      await sql.query('update app_public.interview_bookings set canceled = true, canceled_at = now() where id = $1', [bookingId]);
    }
    if (excluded) {
      // The rule decided at the act of the person who recorded the last miss (0095).
      await sql.query(`select app_hidden.raise_patient_exclusion($1, 'excluded_for_missing_interview', $2, $3)`, [
        booking.case_id,
        `Missed ${missed} booked interviews (the limit is ${services.missedInterviewLimit}).`,
        userId,
      ]);
      await completeTaskAsServer(sql, services.host, {
        caseId: booking.case_id,
        taskDefinitionKey: 'interviewTask',
        variables: { outcome: typed('rejected'), rejectedReasons: typed('missing_interview') },
        completedBy: userId,
      });
    } else {
      await sql.query(`select app_hidden.notify_workflow($1, 'interviewBookingCanceled', $2::jsonb)`, [booking.case_id, JSON.stringify({ bookingId })]);
    }
    return { missed, excluded };
  }).catch((error: unknown) => {
    throw reportDatabaseError(error);
  });
}
