/**
 * What the counseling screens ask the server (issue 27 item 5): whether a case is on its
 * counseling path (its counseling process, GraphQL), the counselor accounts and the one
 * assignment command (/api/counseling, src/server/counseling/routes.ts), and a counselor's
 * counseling cases. Tasks, letters and worksheet feedback use their own features' calls.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api } from '../../api/client';
import { graphql, request } from '../../api/graphql';
import { workflowKeys } from '../tasks/api';
import { caseKeys } from '../cases/api';

const CaseCounseling = graphql(
  `query CaseCounseling($caseId: UUID!) {
    allWorkflowInstancesList(condition: { caseId: $caseId, definitionKey: "counseling" }, orderBy: [START_TIME_DESC], first: 1) { id state startTime endTime }
    caseById(id: $caseId) { id stage members: caseMembersByCaseIdList(condition: { actsAsCounselor: true }) { userId person: userByUserId { id username alias } } }
  }`,
);

export interface CaseCounselingState {
  /** The newest counseling process of the case, or null when the case was never referred. */
  process: { id: string; state: string; startTime: string; endTime: string | null } | null;
  stage: string | null;
  counselors: { id: string; username: string; alias: string | null }[];
}

export async function loadCaseCounseling(caseId: string): Promise<CaseCounselingState> {
  const data = await request(CaseCounseling, { caseId });
  const process = data.allWorkflowInstancesList?.[0] ?? null;
  return {
    process: process ? { id: process.id, state: process.state, startTime: process.startTime, endTime: process.endTime ?? null } : null,
    stage: data.caseById?.stage ?? null,
    counselors: (data.caseById?.members ?? []).flatMap((m) => (m.person ? [{ id: m.person.id, username: m.person.username, alias: m.person.alias ?? null }] : [])),
  };
}

const MyCounselingCases = graphql(
  `query MyCounselingCases {
    currentUser { id caseMembersByUserIdList(condition: { actsAsCounselor: true }, orderBy: CREATED_AT_DESC) {
      caseId case: caseByCaseId { id shortId stage patient { id username alias } }
    } }
  }`,
);

export interface CounselingCase {
  id: string;
  shortId: string | null;
  stage: string;
  patient: { id: string; username: string; alias: string | null } | null;
}

export async function loadMyCounselingCases(): Promise<CounselingCase[]> {
  const data = await request(MyCounselingCases);
  return (data.currentUser?.caseMembersByUserIdList ?? []).flatMap((m) =>
    m.case ? [{ id: m.case.id, shortId: m.case.shortId, stage: m.case.stage, patient: m.case.patient ? { ...m.case.patient, alias: m.case.patient.alias ?? null } : null }] : [],
  );
}

export interface CounselorAccount {
  id: string;
  username: string;
  alias: string | null;
}

export const counselingKeys = {
  all: ['counseling'] as const,
  case: (caseId: string) => ['counseling', 'case', caseId] as const,
  counselors: () => ['counseling', 'counselors'] as const,
  mine: () => ['counseling', 'mine'] as const,
};

export const caseCounselingQuery = (caseId: string) =>
  queryOptions({ queryKey: counselingKeys.case(caseId), queryFn: () => loadCaseCounseling(caseId), refetchOnWindowFocus: true });
export const counselorAccountsQuery = () =>
  queryOptions({ queryKey: counselingKeys.counselors(), queryFn: ({ signal }) => api<CounselorAccount[]>('GET', '/api/counseling/counselors', { signal }) });
export const myCounselingCasesQuery = () => queryOptions({ queryKey: counselingKeys.mine(), queryFn: loadMyCounselingCases, refetchOnWindowFocus: true });

/** The one door to a case's counselor (the server decides who may and refuses with a code). */
export function assignCounselor(caseId: string, counselorId: string): Promise<void> {
  return api<void>('POST', `/api/counseling/cases/${caseId}/counselor`, { body: { counselorId } });
}

/**
 * After an assignment or a counseling step: the counseling state, the case's tasks and members.
 * The process hears the assignment through the workflow outbox, so the tasks are read again a
 * moment later as well.
 */
export function refetchAfterCounseling(client: QueryClient, caseId: string): void {
  const again = () => {
    void client.invalidateQueries({ queryKey: counselingKeys.all });
    void client.invalidateQueries({ queryKey: workflowKeys.caseTasks(caseId) });
    void client.invalidateQueries({ queryKey: caseKeys.all });
  };
  again();
  window.setTimeout(again, 1500);
}
