/**
 * The questionnaire scores of cases as staff read them (spec §7 DetailedCases; the case
 * detail's scores). Scores come from `app_public.case_scores`, which applies the records' read
 * rule: the care team and coordinators see totals, patients never do.
 */
import { queryOptions } from '@tanstack/react-query';
import { graphql, request } from '../../api/graphql';

export interface ScoreRow {
  instrument: string;
  timeOfMeasurement: string;
  total: number | null;
  band: string | null;
  flags: (string | null)[] | null;
  subscales: Record<string, number | null> | null;
  diagnoses: Record<string, boolean | null> | null;
  complete: boolean | null;
  createdAt: string;
  updatedAt: string;
}

export const CaseScores = graphql(`
  query CaseScores($id: UUID!) {
    caseById(id: $id) {
      id
      caseScoresList(orderBy: [INSTRUMENT_ASC, CREATED_AT_ASC]) {
        instrument timeOfMeasurement total band flags subscales diagnoses complete createdAt updatedAt
      }
    }
  }
`);

export const DetailedCases = graphql(`
  query DetailedCases($first: Int = 200, $offset: Int = 0) {
    allCases(first: $first, offset: $offset, orderBy: CREATED_AT_DESC) {
      totalCount
      nodes {
        id shortId stage
        phq9: caseScoresList(condition: { instrument: "phq9" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
        gad7: caseScoresList(condition: { instrument: "gad7" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
      }
    }
  }
`);

export interface DetailedCase {
  id: string;
  shortId: string;
  stage: string;
  phq9: Pick<ScoreRow, 'timeOfMeasurement' | 'total' | 'band' | 'createdAt'>[];
  gad7: Pick<ScoreRow, 'timeOfMeasurement' | 'total' | 'band' | 'createdAt'>[];
}

export const scoreKeys = {
  all: ['scores'] as const,
  case: (caseId: string) => ['scores', 'case', caseId] as const,
  detailed: (first: number, offset: number) => ['scores', 'detailed', first, offset] as const,
};

export async function loadCaseScores(caseId: string): Promise<ScoreRow[] | null> {
  const data = await request(CaseScores, { id: caseId });
  // subscales and diagnoses are JSON objects the scoring wrote (src/server/questionnaires).
  return (data.caseById?.caseScoresList as ScoreRow[] | undefined) ?? null;
}

export const caseScoresQuery = (caseId: string) => queryOptions({ queryKey: scoreKeys.case(caseId), queryFn: () => loadCaseScores(caseId) });

/** Spec §7 DetailedCases: cases with their GAD-7 and PHQ-9 scores and measurement times. */
export const detailedCasesQuery = (first = 200, offset = 0) =>
  queryOptions({
    queryKey: scoreKeys.detailed(first, offset),
    queryFn: async () => {
      const data = await request(DetailedCases, { first, offset });
      return { totalCount: data.allCases?.totalCount ?? 0, nodes: (data.allCases?.nodes ?? []).map((n) => ({ ...n, shortId: n.shortId ?? '' })) as DetailedCase[] };
    },
  });
