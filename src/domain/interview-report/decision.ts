/**
 * Decision support for the interview report (spec §4 "Interview outcome", §9 clinical
 * thresholds, INSTRUMENTS.md MINI/AUDIT/DAST-10/DSM-5 PTSD). Pure functions of the entered
 * values and the interview date: the form shows them live, the server recomputes them on every
 * save (stored as the derived columns) and checks the outcome against them on finalize. The
 * interviewer decides; an outcome a hard rule forbids is refused unless a coordinator overrides
 * it with a reason.
 */
import { AUDIT, DAST10, scoreAudit, scoreDast10 } from '../instruments';
import type { ScoringContext } from '../instruments/types';
import { PTSD_GROUPS, type FutureReason, type PrimaryProblem, type PtsdGroup, type RejectedReason, type SuicidalityRisk, type TrialOutcome } from './definition';
import type { ReportValues } from './validation';

export interface DecisionConfig {
  /** Spec §9: minimum age 18. */
  readonly minimumAge: number;
  /** A trauma less than this many days before the interview is too recent (one month: 31 days). */
  readonly traumaMinDays: number;
  /** Medication must have been stable this many days before and stay so after (4 weeks). */
  readonly medicationStableDays: number;
  /** Earlier treatment by the provider must have ended this many days ago (3 months: 90 days). */
  readonly earlierTreatmentDays: number;
  /** Psychotherapy planned within this many days is a reason to register later (4 weeks). */
  readonly plannedPsychotherapyDays: number;
  /** DAST-10 total rejecting (spec §9: 3 or more). */
  readonly dastCutOff: number;
  /** MINI 5.0.0 module C points of C1…C6 and the lower bounds of low, moderate, high (INSTRUMENTS.md ⚠️). */
  readonly miniPoints: readonly [number, number, number, number, number, number];
  readonly miniBands: { readonly low: number; readonly moderate: number; readonly high: number };
  /** DSM-5 PTSD: items needed per criterion group (B–H of the report). */
  readonly ptsdMinimum: Readonly<Record<PtsdGroup, number>>;
}

export const DEFAULT_DECISION_CONFIG: DecisionConfig = {
  minimumAge: 18,
  traumaMinDays: 31,
  medicationStableDays: 28,
  earlierTreatmentDays: 90,
  plannedPsychotherapyDays: 28,
  dastCutOff: 3,
  miniPoints: [1, 2, 6, 10, 10, 4],
  miniBands: { low: 1, moderate: 6, high: 10 },
  ptsdMinimum: { b: 1, c: 1, d: 2, e: 2, f: 1, g: 1, h: 2 },
};

/** Whole days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const yes = (values: ReportValues, id: string) => values[id] === true;
const dateOf = (values: ReportValues, id: string): string | undefined => (typeof values[id] === 'string' ? (values[id] as string) : undefined);
const numberOf = (values: ReportValues, id: string): number | undefined => (typeof values[id] === 'number' ? (values[id] as number) : undefined);

export interface Suicidality {
  /** Null until any item is answered. */
  readonly score: number | null;
  readonly risk: SuicidalityRisk | null;
}

/** MINI 5.0.0 module C: the points of the "yes" items; bands low 1–5, moderate 6–9, high ≥10. */
export function miniSuicidality(values: ReportValues, config = DEFAULT_DECISION_CONFIG): Suicidality {
  const ids = [1, 2, 3, 4, 5, 6].map((n) => `suicidality_c${n}`);
  if (ids.every((id) => values[id] === undefined || values[id] === null)) return { score: null, risk: null };
  const score = ids.reduce((sum, id, i) => sum + (yes(values, id) ? config.miniPoints[i]! : 0), 0);
  return { score, risk: riskBand(score, config) };
}

export function riskBand(score: number, config = DEFAULT_DECISION_CONFIG): SuicidalityRisk {
  if (score >= config.miniBands.high) return 'high';
  if (score >= config.miniBands.moderate) return 'moderate';
  if (score >= config.miniBands.low) return 'low';
  return 'none';
}

export interface AuditResult {
  readonly total: number | null;
  readonly zone: string | null;
  /** The cut-off that applies to this person (8, or 7 for women and people over 65). */
  readonly cutOff: number;
  /**
   * The cut-off is certainly reached: by the total, or already from the answered items (their
   * points reach it whatever the open items will be). Issue 27: a rule fires as soon as it is certain.
   */
  readonly exceeded: boolean;
  /** The lowest and highest total the open items still allow (equal when all are answered). */
  readonly possible: { readonly min: number; readonly max: number };
}

/**
 * The range of totals a partly answered scale still allows: the answered items' points, plus
 * each open item's lowest (min) or highest (max) points. A cut-off is certain once `min` reaches
 * it (it is reached) or `max` cannot (it is not).
 */
export function possibleTotal(items: readonly { readonly points: number | null; readonly lowest: number; readonly highest: number }[]): { min: number; max: number } {
  let min = 0;
  let max = 0;
  for (const item of items) {
    min += item.points ?? item.lowest;
    max += item.points ?? item.highest;
  }
  return { min, max };
}

/** An AUDIT answer's points: items 1–8 are 0–4 numbers, items 9–10 the codes '0', '2', '4'. */
function auditPoints(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && /^[0-4]$/.test(value)) return Number(value);
  return null;
}

/** AUDIT through the instrument machinery, with the person's sex and age (INSTRUMENTS.md). */
export function auditResult(values: ReportValues): AuditResult {
  const answers: Record<string, number | string | null> = {};
  for (let n = 1; n <= 10; n += 1) answers[`item${n}`] = (values[`audit${n}`] as number | string | null | undefined) ?? null;
  const sex = values.sex;
  const age = numberOf(values, 'age');
  const gender: ScoringContext['gender'] = sex === 'FEMALE' || sex === 'MALE' || sex === 'DIVERSE' ? sex : undefined;
  const context: ScoringContext = { ...(gender ? { gender } : {}), ...(age !== undefined ? { age } : {}) };
  const result = scoreAudit(answers, context);
  const lower = (context.gender !== undefined && AUDIT.config.lowerThresholdGenders.includes(context.gender)) || (age !== undefined && age > AUDIT.config.lowerCutOffAgeAbove);
  const cutOff = lower ? AUDIT.config.lowerCutOff : AUDIT.config.cutOff;
  const possible = possibleTotal(Array.from({ length: 10 }, (_, i) => ({ points: auditPoints(values[`audit${i + 1}`]), lowest: 0, highest: 4 })));
  return {
    total: result.total ?? null,
    zone: result.band ?? null,
    cutOff,
    exceeded: result.flags.includes('cutoff_exceeded') || possible.min >= cutOff,
    possible,
  };
}

export interface DastResult {
  readonly total: number | null;
  /** The cut-off is certainly reached, by the total or already by the answered items (issue 27). */
  readonly atLeastCutOff: boolean;
  readonly possible: { readonly min: number; readonly max: number };
}

/**
 * DAST-10: one point per "yes", item 3 reversed ("no" scores). Item 1 "no" (no drug use) scores
 * the whole scale 0 (the instrument's skip rule). Otherwise each answered item counts as
 * answered, so three "yes" already make the cut-off 3 certain; an open item 1 is taken as use
 * once any other item scores (those items are asked only of people who use drugs).
 */
export function dastResult(values: ReportValues, config = DEFAULT_DECISION_CONFIG): DastResult {
  const answers: Record<string, boolean | null> = {};
  for (let n = 1; n <= 10; n += 1) answers[`item${n}`] = (values[`dast${n}`] as boolean | null | undefined) ?? null;
  const total = scoreDast10(answers).total ?? null;
  const noUse = answers.item1 === false && DAST10.config.skipWhenNoUse;
  const possible = noUse
    ? { min: 0, max: 0 }
    : possibleTotal(
        Array.from({ length: 10 }, (_, i) => {
          const answer = answers[`item${i + 1}`];
          const points = typeof answer === 'boolean' ? (i === 2 ? (answer ? 0 : 1) : answer ? 1 : 0) : null;
          return { points, lowest: 0, highest: 1 };
        }),
      );
  return { total, atLeastCutOff: (total !== null && total >= config.dastCutOff) || possible.min >= config.dastCutOff, possible };
}

export interface PtsdResult {
  readonly groups: Readonly<Record<PtsdGroup, boolean>>;
  readonly total: number;
  readonly criteriaMet: boolean;
}

/** DSM-5 PTSD by criterion group: B≥1, C≥1, D≥2, E≥2 items, and F, G, H fulfilled. */
export function ptsdResult(values: ReportValues, config = DEFAULT_DECISION_CONFIG): PtsdResult {
  let total = 0;
  const groups = {} as Record<PtsdGroup, boolean>;
  for (const [group, [from, to]] of Object.entries(PTSD_GROUPS) as [PtsdGroup, readonly [number, number]][]) {
    let count = 0;
    for (let n = from; n <= to; n += 1) if (yes(values, `ptsd_g${n}`)) count += 1;
    total += count;
    groups[group] = count >= config.ptsdMinimum[group];
  }
  return { groups, total, criteriaMet: Object.values(groups).every(Boolean) };
}

/** Major depression criterion A: five of the nine symptoms, one of them A1 or A2. */
export function criterionA(values: ReportValues, prefix: 'mde_a' | 'past_mde_a'): boolean {
  let count = 0;
  for (let n = 1; n <= 9; n += 1) if (yes(values, `${prefix}${n}`)) count += 1;
  return count >= 5 && (yes(values, `${prefix}1`) || yes(values, `${prefix}2`));
}

export interface Bipolar {
  readonly currentMania: boolean;
  readonly pastMania: boolean;
  readonly currentHypomania: boolean;
  readonly pastHypomania: boolean;
  readonly other: boolean;
}

export interface DecisionSupport {
  readonly suicidality: Suicidality;
  /** Spec §4 reason 6: high risk, or low/moderate risk with a serious attempt within 3 years. */
  readonly suicidalityRejects: boolean;
  readonly audit: AuditResult;
  readonly dast: DastResult;
  readonly ptsd: PtsdResult;
  readonly ptsdDiagnosis: boolean;
  readonly mde: { readonly criterionA: boolean; readonly criterionB: boolean; readonly criterionC: boolean; readonly current: boolean; readonly past: boolean };
  readonly pdd: boolean;
  readonly psychosis: boolean;
  readonly bipolar: Bipolar;
  readonly minor: boolean;
  readonly traumaRecent: boolean;
  readonly medicationUnstableBefore: boolean;
  readonly medicationUnstableAfter: boolean;
  readonly earlierTreatmentRecent: boolean;
  readonly plannedPsychotherapySoon: boolean;
  readonly proposedPrimaryProblem: PrimaryProblem;
  readonly proposedRejectedReasons: readonly RejectedReason[];
  readonly proposedFutureReasons: readonly FutureReason[];
  /** When each future-registration reason expires (YYYY-MM-DD), where a date is known. */
  readonly futureReasonExpiry: Partial<Record<FutureReason, string>>;
}

/** Everything the sticky summary shows and finalize checks; `interviewDate` is YYYY-MM-DD. */
export function decisionSupport(values: ReportValues, interviewDate: string, config = DEFAULT_DECISION_CONFIG): DecisionSupport {
  const suicidality = miniSuicidality(values, config);
  const suicidalityRejects = suicidality.risk === 'high' || ((suicidality.risk === 'low' || suicidality.risk === 'moderate') && yes(values, 'suicidality_serious_attempt_3y'));
  const audit = auditResult(values);
  const dast = dastResult(values, config);
  const ptsd = ptsdResult(values, config);
  const ptsdDiagnosis = ptsd.criteriaMet && values.trauma_criterion_a !== false;
  const mdeA = criterionA(values, 'mde_a');
  const mdeB = yes(values, 'mde_a10');
  const mdeC = yes(values, 'mde_a11');
  const mdeCurrent = mdeA && mdeB && mdeC;
  const mdePast = criterionA(values, 'past_mde_a');
  const pdd = (['a', 'b', 'c', 'e', 'f', 'g', 'h'] as const).every((c) => yes(values, `pdd_criterion_${c}`));
  let psychosis = false;
  for (let n = 1; n <= 19; n += 1) if (yes(values, `psychosis_b${n}`)) psychosis = true;
  const anyDepression = mdeCurrent || mdePast || pdd;
  const bipolar: Bipolar = {
    currentMania: yes(values, 'mania_current') && (mdePast || pdd),
    pastMania: yes(values, 'mania_past') && anyDepression,
    currentHypomania: yes(values, 'hypomania_current') && (mdePast || pdd),
    pastHypomania: yes(values, 'hypomania_past') && anyDepression,
    other: yes(values, 'bipolar_specified'),
  };

  const age = numberOf(values, 'age');
  const minor = age !== undefined && age < config.minimumAge;

  const expiry: Partial<Record<FutureReason, string>> = {};
  const event = dateOf(values, 'worst_event_on');
  const traumaRecent = event !== undefined && daysBetween(event, interviewDate) < config.traumaMinDays;
  if (event !== undefined && traumaRecent) expiry.trauma_recent = addDays(event, config.traumaMinDays);

  const medicated = values.medication === true;
  const stableSince = dateOf(values, 'medication_stable_since');
  const medicationUnstableBefore = medicated && stableSince !== undefined && daysBetween(stableSince, interviewDate) < config.medicationStableDays;
  if (stableSince !== undefined && medicationUnstableBefore) expiry.medication_before = addDays(stableSince, config.medicationStableDays);
  const change = dateOf(values, 'medication_change_planned_on');
  const medicationUnstableAfter = medicated && change !== undefined && daysBetween(interviewDate, change) >= 0 && daysBetween(interviewDate, change) < config.medicationStableDays;
  if (change !== undefined && medicationUnstableAfter) expiry.medication_after = addDays(change, config.medicationStableDays);

  const earlier = values.earlier_treatment;
  const ended = dateOf(values, 'earlier_treatment_ended_on');
  const earlierTreatmentRecent = typeof earlier === 'string' && earlier !== 'none' && ended !== undefined && daysBetween(ended, interviewDate) < config.earlierTreatmentDays;
  if (ended !== undefined && earlierTreatmentRecent) expiry.earlier_treatment = addDays(ended, config.earlierTreatmentDays);

  const planned = dateOf(values, 'planned_psychotherapy_on');
  const plannedPsychotherapySoon = planned !== undefined && daysBetween(interviewDate, planned) >= 0 && daysBetween(interviewDate, planned) < config.plannedPsychotherapyDays;
  if (planned !== undefined && plannedPsychotherapySoon) expiry.planned_psychotherapy = addDays(planned, config.plannedPsychotherapyDays);
  if (minor && age !== undefined) expiry.minor = addDays(interviewDate, Math.ceil((config.minimumAge - age) * 365.25));

  const proposedPrimaryProblem = primaryProblem(ptsdDiagnosis, mdeCurrent, mdePast, pdd);
  const noTarget = proposedPrimaryProblem === 'other';
  const retraumatization = yes(values, 'retraumatization_danger') && !mdeCurrent;

  const rejected: RejectedReason[] = [];
  const add = (when: boolean, reason: RejectedReason) => when && rejected.push(reason);
  add(values.trauma_criterion_a === false && !mdeCurrent && !pdd, 'no_trauma');
  add(traumaRecent, 'trauma_recent');
  add(noTarget, 'no_depression_or_ptsd');
  add(retraumatization, 'retraumatization');
  add(psychosis, 'psychosis');
  add(suicidalityRejects, 'suicidality');
  add(minor, 'minor');
  add(medicationUnstableBefore, 'medication_before');
  add(medicationUnstableAfter, 'medication_after');
  add(bipolar.currentMania, 'bipolar_current_mania');
  add(bipolar.pastMania, 'bipolar_past_mania');
  add(bipolar.currentHypomania, 'bipolar_current_hypomania');
  add(bipolar.pastHypomania, 'bipolar_past_hypomania');
  add(bipolar.other, 'bipolar_specified');
  add(audit.exceeded, 'alcohol');
  add(dast.atLeastCutOff, 'drugs');
  add(earlierTreatmentRecent, 'earlier_treatment');
  add(yes(values, 'refuses_treatment'), 'refuses');

  const future: FutureReason[] = [];
  const later = (when: boolean, reason: FutureReason) => when && future.push(reason);
  later(minor, 'minor');
  later(traumaRecent, 'trauma_recent');
  later(retraumatization, 'retraumatization');
  later(noTarget, 'no_depression_or_ptsd');
  later(yes(values, 'concurrent_psychotherapy'), 'concurrent_psychotherapy');
  later(plannedPsychotherapySoon, 'planned_psychotherapy');
  later(medicationUnstableBefore, 'medication_before');
  later(medicationUnstableAfter, 'medication_after');
  later(earlierTreatmentRecent, 'earlier_treatment');

  return {
    suicidality,
    suicidalityRejects,
    audit,
    dast,
    ptsd,
    ptsdDiagnosis,
    mde: { criterionA: mdeA, criterionB: mdeB, criterionC: mdeC, current: mdeCurrent, past: mdePast },
    pdd,
    psychosis,
    bipolar,
    minor,
    traumaRecent,
    medicationUnstableBefore,
    medicationUnstableAfter,
    earlierTreatmentRecent,
    plannedPsychotherapySoon,
    proposedPrimaryProblem,
    proposedRejectedReasons: rejected,
    proposedFutureReasons: future,
    futureReasonExpiry: expiry,
  };
}

/** The primary problem the items point to (spec §4, nine options). */
export function primaryProblem(ptsd: boolean, mdeCurrent: boolean, mdePast: boolean, pdd: boolean): PrimaryProblem {
  if (ptsd && mdeCurrent && pdd) return 'ptsd_mde_pdd';
  if (ptsd && mdeCurrent) return 'ptsd_mde_current';
  if (ptsd && pdd) return 'ptsd_pdd';
  if (ptsd && mdePast) return 'ptsd_mde_past';
  if (ptsd) return 'ptsd';
  if (mdeCurrent && pdd) return 'mde_pdd';
  if (mdeCurrent) return 'mde_current';
  if (pdd) return 'pdd';
  return 'other';
}

/** The reasons that forbid acceptance (hard rules): a coordinator may override with a reason. */
export const HARD_RULES: readonly RejectedReason[] = [
  'trauma_recent',
  'psychosis',
  'suicidality',
  'minor',
  'medication_before',
  'medication_after',
  'bipolar_current_mania',
  'bipolar_past_mania',
  'bipolar_current_hypomania',
  'bipolar_past_hypomania',
  'bipolar_specified',
  'alcohol',
  'drugs',
  'earlier_treatment',
];

const HARD_RULE_TEXT: Record<string, string> = {
  trauma_recent: 'the trauma was less than one month ago',
  psychosis: 'a psychosis item is present',
  suicidality: 'the suicide risk rules out treatment',
  minor: 'the patient is younger than 18',
  medication_before: 'the medication was not stable for the last 4 weeks',
  medication_after: 'the medication will change within the next 4 weeks',
  bipolar_current_mania: 'bipolar rule 10 (current mania with past depression) applies',
  bipolar_past_mania: 'bipolar rule 11 (past mania with depression) applies',
  bipolar_current_hypomania: 'bipolar rule 12 (current hypomania with past depression) applies',
  bipolar_past_hypomania: 'bipolar rule 13 (past hypomania with depression) applies',
  bipolar_specified: 'bipolar rule 14 (other specified bipolar disorder) applies',
  alcohol: 'the AUDIT cut-off is reached',
  drugs: 'the DAST-10 total is 3 or more',
  earlier_treatment: 'treatment by the provider ended less than 3 months ago',
};

/**
 * The trial's rules for an acceptance, as data (issue 27): each is a hard rule, refused unless a
 * coordinator overrides it with a recorded reason, checked on every signing and every amendment.
 * The reasons of HARD_RULES (the spec's rejection reasons the items prove) come first; these
 * follow. Their wording for people is `trialRules.rules.<code>` in the web app.
 */
export interface AcceptanceRule {
  readonly code: string;
  /** True when an acceptance breaks the rule. */
  readonly breached: (values: ReportValues, support: DecisionSupport) => boolean;
  readonly message: string;
}

const SUICIDALITY_ITEMS = [1, 2, 3, 4, 5, 6].map((n) => `suicidality_c${n}`);

/** The diagnoses each primary problem claims (spec §4), checked against the items. */
const PROBLEM_DIAGNOSES: Readonly<Record<PrimaryProblem, readonly ('ptsd' | 'mde_current' | 'mde_past' | 'pdd')[]>> = {
  ptsd: ['ptsd'],
  ptsd_mde_current: ['ptsd', 'mde_current'],
  ptsd_mde_past: ['ptsd', 'mde_past'],
  ptsd_pdd: ['ptsd', 'pdd'],
  ptsd_mde_pdd: ['ptsd', 'mde_current', 'pdd'],
  mde_current: ['mde_current'],
  pdd: ['pdd'],
  mde_pdd: ['mde_current', 'pdd'],
  other: [],
};

function diagnosisHolds(diagnosis: 'ptsd' | 'mde_current' | 'mde_past' | 'pdd', support: DecisionSupport): boolean {
  if (diagnosis === 'ptsd') return support.ptsdDiagnosis;
  if (diagnosis === 'mde_current') return support.mde.current;
  if (diagnosis === 'mde_past') return support.mde.past;
  return support.pdd;
}

export const ACCEPTANCE_RULES: readonly AcceptanceRule[] = [
  {
    code: 'no_trauma',
    breached: (_values, support) => support.proposedRejectedReasons.includes('no_trauma'),
    message: 'There is no trauma by the diagnostic manual and no depressive disorder (rule "no_trauma").',
  },
  {
    code: 'no_depression_or_ptsd',
    breached: (_values, support) => support.proposedRejectedReasons.includes('no_depression_or_ptsd'),
    message: 'The items show neither PTSD nor a depressive disorder (rule "no_depression_or_ptsd").',
  },
  {
    code: 'suicidality_not_assessed',
    breached: (values, support) =>
      SUICIDALITY_ITEMS.some((id) => typeof values[id] !== 'boolean') ||
      ((support.suicidality.risk === 'low' || support.suicidality.risk === 'moderate') && typeof values.suicidality_serious_attempt_3y !== 'boolean'),
    message: 'The suicidality section is not fully assessed: answer C1 to C6 (and, with a low or moderate risk, the serious attempt within 3 years) (rule "suicidality_not_assessed").',
  },
  {
    code: 'diagnosis_inconsistent',
    breached: (values, support) =>
      typeof values.primary_problem === 'string' &&
      (PROBLEM_DIAGNOSES[values.primary_problem as PrimaryProblem] ?? []).some((d) => !diagnosisHolds(d, support)),
    message: 'The diagnosis sections do not support the chosen primary problem (rule "diagnosis_inconsistent").',
  },
  {
    code: 'ptsd_without_trauma',
    breached: (values) =>
      (values.accepted_reason === 'ptsd' || (typeof values.primary_problem === 'string' && PTSD_PROBLEMS.includes(values.primary_problem))) &&
      values.trauma_criterion_a !== true,
    message: 'PTSD needs a trauma by the diagnostic manual (criterion A answered yes) (rule "ptsd_without_trauma").',
  },
];

/** The codes of ACCEPTANCE_RULES (the web app translates each). */
export const ACCEPTANCE_RULE_CODES: readonly string[] = ACCEPTANCE_RULES.map((r) => r.code);

export interface OutcomeProblem {
  /** A hard rule (a rejected reason code) or a completeness rule (`incomplete_*`, `conflict_*`). */
  readonly rule: string;
  /** Hard rules may be overridden by a coordinator with a reason; completeness rules never. */
  readonly overridable: boolean;
  readonly message: string;
}

const PTSD_PROBLEMS: readonly string[] = ['ptsd', 'ptsd_mde_current', 'ptsd_mde_past', 'ptsd_pdd', 'ptsd_mde_pdd'];

/** Why the chosen result cannot be finalized (empty when it can). */
export function outcomeProblems(values: ReportValues, support: DecisionSupport): OutcomeProblem[] {
  const problems: OutcomeProblem[] = [];
  const need = (rule: string, message: string) => problems.push({ rule, overridable: false, message });
  const list = (id: string) => (Array.isArray(values[id]) ? (values[id] as string[]) : []);
  if (typeof values.primary_problem !== 'string') need('incomplete_primary_problem', 'Choose the primary problem.');
  if (typeof values.status !== 'string') need('incomplete_status', 'Choose whether the patient is accepted.');
  if (values.status === 'accepted') {
    if (typeof values.accepted_reason !== 'string') need('incomplete_accepted_reason', 'Choose what the patient is accepted for.');
    if (list('rejected_reasons').length > 0) need('conflict_accepted_rejected', 'An accepted patient cannot have reasons for not accepting; clear them.');
    if (values.register_again === true) need('conflict_accepted_later', 'An accepted patient does not register again later; clear that choice.');
    if (values.counseling_accepted === true) need('conflict_accepted_counseling', 'An accepted patient is not referred to counselling; clear that choice.');
    if (values.accepted_reason === 'ptsd' && typeof values.primary_problem === 'string' && !PTSD_PROBLEMS.includes(values.primary_problem)) {
      need('conflict_ptsd_reason', 'PTSD treatment needs a PTSD primary problem.');
    }
    if (typeof values.accepted_reason === 'string' && values.accepted_reason.startsWith('depression') && (values.primary_problem === 'other' || values.primary_problem === 'ptsd')) {
      need('conflict_depression_reason', 'Depression treatment needs a depressive primary problem.');
    }
    for (const rule of HARD_RULES) {
      if (support.proposedRejectedReasons.includes(rule)) {
        problems.push({ rule, overridable: true, message: `The patient cannot be accepted: ${HARD_RULE_TEXT[rule]} (rule "${rule}").` });
      }
    }
    for (const rule of ACCEPTANCE_RULES) {
      if (rule.breached(values, support)) problems.push({ rule: rule.code, overridable: true, message: `The patient cannot be accepted: ${rule.message}` });
    }
  }
  if (values.status === 'rejected' && values.register_again !== true && values.counseling_accepted !== true && list('rejected_reasons').length === 0) {
    need('incomplete_rejected_reasons', 'Choose at least one reason for not accepting.');
  }
  if (values.register_again === true) {
    const reasons = list('register_again_reasons');
    if (reasons.length === 0) need('incomplete_register_again_reasons', 'Choose at least one reason to register again later.');
    if (reasons.includes('other') && (typeof values.register_again_reason_text !== 'string' || values.register_again_reason_text.trim() === '')) {
      need('incomplete_register_again_text', 'Describe the other reason to register again later.');
    }
    if (typeof values.register_again_on !== 'string') need('incomplete_register_again_on', 'Choose the date to invite the patient again.');
  }
  return problems;
}

/** The trial's outcome variable from the report's result (workflows/trial.bpmn `outcome`). */
export function trialOutcome(values: ReportValues): TrialOutcome {
  if (values.status === 'accepted') return values.accepted_reason === 'ptsd' ? 'ptsd' : 'depression';
  if (values.counseling_accepted === true) return 'counseling';
  if (values.register_again === true) return 'later';
  return 'rejected';
}

/** The proposed date to invite again: the latest expiry of the chosen reasons that have one. */
export function proposedReinviteDate(reasons: readonly string[], support: DecisionSupport): string | null {
  const dates = reasons.map((r) => support.futureReasonExpiry[r as FutureReason]).filter((d): d is string => d !== undefined);
  return dates.length > 0 ? dates.sort().at(-1)! : null;
}

/** The derived columns stored with every save (definition.ts `derived` fields). */
export function derivedColumns(values: ReportValues, interviewDate: string, config = DEFAULT_DECISION_CONFIG): Record<string, boolean | number | string | null> {
  const s = decisionSupport(values, interviewDate, config);
  const columns: Record<string, boolean | number | string | null> = {
    suicidality_score: s.suicidality.score,
    suicidality_risk: s.suicidality.risk,
    ptsd_total: s.ptsd.total,
    mde_criterion_a: s.mde.criterionA,
    mde_criterion_b: s.mde.criterionB,
    mde_criterion_c: s.mde.criterionC,
    past_mde: s.mde.past,
    audit_total: s.audit.total,
    dast_total: s.dast.total,
  };
  for (const group of Object.keys(PTSD_GROUPS) as PtsdGroup[]) columns[`ptsd_${group}_fulfilled`] = s.ptsd.groups[group];
  return columns;
}
