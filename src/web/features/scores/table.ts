/**
 * Arranges score rows for the case detail: one line per instrument (in the order of the
 * instrument registry, spec §3), one column per time of measurement, and the series a chart
 * draws. Pure, so the arrangement is unit-tested apart from React.
 */
import { INSTRUMENT_CODES, INSTRUMENTS, isInstrumentCode, totalRange, type InstrumentCode } from '../../../domain/instruments';
import type { ScoreRow } from './api';

/** Spec §3: the times of measurement, in the order a trial passes them. */
export const MEASUREMENT_TIMES = ['screening', 'pre', 'post', 'fu1', 'fu2'] as const;
export type MeasurementTime = (typeof MEASUREMENT_TIMES)[number];

/** The instruments charted over time (issue: PHQ-9, GAD-7 and PCL-5). */
export const CHARTED: readonly InstrumentCode[] = ['phq9', 'gad7', 'pcl5'];

export interface InstrumentScores {
  code: InstrumentCode;
  byTime: Partial<Record<MeasurementTime, ScoreRow>>;
}

function isTime(value: string): value is MeasurementTime {
  return (MEASUREMENT_TIMES as readonly string[]).includes(value);
}

/** Instruments with at least one record, in registry order; unknown codes are left out. */
export function arrangeScores(rows: readonly ScoreRow[]): InstrumentScores[] {
  const byCode = new Map<InstrumentCode, InstrumentScores>();
  for (const row of rows) {
    if (!isInstrumentCode(row.instrument) || !isTime(row.timeOfMeasurement)) continue;
    const entry = byCode.get(row.instrument) ?? { code: row.instrument, byTime: {} };
    entry.byTime[row.timeOfMeasurement] = row;
    byCode.set(row.instrument, entry);
  }
  return INSTRUMENT_CODES.filter((code) => byCode.has(code)).map((code) => byCode.get(code)!);
}

/** The times at which any instrument has a record, so empty columns are not shown. */
export function timesInUse(scores: readonly InstrumentScores[]): MeasurementTime[] {
  return MEASUREMENT_TIMES.filter((time) => scores.some((s) => s.byTime[time]));
}

export interface SeriesPoint {
  time: MeasurementTime;
  total: number;
}

export interface Series {
  code: InstrumentCode;
  range: [number, number];
  /** Lower bounds of the severity bands above the lowest, drawn as guide lines. */
  thresholds: number[];
  points: SeriesPoint[];
}

/** The charted instruments that have at least one total, with their axis and band limits. */
export function chartSeries(scores: readonly InstrumentScores[]): Series[] {
  const series: Series[] = [];
  for (const code of CHARTED) {
    const entry = scores.find((s) => s.code === code);
    const range = totalRange(INSTRUMENTS[code]);
    if (!entry || !range) continue;
    const points = MEASUREMENT_TIMES.flatMap((time) => {
      const total = entry.byTime[time]?.total;
      return typeof total === 'number' ? [{ time, total }] : [];
    });
    if (points.length === 0) continue;
    const thresholds = (INSTRUMENTS[code].bands ?? []).map((b) => b.min).filter((min) => min > range[0] && min < range[1]);
    series.push({ code, range, thresholds, points });
  }
  return series;
}
