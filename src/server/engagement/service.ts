/**
 * The engagement radar (issue 32 item 1): reads of the maintained per-case rows of 0290 as the
 * request role (row-level security scopes them: coordinators all, therapists and supporters their
 * own cases), and the periodic sweep that records state changes and opens outreach tasks.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import type { AvailabilityGate } from '../db/availability';
import { ANONYMOUS, withUser, type Sql } from '../db/transaction';
import { startPeriodic, type Periodic } from '../periodic';

export const ENGAGEMENT_STATES = ['active', 'inactive', 'stalled', 'lost'] as const;
export type EngagementState = (typeof ENGAGEMENT_STATES)[number];

export interface RadarRow {
  caseId: string;
  /** The case code people know (not its id) and the patient's chosen name, if any. */
  shortId: string;
  patientAlias: string | null;
  state: EngagementState;
  lastActivityAt: string;
  questionnairesDone: number;
  worksheetsDone: number;
  questionnairesOverdue: number;
  worksheetsOverdue: number;
  lastFromPatientAt: string | null;
  lastToPatientAt: string | null;
  /** Since when a message of the patient waits for an answer; null when none waits. */
  waitingSince: string | null;
}

export interface Radar {
  rows: RadarRow[];
  counts: Record<EngagementState, number>;
  thresholds: { inactiveDays: number; stalledDays: number; lostDays: number };
}

const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value == null ? null : String(value));

/** One page of the reader's participants, highest risk of dropping out first, with counts per state. */
export async function engagementRadar(sql: Sql, pageSize: number, pageOffset: number): Promise<Radar> {
  const { rows } = await sql.query<Record<string, unknown>>('select * from app_hidden.engagement_radar($1, $2)', [pageSize, pageOffset]);
  const counted = await sql.query<{ state: EngagementState; participants: number }>('select state, participants from app_hidden.engagement_counts()');
  const settings = await sql.query<{ inactive_days: number; stalled_days: number; lost_days: number }>(
    'select inactive_days, stalled_days, lost_days from app_public.engagement_settings',
  );
  const counts = { active: 0, inactive: 0, stalled: 0, lost: 0 };
  for (const c of counted.rows) counts[c.state] = c.participants;
  const s = settings.rows[0]!;
  return {
    rows: rows.map((r) => ({
      caseId: r.case_id as string,
      shortId: r.short_id as string,
      patientAlias: (r.patient_alias as string | null) ?? null,
      state: r.state as EngagementState,
      lastActivityAt: iso(r.last_activity_at)!,
      questionnairesDone: Number(r.questionnaires_done),
      worksheetsDone: Number(r.worksheets_done),
      questionnairesOverdue: Number(r.questionnaires_overdue),
      worksheetsOverdue: Number(r.worksheets_overdue),
      lastFromPatientAt: iso(r.last_from_patient_at),
      lastToPatientAt: iso(r.last_to_patient_at),
      waitingSince: iso(r.waiting_since),
    })),
    counts,
    thresholds: { inactiveDays: s.inactive_days, stalledDays: s.stalled_days, lostDays: s.lost_days },
  };
}

/** Coordinators change the thresholds; the database refuses anyone else and unordered values. */
export async function setEngagementThresholds(sql: Sql, inactiveDays: number, stalledDays: number, lostDays: number): Promise<number> {
  const result = await sql.query('update app_public.engagement_settings set inactive_days = $1, stalled_days = $2, lost_days = $3', [inactiveDays, stalledDays, lostDays]);
  return result.rowCount ?? 0;
}

/** Records state changes as of now and queues one outreach process per change; returns how many. */
export async function engagementSweep(pool: pg.Pool): Promise<number> {
  // The sweep takes no input a caller could bend (the database reads its own clock), so it runs
  // as the anonymous request role; the security-definer function does the privileged part.
  return withUser(pool, ANONYMOUS, async (sql) => {
    const { rows } = await sql.query<{ opened: number }>('select app_hidden.engagement_sweep() as opened');
    return rows[0]!.opened;
  });
}

export function startEngagementSweep(pool: pg.Pool, log: Pick<Logger, 'error'>, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('engagement sweep', intervalMs, log, () => engagementSweep(pool), gate);
}
