/**
 * Every server call of the report screens, in one file (the web data layer is being replaced:
 * docs/ARCHITECTURE.md; porting is this file). Reports are saved as the interviewer types: an
 * upsert on the booking (merge-duplicates), so a retried save never makes a second report.
 */
import type { ReportValue } from '../../../domain/interview-report';
import { api } from '../../api/client';
import { graphql, request } from '../../api/graphql';

export type ReportRow = Record<string, ReportValue | undefined> & {
  id: string;
  booking_id: string;
  case_id: string;
  interviewer_id: string | null;
  state: 'draft' | 'final';
  version: number;
  finalized_at: string | null;
  finalized_by: string | null;
  trial_outcome: string | null;
  override_reason: string | null;
  amended_at: string | null;
  amendment_reason: string | null;
  updated_at: string;
};

export interface ReportBooking {
  id: string;
  caseId: string;
  interviewerId: string | null;
  canceled: boolean;
  interviewee: { username: string } | null;
  offer: { startsAt: string; endsAt: string } | null;
  caseByCaseId: { shortId: string | null; patient: { alias: string | null; username: string } | null } | null;
  interviewReportByBookingId: { id: string; state: string; updatedAt: string; trialOutcome: string | null } | null;
  feedbackInterviewReportByBookingId: { id: string; updatedAt: string } | null;
  missedInterviewByBookingId: { recordedAt: string } | null;
}

const ReportBookings = graphql(`query ReportBookings {
  allInterviewBookingsList(condition: { canceled: false }) {
    id caseId interviewerId canceled
    interviewee { username }
    offer { startsAt endsAt }
    caseByCaseId { shortId patient { alias username } }
    interviewReportByBookingId { id state updatedAt trialOutcome }
    feedbackInterviewReportByBookingId { id updatedAt }
    missedInterviewByBookingId { recordedAt }
  }
}`);

/** The bookings the signed-in person may see (an interviewer's own; a coordinator's all). */
export async function loadReportBookings(): Promise<ReportBooking[]> {
  const data = await request(ReportBookings, {});
  return (data.allInterviewBookingsList ?? []) as ReportBooking[];
}

/** Cases that already have a finalized intake report (their later bookings are follow-ups). */
export async function loadFinalizedCaseIds(): Promise<Set<string>> {
  const rows = await api<{ case_id: string }[]>('GET', '/api/interview_reports?state=eq.final&select=case_id');
  return new Set(rows.map((r) => r.case_id));
}

export async function loadReportOfBooking(bookingId: string): Promise<ReportRow | null> {
  const rows = await api<ReportRow[]>('GET', `/api/interview_reports?booking_id=eq.${encodeURIComponent(bookingId)}`);
  return rows[0] ?? null;
}

export async function loadFinalReportsOfCase(caseId: string): Promise<ReportRow[]> {
  return api<ReportRow[]>('GET', `/api/interview_reports?case_id=eq.${encodeURIComponent(caseId)}&state=eq.final&order=finalized_at.desc`);
}

export async function loadReportVersions(reportId: string): Promise<ReportRow[]> {
  return api<ReportRow[]>('GET', `/api/interview_report_versions?report_id=eq.${encodeURIComponent(reportId)}&order=version.desc`);
}

export async function saveReport(bookingId: string, changes: Record<string, unknown>): Promise<void> {
  await api('POST', '/api/interview_reports', {
    body: { booking_id: bookingId, ...changes },
    headers: { prefer: 'resolution=merge-duplicates, return=representation' },
  });
}

export interface FinalizeAnswer {
  outcome: string;
  workflow: 'completed' | 'no_open_task';
  overridden: string[];
}

export async function finalizeReport(reportId: string, overrideReason?: string, emptySectionsReason?: string): Promise<FinalizeAnswer> {
  return api<FinalizeAnswer>('POST', `/api/interview_reports/${encodeURIComponent(reportId)}/finalize`, {
    body: { ...(overrideReason ? { overrideReason } : {}), ...(emptySectionsReason ? { emptySectionsReason } : {}) },
  });
}

/** Amends a signed report; a hard rule the amended values break needs `overrideReason` (coordinators, issue 27). */
export async function amendReport(reportId: string, reason: string, values: Record<string, unknown>, overrideReason?: string): Promise<{ version: number }> {
  return api('POST', `/api/interview_reports/${encodeURIComponent(reportId)}/amend`, { body: { reason, values, ...(overrideReason ? { overrideReason } : {}) } });
}

export async function recordMissed(bookingId: string): Promise<{ missed: number; excluded: boolean }> {
  return api('POST', `/api/interview_bookings/${encodeURIComponent(bookingId)}/missed`, { body: {} });
}

export async function loadFeedbackOfBooking(bookingId: string): Promise<Record<string, ReportValue> | null> {
  const rows = await api<Record<string, ReportValue>[]>('GET', `/api/feedback_interview_reports?booking_id=eq.${encodeURIComponent(bookingId)}`);
  const row = rows[0];
  return row ? { age: row.age ?? null, gender: row.gender ?? null } : null;
}

export async function saveFeedback(bookingId: string, changes: Record<string, unknown>): Promise<void> {
  await api('POST', '/api/feedback_interview_reports', {
    body: { booking_id: bookingId, ...changes },
    headers: { prefer: 'resolution=merge-duplicates, return=representation' },
  });
}

/** Age and gender the patient gave in the screening's baseline questionnaire, if readable. */
export async function loadScreeningDemographics(caseId: string): Promise<{ age: number | null; gender: string | null } | null> {
  const rows = await api<{ age: number | null; gender: string | null }[]>(
    'GET',
    `/api/demographics?case_id=eq.${encodeURIComponent(caseId)}&time_of_measurement=eq.screening`,
  );
  const row = rows[0];
  return row ? { age: row.age ?? null, gender: row.gender ?? null } : null;
}
