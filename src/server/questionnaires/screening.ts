/**
 * Screening exclusion (spec §4 "Exclusion of a patient", §9 thresholds): after a screening
 * record of one of its inputs is written, the rules of src/domain/instruments/exclusions.ts run
 * over the case's complete screening records, and the flags that apply are raised on the
 * patient's account in the same transaction. A flag is decided as soon as its own inputs are
 * complete (no email needs only the baseline questionnaire); undecided flags stay as they are.
 * Flags are only ever raised here, never lowered (docs/decisions/0012-exclusions-and-dropouts.md).
 */
import {
  anyTrauma,
  BDI2,
  DEMOGRAPHICS,
  LEC5,
  score,
  screeningExclusions,
  screeningInputsFromDemographics,
  screeningInputsFromLec5,
  screeningInputsFromTraumaRecord,
  TRAUMALISTENEU,
  type Answers,
  type InstrumentCode,
  type InstrumentDefinition,
  type ScreeningExclusionFlag,
  type ScreeningInputs,
} from '../../domain/instruments';
import type { Sql } from '../db/transaction';
import { storedAnswers } from './records';
import type { ScreeningExclusionColumn } from './migration';

/** The collections whose screening records feed the rules. */
const INPUTS = { demographics: DEMOGRAPHICS, bdi2: BDI2, traumalisteneu: TRAUMALISTENEU, lec5: LEC5 } as const satisfies Partial<Record<InstrumentCode, InstrumentDefinition>>;
type InputCode = keyof typeof INPUTS;

export function isScreeningInput(code: InstrumentCode): code is InputCode {
  return Object.hasOwn(INPUTS, code);
}

/** The account column of each rule's flag (spec §3 Patient). */
export const EXCLUSION_COLUMNS: Readonly<Record<ScreeningExclusionFlag, ScreeningExclusionColumn>> = {
  excludedForLackOfEmail: 'excluded_for_lack_of_email',
  excludedForLackOfInternetAccess: 'excluded_for_lack_of_internet_access',
  excludedForMinorAge: 'excluded_for_minor_age',
  excludedForUpcomingTreatment: 'excluded_for_upcoming_treatment',
  excludedForBdiGte45: 'excluded_for_bdi_gte45',
  excludedForNoTraumaOrBdiLte13: 'excluded_for_no_trauma_or_low_bdi',
};

/**
 * What the complete screening records say. An incomplete record says nothing yet: a form saved
 * half-way must not exclude anyone. Upcoming treatment is not asked at screening (the interview
 * asks about planned psychotherapy), so it stays undecided here.
 */
export function screeningInputs(records: Partial<Record<InputCode, Answers>>): ScreeningInputs {
  const complete = (code: InputCode): Answers | undefined => {
    const answers = records[code];
    return answers && score(INPUTS[code], answers).complete ? answers : undefined;
  };
  const demographics = complete('demographics');
  const bdi2 = complete('bdi2');
  const traumaRecord = complete('traumalisteneu');
  const lec5 = complete('lec5');
  return {
    ...(demographics ? screeningInputsFromDemographics(demographics) : {}),
    bdi2Total: bdi2 ? score(BDI2, bdi2).total : undefined,
    hasTrauma: anyTrauma(traumaRecord && screeningInputsFromTraumaRecord(traumaRecord).hasTrauma, lec5 && screeningInputsFromLec5(lec5).hasTrauma),
  };
}

/** Runs the rules for a case and raises the flags that apply, as the person who wrote. */
export async function applyScreeningExclusions(sql: Sql, caseId: string): Promise<ScreeningExclusionColumn[]> {
  const records: Partial<Record<InputCode, Answers>> = {};
  for (const code of Object.keys(INPUTS) as InputCode[]) {
    const answers = await storedAnswers(sql, code, INPUTS[code], caseId, 'screening');
    if (Object.keys(answers).length > 0) records[code] = answers;
  }
  const columns = screeningExclusions(screeningInputs(records)).flags.map((flag) => EXCLUSION_COLUMNS[flag]);
  if (columns.length > 0) await sql.query('select app_hidden.raise_screening_exclusions($1, $2::text[])', [caseId, columns]);
  return columns;
}
