/**
 * The questionnaire scores of cases as staff read them (spec §7 DetailedCases; the case
 * detail's scores). Scores come from `app_public.case_scores`, which applies the records' read
 * rule: the care team and coordinators see totals, patients never do.
 */
import { graphql } from '../../api/client';

export interface ScoreRow {
  instrument: string;
  timeOfMeasurement: string;
  total: number | null;
  band: string | null;
  flags: string[] | null;
  subscales: Record<string, number | null> | null;
  diagnoses: Record<string, boolean | null> | null;
  complete: boolean | null;
  createdAt: string;
  updatedAt: string;
}

const SCORE_FIELDS = 'instrument timeOfMeasurement total band flags subscales diagnoses complete createdAt updatedAt';

export async function loadCaseScores(caseId: string): Promise<ScoreRow[] | null> {
  const data = await graphql<{ caseById: { caseScoresList: ScoreRow[] } | null }>(
    `query CaseScores($id: UUID!) {
      caseById(id: $id) { caseScoresList(orderBy: [INSTRUMENT_ASC, CREATED_AT_ASC]) { ${SCORE_FIELDS} } }
    }`,
    { id: caseId },
  );
  return data.caseById?.caseScoresList ?? null;
}

export interface DetailedCase {
  id: string;
  shortId: string;
  stage: string;
  phq9: Pick<ScoreRow, 'timeOfMeasurement' | 'total' | 'band' | 'createdAt'>[];
  gad7: Pick<ScoreRow, 'timeOfMeasurement' | 'total' | 'band' | 'createdAt'>[];
}

/** Spec §7 DetailedCases: cases with their GAD-7 and PHQ-9 scores and measurement times. */
export async function loadDetailedCases(first = 200, offset = 0): Promise<{ totalCount: number; nodes: DetailedCase[] }> {
  const data = await graphql<{ allCases: { totalCount: number; nodes: DetailedCase[] } }>(
    `query DetailedCases($first: Int = 200, $offset: Int = 0) {
      allCases(first: $first, offset: $offset, orderBy: CREATED_AT_DESC) {
        totalCount
        nodes {
          id shortId stage
          phq9: caseScoresList(condition: { instrument: "phq9" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
          gad7: caseScoresList(condition: { instrument: "gad7" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
        }
      }
    }`,
    { first, offset },
  );
  return data.allCases;
}
