/**
 * The case stages the staff screens offer (spec §4 "Case stage": a string). The database only
 * checks the format (docs/decisions/0005: the workflow owns the values), so screens must also show a
 * stage that is not in this list; the labels live in the catalogs under `caseStages.<stage>`.
 */
export const CASE_STAGES = [
  'registration',
  'screening',
  'interview',
  'treatment',
  'post',
  'fu1',
  'fu2',
  'counseling',
  'rejected',
  'excluded',
  'finished',
] as const;

export type CaseStage = (typeof CASE_STAGES)[number];

export function isKnownStage(stage: string): stage is CaseStage {
  return (CASE_STAGES as readonly string[]).includes(stage);
}

/** The stages to offer in a select: the known ones, plus the current value if it is unknown. */
export function stageOptions(current?: string | null): string[] {
  return current && !isKnownStage(current) ? [...CASE_STAGES, current] : [...CASE_STAGES];
}
