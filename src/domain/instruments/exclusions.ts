/**
 * Screening exclusions of spec §4 "Exclusion of a patient" with the thresholds of spec §9:
 * lack of email, lack of internet access, minor age, upcoming treatment, depression score 45
 * or higher, no trauma or depression score 13 or lower. The flags are the patient's exclusion
 * flags of spec §3. Missing interview and exclusion during the interview are set by the
 * interview workflow, not by screening answers, so they are not computed here.
 */
export const SCREENING_EXCLUSION_FLAGS = [
  'excludedForLackOfEmail',
  'excludedForLackOfInternetAccess',
  'excludedForMinorAge',
  'excludedForUpcomingTreatment',
  'excludedForBdiGte45',
  'excludedForNoTraumaOrBdiLte13',
] as const;
export type ScreeningExclusionFlag = (typeof SCREENING_EXCLUSION_FLAGS)[number];

/** What screening knows; undefined means not (yet) known. */
export interface ScreeningInputs {
  readonly hasEmail?: boolean;
  readonly hasInternetAccess?: boolean;
  readonly age?: number;
  /** Treatment (e.g. psychotherapy) planned within the coming weeks (spec §9: 4 weeks). */
  readonly upcomingTreatment?: boolean;
  readonly bdi2Total?: number;
  /** At least one traumatic event (trauma list or LEC-5), as the trial defines it. */
  readonly hasTrauma?: boolean;
}

export interface ScreeningExclusionConfig {
  readonly minimumAge: number;
  /** BDI-II total at or above which a person is excluded. */
  readonly bdiExcludeAtLeast: number;
  /** BDI-II total at or below which a person is excluded (with the trauma rule). */
  readonly bdiExcludeAtMost: number;
  /**
   * How "no trauma, or depression score 13 or lower" combines. `both` (the default since issue
   * 27, docs/decisions/screening-exclusion-reading.md): only a person with neither a trauma nor
   * a relevant depression score is excluded, so PTSD alone and depression alone both stay in the
   * trial's population. `either` (the spec's literal wording): no trauma excludes, and a low
   * score excludes; it excluded a person with a criterion-A trauma and BDI-II 10, although PTSD
   * alone is an accepted primary problem (spec §4).
   */
  readonly lowScoreRule: 'either' | 'both';
}

export const SCREENING_EXCLUSION_DEFAULTS: ScreeningExclusionConfig = {
  minimumAge: 18,
  bdiExcludeAtLeast: 45,
  bdiExcludeAtMost: 13,
  lowScoreRule: 'both',
};

export interface ScreeningExclusions {
  /** Flags that apply, in the order of SCREENING_EXCLUSION_FLAGS. */
  readonly flags: ScreeningExclusionFlag[];
  /** Flags that cannot be decided yet because an input is missing. */
  readonly undetermined: ScreeningExclusionFlag[];
  readonly excluded: boolean;
}

/** Three-valued logic: undefined is "unknown". */
function or(a: boolean | undefined, b: boolean | undefined): boolean | undefined {
  if (a === true || b === true) return true;
  return a === false && b === false ? false : undefined;
}

function and(a: boolean | undefined, b: boolean | undefined): boolean | undefined {
  if (a === false || b === false) return false;
  return a === true && b === true ? true : undefined;
}

function not(a: boolean | undefined): boolean | undefined {
  return a === undefined ? undefined : !a;
}

function whenKnown(value: number | undefined, test: (value: number) => boolean): boolean | undefined {
  return value === undefined || !Number.isFinite(value) ? undefined : test(value);
}

/**
 * One answer to "has a trauma" from several sources (trauma record, LEC-5): any source showing a
 * trauma decides yes; otherwise any source that rules one out decides no; else unknown.
 */
export function anyTrauma(...answers: readonly (boolean | undefined)[]): boolean | undefined {
  if (answers.includes(true)) return true;
  return answers.includes(false) ? false : undefined;
}

export function screeningExclusions(inputs: ScreeningInputs, config: ScreeningExclusionConfig = SCREENING_EXCLUSION_DEFAULTS): ScreeningExclusions {
  const noTrauma = not(inputs.hasTrauma);
  const lowScore = whenKnown(inputs.bdi2Total, (total) => total <= config.bdiExcludeAtMost);
  const rules: Record<ScreeningExclusionFlag, boolean | undefined> = {
    excludedForLackOfEmail: not(inputs.hasEmail),
    excludedForLackOfInternetAccess: not(inputs.hasInternetAccess),
    excludedForMinorAge: whenKnown(inputs.age, (age) => age < config.minimumAge),
    excludedForUpcomingTreatment: inputs.upcomingTreatment,
    excludedForBdiGte45: whenKnown(inputs.bdi2Total, (total) => total >= config.bdiExcludeAtLeast),
    excludedForNoTraumaOrBdiLte13: config.lowScoreRule === 'either' ? or(noTrauma, lowScore) : and(noTrauma, lowScore),
  };
  const flags = SCREENING_EXCLUSION_FLAGS.filter((flag) => rules[flag] === true);
  const undetermined = SCREENING_EXCLUSION_FLAGS.filter((flag) => rules[flag] === undefined);
  return { flags, undetermined, excluded: flags.length > 0 };
}
