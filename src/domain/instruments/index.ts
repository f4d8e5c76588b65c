/**
 * The instrument registry: one definition per questionnaire collection of spec §3, keyed by the
 * REST collection name of spec §7 (`/api/phq9` → `INSTRUMENTS.phq9`), plus the interview-report
 * modules AUDIT and DAST-10. A definition drives the table (item ids are columns), validation
 * (`validateAnswers`), scoring (`score`), the form and the export. Scoring facts come from
 * shared/docs/INSTRUMENTS.md; unverified facts are configuration listed in `assumptions`.
 *
 * Trial configuration: a trial pins its cut-points and corrects unverified facts with
 * `withOverrides(INSTRUMENTS.pcl5, { cutOff: 23 })`; unknown keys throw at start.
 *
 * Licensed item wording: this repository ships neutral labels of its own ("Item 3: sleep") in
 * ar, de and en, never questionnaire wording. A trial installs the wording it is licensed to
 * use, per locale, as content, without a code change: either a JSON object of texts, or content
 * templates (one per text). Keys (see wording.ts):
 *   instrument.<code>.title.<locale>
 *   instrument.<code>.instructions.<locale>
 *   instrument.<code>.<itemId>.<locale>                       e.g. instrument.phq9.item9.de
 *   instrument.<code>.<itemId>.option.<optionCode>.<locale>   e.g. instrument.bdi2.item16.option.1a.ar
 * For integer scales the option code is the value (instrument.pcl5.item1.option.0.en). Content
 * templates cannot have dots in their code, so there a text is stored with code
 * `templateCode(...)` (`instr-phq9-item9`, `instr-bdi2-item16-o-1a`) and the locale as its
 * `language_code`. The form and the export call `wordingFor(definition, part, locale, lookup)`,
 * which returns the installed wording or falls back to the neutral label.
 */
import type { Answers, InstrumentDefinition, ScoreResult, ScoringContext } from './types';
import { score } from './score';
import { AUDIT } from './definitions/audit';
import { BDI2 } from './definitions/bdi2';
import { CDRISK10 } from './definitions/cdrisk10';
import { COMMENT } from './definitions/comment';
import { DAST10 } from './definitions/dast10';
import { DEMOGRAPHICS } from './definitions/demographics';
import { DISCLOSURE } from './definitions/disclosure';
import { EUROHIS } from './definitions/eurohis';
import { EVALUATION } from './definitions/evaluation';
import { GAD2 } from './definitions/gad2';
import { GAD7 } from './definitions/gad7';
import { INEP } from './definitions/inep';
import { ITQ } from './definitions/itq';
import { LEC5 } from './definitions/lec5';
import { LSAS } from './definitions/lsas';
import { MSPSS } from './definitions/mspss';
import { PATHEV } from './definitions/pathev';
import { PCL5 } from './definitions/pcl5';
import { PG13 } from './definitions/pg13';
import { PHQ15 } from './definitions/phq15';
import { PHQ9 } from './definitions/phq9';
import { PMBS } from './definitions/pmbs';
import { SBQR } from './definitions/sbqr';
import { SCALING } from './definitions/scaling';
import { SEWIP } from './definitions/sewip';
import { TAQ } from './definitions/taq';
import { TGISRPLUS } from './definitions/tgisrplus';
import { TRAUMALISTENEU } from './definitions/traumalisteneu';
import { TRGI } from './definitions/trgi';
import { WAI } from './definitions/wai';

/** The questionnaire collections of spec §3 / §7, in the spec's order. */
export const INSTRUMENT_CODES = [
  'demographics',
  'inep',
  'bdi2',
  'cdrisk10',
  'comment',
  'eurohis',
  'scaling',
  'gad2',
  'gad7',
  'mspss',
  'pcl5',
  'pg13',
  'phq15',
  'lec5',
  'pmbs',
  'sbqr',
  'wai',
  'trgi',
  'taq',
  'itq',
  'tgisrplus',
  'sewip',
  'traumalisteneu',
  'disclosure',
  'evaluation',
  'lsas',
  'pathev',
  'phq9',
] as const;
export type InstrumentCode = (typeof INSTRUMENT_CODES)[number];

export const INSTRUMENTS: Record<InstrumentCode, InstrumentDefinition> = {
  demographics: DEMOGRAPHICS,
  inep: INEP,
  bdi2: BDI2,
  cdrisk10: CDRISK10,
  comment: COMMENT,
  eurohis: EUROHIS,
  scaling: SCALING,
  gad2: GAD2,
  gad7: GAD7,
  mspss: MSPSS,
  pcl5: PCL5,
  pg13: PG13,
  phq15: PHQ15,
  lec5: LEC5,
  pmbs: PMBS,
  sbqr: SBQR,
  wai: WAI,
  trgi: TRGI,
  taq: TAQ,
  itq: ITQ,
  tgisrplus: TGISRPLUS,
  sewip: SEWIP,
  traumalisteneu: TRAUMALISTENEU,
  disclosure: DISCLOSURE,
  evaluation: EVALUATION,
  lsas: LSAS,
  pathev: PATHEV,
  phq9: PHQ9,
};

/** Modules of the interview report (spec §3) scored with the same machinery. */
export const INTERVIEW_MODULES = { audit: AUDIT, dast10: DAST10 } as const;
export type InterviewModuleCode = keyof typeof INTERVIEW_MODULES;

export function isInstrumentCode(value: unknown): value is InstrumentCode {
  return typeof value === 'string' && (INSTRUMENT_CODES as readonly string[]).includes(value);
}

/** The definition behind `/api/<collection>`, or undefined for other collections. */
export function instrumentFor(collection: string): InstrumentDefinition | undefined {
  return isInstrumentCode(collection) ? INSTRUMENTS[collection] : undefined;
}

/** AUDIT of the interview report; the person's gender and age select the thresholds. */
export function scoreAudit(answers: Answers, context: ScoringContext = {}, definition = AUDIT): ScoreResult {
  return score(definition, answers, context);
}

/** DAST-10 of the interview report. */
export function scoreDast10(answers: Answers, definition = DAST10): ScoreResult {
  return score(definition, answers);
}

export { AUDIT, BDI2, CDRISK10, COMMENT, DAST10, DEMOGRAPHICS, DISCLOSURE, EUROHIS, EVALUATION, GAD2, GAD7, INEP, ITQ, LEC5, LSAS, MSPSS, PATHEV, PCL5, PG13, PHQ15, PHQ9, PMBS, SBQR, SCALING, SEWIP, TAQ, TGISRPLUS, TRAUMALISTENEU, TRGI, WAI };
export { score, bandOf } from './score';
export { scoreRange, totalRange } from './range';
export { validateAnswers, clearHidden, shownItems } from './answers';
export { withOverrides, defineInstrument, definitionProblems, InstrumentDefinitionError, type ConfigOverrides } from './define';
export { wordingFor, wordingKey, templateCode, wordingFromRecord, type WordingLookup, type WordingPart } from './wording';
export { anyTrauma, screeningExclusions, SCREENING_EXCLUSION_DEFAULTS, SCREENING_EXCLUSION_FLAGS, type ScreeningExclusionConfig, type ScreeningExclusionFlag, type ScreeningInputs, type ScreeningExclusions } from './exclusions';
export { screeningInputsFromDemographics } from './definitions/demographics';
export { screeningInputsFromLec5 } from './definitions/lec5';
export { screeningInputsFromTraumaRecord } from './definitions/traumalisteneu';
export type * from './types';
