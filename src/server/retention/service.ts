/**
 * Retention per record kind and the anonymization stage (issue 31 items 4 and 5). The rules
 * live in SQL (0247): app_hidden.run_retention is the job's one function, a report first and
 * then the performing run, both logged. See docs/decisions/retention-and-anonymization.md.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { withOwner, type Sql } from '../db/transaction';
import { startPeriodic, type Periodic } from '../periodic';
import type { AvailabilityGate } from '../db/availability';

type Row = Record<string, unknown>;
const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value));

export const RETENTION_KINDS = ['anonymized_case_identifiers', 'notification_log', 'expired_tokens'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];

export interface RetentionSetting {
  recordKind: RetentionKind;
  keepDays: number | null;
  updatedAt: string;
}

export interface RetentionRun {
  id: string;
  ranAt: string;
  performed: boolean;
  report: { record_kind: RetentionKind; records: number; cases?: string[] }[];
}

const toRun = (r: Row): RetentionRun => ({ id: r.id as string, ranAt: iso(r.ran_at)!, performed: r.performed as boolean, report: r.report as RetentionRun['report'] });

export async function retentionSettings(sql: Sql): Promise<RetentionSetting[]> {
  const { rows } = await sql.query<Row>('select record_kind, keep_days, updated_at from app_public.retention_settings order by record_kind');
  return rows.map((r) => ({ recordKind: r.record_kind as RetentionKind, keepDays: (r.keep_days as number | null) ?? null, updatedAt: iso(r.updated_at)! }));
}

/** A coordinator sets a kind's period (the confirmed act; e-signature can be added here). */
export async function setRetention(sql: Sql, kind: string, keepDays: number | null): Promise<void> {
  await sql.query('select app_hidden.set_retention($1, $2)', [kind, keepDays]);
}

/** One run of the job's function: the report (perform = false) or doing it, logged either way. */
export async function runRetention(sql: Sql, perform: boolean, at?: Date): Promise<RetentionRun> {
  const { rows } = await sql.query<Row>('select * from app_hidden.run_retention($1, coalesce($2::timestamptz, now()))', [perform, at ?? null]);
  return toRun(rows[0]!);
}

export async function recentRetentionRuns(sql: Sql, limit = 10): Promise<RetentionRun[]> {
  const { rows } = await sql.query<Row>('select * from app_public.retention_runs order by ran_at desc, id limit $1', [limit]);
  return rows.map(toRun);
}

export interface AnonymizationPreview {
  dueAt: string | null;
  held: boolean;
  fields: { recordKind: string; field: string; records: number }[];
}

/** When a case's anonymization is due and what it will erase (the dry run). */
export async function anonymizationPreview(sql: Sql, caseId: string): Promise<AnonymizationPreview> {
  const { rows } = await sql.query<Row>('select * from app_hidden.anonymization_preview($1)', [caseId]);
  return {
    dueAt: iso(rows[0]?.due_at),
    held: rows[0]?.held === true,
    fields: rows.map((r) => ({ recordKind: r.record_kind as string, field: r.field as string, records: Number(r.records) })),
  };
}

/**
 * The daily job: once per UTC day (the first check after midnight), the report of what is due,
 * then the performing run; both are rows of retention_runs and lines of the log.
 */
export async function retentionDay(pool: pg.Pool, log: Pick<Logger, 'info'>, now = new Date()): Promise<RetentionRun[] | null> {
  return withOwner(pool, async (sql) => {
    // One process at a time, and one performing run a day.
    await sql.query(`select pg_advisory_xact_lock(hashtext('sanad retention job'))`);
    const done = await sql.query(`select 1 from app_public.retention_runs where performed and ran_at >= date_trunc('day', $1::timestamptz at time zone 'UTC') at time zone 'UTC'`, [now]);
    if ((done.rowCount ?? 0) > 0) return null;
    const report = await runRetention(sql, false, now);
    log.info({ retention: report.report }, 'retention due');
    const performed = await runRetention(sql, true, now);
    log.info({ retention: performed.report }, 'retention performed');
    return [report, performed];
  });
}

export function startRetentionJob(pool: pg.Pool, log: Pick<Logger, 'info' | 'error'>, intervalMs: number, gate?: AvailabilityGate): Periodic {
  return startPeriodic('retention job', intervalMs, log, () => retentionDay(pool, log), gate);
}
