/**
 * The coordinators' response-time report of the safety loop (issue 26): for every risk answer,
 * the minutes from the signal to someone taking the task on ("I am on it", or recording the call
 * for it) and to the first call; per case and overall the count, how many are still open or
 * not taken on, and the median and maximum of both times (over the answers that have them).
 * The rows come from app_public.safety_response_times (db/migrations/0131, coordinators only);
 * the CSV files are for a safety board: case short ids and times, no names, no free text.
 */
import { toCsv, type Cell } from './instruments/export';

export interface ResponseRow {
  caseId: string;
  shortId: string;
  raisedAt: string;
  acknowledgedAt: string | null;
  firstCallAt: string | null;
  resolvedAt: string | null;
  /** Closed with a documented reason instead of a call. */
  closedWithReason: boolean;
}

export interface ResponseFigures {
  count: number;
  open: number;
  notAcknowledged: number;
  withoutCall: number;
  acknowledgement: { median: number | null; max: number | null };
  call: { median: number | null; max: number | null };
}

export interface ResponseSummary {
  overall: ResponseFigures;
  cases: { caseId: string; shortId: string; figures: ResponseFigures }[];
}

/** Whole minutes between two times, rounded to one decimal (a board reads minutes). */
export function minutesBetween(from: string, to: string | null): number | null {
  if (!to) return null;
  return Math.round((new Date(to).getTime() - new Date(from).getTime()) / 6_000) / 10;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

function spread(values: (number | null)[]): { median: number | null; max: number | null } {
  const present = values.filter((v): v is number => v !== null);
  return { median: median(present), max: present.length ? Math.max(...present) : null };
}

export function responseFigures(rows: readonly ResponseRow[]): ResponseFigures {
  return {
    count: rows.length,
    open: rows.filter((r) => !r.resolvedAt).length,
    notAcknowledged: rows.filter((r) => !r.acknowledgedAt).length,
    withoutCall: rows.filter((r) => !r.firstCallAt).length,
    acknowledgement: spread(rows.map((r) => minutesBetween(r.raisedAt, r.acknowledgedAt))),
    call: spread(rows.map((r) => minutesBetween(r.raisedAt, r.firstCallAt))),
  };
}

/** Overall and per case (cases in the order of their first risk answer). */
export function summarizeResponses(rows: readonly ResponseRow[]): ResponseSummary {
  const byCase = new Map<string, ResponseRow[]>();
  for (const row of rows) byCase.set(row.caseId, [...(byCase.get(row.caseId) ?? []), row]);
  return {
    overall: responseFigures(rows),
    cases: [...byCase.entries()].map(([caseId, caseRows]) => ({ caseId, shortId: caseRows[0]!.shortId, figures: responseFigures(caseRows) })),
  };
}

export const RESPONSE_ROWS_HEADER = ['case', 'signal_at', 'acknowledged_at', 'first_call_at', 'closed_at', 'closed_with_reason', 'minutes_to_acknowledgement', 'minutes_to_call'];

/** One line per risk answer (times in UTC, ISO 8601). */
export function responseRowsCsv(rows: readonly ResponseRow[]): string {
  return toCsv(
    RESPONSE_ROWS_HEADER,
    rows.map((r): Cell[] => [
      r.shortId,
      r.raisedAt,
      r.acknowledgedAt,
      r.firstCallAt,
      r.resolvedAt,
      r.resolvedAt ? (r.closedWithReason ? 'yes' : 'no') : null,
      minutesBetween(r.raisedAt, r.acknowledgedAt),
      minutesBetween(r.raisedAt, r.firstCallAt),
    ]),
  );
}

export const RESPONSE_SUMMARY_HEADER = [
  'case', 'risk_answers', 'open', 'not_acknowledged', 'without_call',
  'median_minutes_to_acknowledgement', 'max_minutes_to_acknowledgement', 'median_minutes_to_call', 'max_minutes_to_call',
];

/** One line per case, then the line "all" with the figures over every risk answer. */
export function responseSummaryCsv(summary: ResponseSummary): string {
  const line = (label: string, f: ResponseFigures): Cell[] => [
    label, f.count, f.open, f.notAcknowledged, f.withoutCall, f.acknowledgement.median, f.acknowledgement.max, f.call.median, f.call.max,
  ];
  return toCsv(RESPONSE_SUMMARY_HEADER, [...summary.cases.map((c) => line(c.shortId, c.figures)), line('all', summary.overall)]);
}
