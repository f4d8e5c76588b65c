/**
 * Clinical-safety rules shared by the server's screens and the web app (issue 13). The database
 * holds the same rules (db/migrations/0050: the call checks and the signal triggers); these
 * copies let a form say what is wrong before it is sent and let the patient's screen show the
 * crisis panel the moment a risk answer is given.
 */
import type { Answers, InstrumentDefinition } from './instruments';
import { score } from './instruments/score';

/** The fixed list of a call's risk of suicide (spec §3 CaseSuicideCall.riskOfSuicide). */
export const RISK_VALUES = ['none', 'low', 'moderate', 'high'] as const;
export type RiskValue = (typeof RISK_VALUES)[number];

export function isRiskValue(value: unknown): value is RiskValue {
  return typeof value === 'string' && (RISK_VALUES as readonly string[]).includes(value);
}

/** The caller's score: the points of the MINI suicidality module, 0–33 (INSTRUMENTS.md). */
export const SUICIDE_SCORE_MAX = 33;

export interface CallRuleInput {
  riskOfSuicide: string | null;
  suicideScore: number | null;
  followUpContact: boolean;
  followUpDate: string | null;
  excludePatient: boolean;
  exclusionReason: string | null;
}

/** Problem codes of a call, the same codes the database raises (hint of the SQL error). */
export type CallProblem = 'UNKNOWN_RISK_VALUE' | 'SCORE_OUT_OF_RANGE' | 'FOLLOW_UP_DATE_NEEDS_CONTACT' | 'EXCLUSION_NEEDS_REASON';

export function callProblems(call: CallRuleInput): CallProblem[] {
  const problems: CallProblem[] = [];
  if (call.riskOfSuicide !== null && !isRiskValue(call.riskOfSuicide)) problems.push('UNKNOWN_RISK_VALUE');
  if (call.suicideScore !== null && (!Number.isInteger(call.suicideScore) || call.suicideScore < 0 || call.suicideScore > SUICIDE_SCORE_MAX)) {
    problems.push('SCORE_OUT_OF_RANGE');
  }
  if (call.followUpDate !== null && !call.followUpContact) problems.push('FOLLOW_UP_DATE_NEEDS_CONTACT');
  if (call.excludePatient && !call.exclusionReason?.trim()) problems.push('EXCLUSION_NEEDS_REASON');
  return problems;
}

/**
 * The safety flags the given answers raise (PHQ-9 item 9 ≥ 1, BDI-II item 9 ≥ 1, SBQ-R at its
 * cut-off, …): the definition's flags of kind "safety", from whatever is answered so far.
 */
export function safetyFlags(definition: InstrumentDefinition, answers: Answers): string[] {
  const safety = new Set(definition.flags.filter((flag) => flag.kind === 'safety').map((flag) => flag.code));
  if (safety.size === 0) return [];
  return score(definition, answers).flags.filter((code) => safety.has(code));
}

// The risk answer of a signal, in words (issue 26) ---------------------------------------------------

/** What a signal stored about its answer (db/migrations/0050 and 0058: safety_signals.details). */
export interface SignalDetails {
  flags?: string[];
  item9?: number;
  total?: number;
  timeOfMeasurement?: string;
  suicideRisk?: string;
  suicidalityScore?: number;
  [key: string]: unknown;
}

export interface SignalAnswer {
  /** The questionnaire's name in the locale; null when the source is not a questionnaire. */
  questionnaire: string | null;
  /** The answered suicide item: its neutral label and the answer with its anchor, when known. */
  item: { label: string; answer: string } | null;
  /** The total and the highest total possible, when the signal stored one. */
  total: { value: number; max: number | null } | null;
  /** The safety flags that signalled, in words. */
  flags: string[];
}

type LabelledLocale = 'ar' | 'de' | 'en';

/** The answer a risk signal is about, said with the questionnaire's own labels (never its wording). */
export function describeSignalAnswer(source: string, details: SignalDetails, locale: LabelledLocale, instrument: InstrumentDefinition | undefined, maxTotal: number | null): SignalAnswer {
  if (!instrument) return { questionnaire: null, item: null, total: null, flags: [] };
  const item = instrument.items.find((i) => i.id === 'item9');
  let answered: SignalAnswer['item'] = null;
  if (item && typeof details.item9 === 'number') {
    const value = details.item9;
    const anchor =
      item.scale.kind === 'integer'
        ? item.scale.anchors.find((a) => a.value === value)?.labels[locale]
        : item.scale.kind === 'options'
          ? item.scale.options.find((o) => o.points === value || o.code === String(value))?.labels[locale]
          : undefined;
    answered = { label: item.labels[locale], answer: anchor ? `${value} (${anchor})` : String(value) };
  }
  const flags = (details.flags ?? []).map((code) => instrument.flags.find((f) => f.code === code)?.labels[locale] ?? code);
  return {
    questionnaire: instrument.labels[locale],
    item: answered,
    total: typeof details.total === 'number' ? { value: details.total, max: maxTotal } : null,
    flags,
  };
}
