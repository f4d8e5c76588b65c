/**
 * The server calls of the blinding screens (issue 30 items 5 and 6): the allocation's commitment,
 * go-live and unblinding for coordinators (/api/trial/allocation/…), and the blinded assessor's
 * cases, assessments and arm guess (/api/blinding/…).
 */
import { queryOptions } from '@tanstack/react-query';
import { api } from '../../api/client';

export const blindingKeys = {
  commitment: ['blinding', 'commitment'] as const,
  myCases: ['blinding', 'my-cases'] as const,
  options: ['blinding', 'guess-options'] as const,
  index: ['blinding', 'index'] as const,
};

export interface Commitment {
  commitment: string | null;
  parameters: string | null;
  configuredAt: string;
  fixedAt: string | null;
  fixedBy: string | null;
  revealedAt: string | null;
  revealedBy: string | null;
  seed: string | null;
}

export const commitmentQuery = () =>
  queryOptions({
    queryKey: blindingKeys.commitment,
    queryFn: ({ signal }) => api<{ allocation: Commitment | null }>('GET', '/api/trial/allocation/commitment', { signal }),
  });

export const fixAllocation = () => api<{ allocation: Commitment }>('POST', '/api/trial/allocation/fix');
export const unblindAllocation = (reason: string) => api<{ allocation: Commitment }>('POST', '/api/trial/allocation/unblind', { body: { reason } });

export interface ArmIndex {
  treatment: string;
  guesses: number;
  correct: number;
  incorrect: number;
  dontKnow: number;
  bangIndex: number;
}
export const indexQuery = () =>
  queryOptions({ queryKey: blindingKeys.index, queryFn: ({ signal }) => api<{ arms: ArmIndex[] }>('GET', '/api/blinding/index', { signal }) });

export interface AssessmentCase {
  caseId: string;
  caseCode: string;
  patientName: string;
  assignedAt: string;
  postAt: string | null;
  fu1At: string | null;
  fu2At: string | null;
  guessed: boolean;
  unblindedArm: string | null;
}

export const myAssessmentCasesQuery = () =>
  queryOptions({ queryKey: blindingKeys.myCases, queryFn: ({ signal }) => api<{ cases: AssessmentCase[] }>('GET', '/api/blinding/my-cases', { signal }) });

export const guessOptionsQuery = () =>
  queryOptions({ queryKey: blindingKeys.options, queryFn: ({ signal }) => api<{ options: string[] }>('GET', '/api/blinding/guess-options', { signal }) });

export interface AssessmentInput {
  timeOfMeasurement: 'post' | 'fu1' | 'fu2';
  ptsdSeverity: number | null;
  depressionSeverity: number | null;
  notes: string;
}
export const recordAssessment = (caseId: string, input: AssessmentInput) =>
  api<{ id: string }>('POST', `/api/blinding/cases/${caseId}/assessments`, { body: input });
export const recordGuess = (caseId: string, guess: string) => api<void>('POST', `/api/blinding/cases/${caseId}/guess`, { body: { guess } });
