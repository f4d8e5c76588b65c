/**
 * Times of measurement (spec §2 /messungen/…) and which questionnaires are due at each: the
 * measurement schedule. Pure data and functions: the server serves the schedule it was
 * configured with (`GET /api/measurements/schedule`), the web app asks in that order.
 *
 * Defaults (`DEFAULT_SCHEDULE`), for a trial in depression and trauma-related disorders:
 * - screening: the inputs of the exclusion rules (baseline questionnaire, LEC-5, trauma record,
 *   BDI-II) then the symptom measures the interview builds on (PCL-5, PHQ-9, GAD-7);
 * - pre (baseline before treatment): symptoms (PHQ-9, GAD-7, PCL-5, ITQ), well-being
 *   (EUROHIS-QOL), social support (MSPSS) and expectations (PATHEV);
 * - post: the same symptoms and well-being, the working alliance (WAI-SR), the evaluation and
 *   side effects (INEP), and a comment;
 * - fu1, fu2 (follow-ups): the symptom measures, well-being and a comment.
 *
 * A trial changes a battery with a setting per time, a comma-separated ordered list of
 * collection names: `MEASUREMENTS_PRE=phq9,gad7,pcl5` (an empty value means nothing is due).
 * Unknown names and duplicates stop the server at start with a message naming them.
 */
import { isInstrumentCode, validateAnswers, type Answers, type InstrumentCode, type InstrumentSpec } from './instruments';
import { isAnswered } from './instruments/answers';

export const MEASUREMENT_TIMES = ['screening', 'pre', 'post', 'fu1', 'fu2'] as const;
export type MeasurementTime = (typeof MEASUREMENT_TIMES)[number];

export type MeasurementSchedule = Readonly<Record<MeasurementTime, readonly InstrumentCode[]>>;

export function isMeasurementTime(value: unknown): value is MeasurementTime {
  return typeof value === 'string' && (MEASUREMENT_TIMES as readonly string[]).includes(value);
}

export const DEFAULT_SCHEDULE: MeasurementSchedule = {
  screening: ['demographics', 'lec5', 'traumalisteneu', 'bdi2', 'pcl5', 'phq9', 'gad7'],
  pre: ['phq9', 'gad7', 'pcl5', 'itq', 'eurohis', 'mspss', 'pathev'],
  post: ['phq9', 'gad7', 'pcl5', 'itq', 'eurohis', 'wai', 'inep', 'evaluation', 'comment'],
  fu1: ['phq9', 'gad7', 'pcl5', 'itq', 'eurohis', 'comment'],
  fu2: ['phq9', 'gad7', 'pcl5', 'itq', 'eurohis', 'comment'],
};

/** The setting that lists a time's battery: `MEASUREMENTS_SCREENING`, `MEASUREMENTS_FU1`, … */
export function scheduleSettingName(time: MeasurementTime): string {
  return `MEASUREMENTS_${time.toUpperCase()}`;
}

/** Reads one battery setting; throws with a message a person can act on. */
export function parseBattery(name: string, raw: string): InstrumentCode[] {
  const codes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = codes.filter((code) => !isInstrumentCode(code));
  if (unknown.length > 0) throw new Error(`Setting ${name} lists unknown questionnaires: ${unknown.join(', ')}`);
  const duplicates = codes.filter((code, index) => codes.indexOf(code) !== index);
  if (duplicates.length > 0) throw new Error(`Setting ${name} lists a questionnaire twice: ${[...new Set(duplicates)].join(', ')}`);
  return codes as InstrumentCode[];
}

/** The schedule from settings; a time without its setting keeps the default battery. */
export function scheduleFromSettings(env: Readonly<Record<string, string | undefined>>, defaults: MeasurementSchedule = DEFAULT_SCHEDULE): MeasurementSchedule {
  const entries = MEASUREMENT_TIMES.map((time) => {
    const name = scheduleSettingName(time);
    const raw = env[name];
    return [time, raw === undefined ? [...defaults[time]] : parseBattery(name, raw)] as const;
  });
  return Object.fromEntries(entries) as Record<MeasurementTime, InstrumentCode[]>;
}

/** Every questionnaire that is due at some time, each once, in order of first appearance. */
export function scheduledInstruments(schedule: MeasurementSchedule): InstrumentCode[] {
  return [...new Set(MEASUREMENT_TIMES.flatMap((time) => schedule[time]))];
}

export type RecordStatus = 'not_started' | 'in_progress' | 'complete';

/**
 * Where a patient stands with one record. The client cannot read the server's `complete`
 * (patients see no score columns), so it applies the same rule the server scores by: every
 * shown required item answered and every answer valid.
 */
export function recordStatus(definition: InstrumentSpec<unknown>, record: Answers | undefined): RecordStatus {
  if (!record || !definition.items.some((item) => isAnswered(record[item.id]))) return 'not_started';
  return validateAnswers(definition, itemAnswers(definition, record)).length === 0 ? 'complete' : 'in_progress';
}

/** The item answers of a stored record, without its record and score columns. */
export function itemAnswers(definition: Pick<InstrumentSpec<unknown>, 'items'>, record: Answers): Answers {
  return Object.fromEntries(definition.items.filter((item) => Object.hasOwn(record, item.id)).map((item) => [item.id, record[item.id]]));
}
