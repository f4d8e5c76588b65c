/**
 * The patient's path (issue 25): what the home page, the menu and the crisis entry read about
 * the patient's own case. One document gives the stage, the dropout flag, the open-risk flag,
 * the care team (their chosen names) and the interview booking; the treatment's worksheets and
 * letters come from the therapy feature's reads.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { graphql, request, type ResultOf } from '../../api/graphql';

export const PatientPath = graphql(`
  query PatientPath($caseId: UUID!) {
    caseById(id: $caseId) {
      id shortId stage isDropout riskOpen stopKind
      othersList { id actsAsTherapist actsAsInterviewer actsAsSupervisor actsAsSupporter actsAsCounselor person { id alias } }
      interviewBookingsByCaseIdList(condition: { canceled: false }, orderBy: CREATED_AT_DESC, first: 1) { id offer { id startsAt endsAt } }
      lettersByCaseIdList(orderBy: CREATED_AT_DESC) { id subject publishedAt isUnread }
    }
  }
`);
export type PatientPathCase = NonNullable<ResultOf<typeof PatientPath>['caseById']>;

export const MarkLettersRead = graphql(`
  mutation MarkLettersRead($caseId: UUID!) { markLettersRead(input: { caseId: $caseId }) { integer } }
`);

export const patientPathKeys = {
  all: ['patientPath'] as const,
  case: (caseId: string) => ['patientPath', caseId] as const,
};

/** Read again when the patient returns to the tab: the stage moves while they are away. */
export const patientPathQuery = (caseId: string) =>
  queryOptions({
    queryKey: patientPathKeys.case(caseId),
    queryFn: async ({ signal }) => (await request(PatientPath, { caseId }, { signal })).caseById ?? null,
    refetchOnWindowFocus: true,
  });

/** The letters page was opened: its letters are read; the home's marks follow. */
export async function markLettersRead(client: QueryClient, caseId: string): Promise<void> {
  await request(MarkLettersRead, { caseId });
  await client.invalidateQueries({ queryKey: patientPathKeys.case(caseId) });
}

/** After a questionnaire answer that may open a risk, or any change of the path. */
export const refetchPatientPath = (client: QueryClient) => client.invalidateQueries({ queryKey: patientPathKeys.all });
