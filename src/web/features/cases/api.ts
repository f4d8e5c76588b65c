/**
 * The staff case screens' server calls: spec §7 PagedCases (the case list), CaseListWithMessageCounts
 * and ShortPagedCases (the lighter spec lists, kept for clients that want them), CaseWithMessages, the case and membership mutations and the audit log, as typed documents,
 * with their query keys, query options and what each action refetches.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { Involvement } from '../../../domain/messages';
import { graphql, request, type ResultOf } from '../../api/graphql';
import { CASE_LIST_QUERY, PAGED_CASES_PAGE_SIZE, PAGED_CASES_QUERY, SHORT_PAGED_CASES_QUERY } from '../../../domain/case-list-operations';
import { CASE_WITH_MESSAGES_QUERY } from '../../../domain/case-operations';
import { PersonFields } from '../messages/api';

export { CASE_LIST_PAGE_SIZE, PAGED_CASES_PAGE_SIZE } from '../../../domain/case-list-operations';

/** How the list's page is ordered on screen (the server's order is newest first, then by id). */
export const CASE_SORTS = ['shortId', 'newest', 'nextWaitingDate', 'therapistOverdue', 'patientOpen', 'phq9Item9'] as const;
export type CaseSort = (typeof CASE_SORTS)[number];

export interface CaseListFilter {
  search: string;
  stage: string;
  unassigned: boolean;
  offset: number;
}

// The three lists are declared without fragments, so each is sent exactly as written: the server
// answers these texts from one SQL statement each (src/server/graphql/compiled-lists.ts).
export const CaseListWithMessageCounts = graphql(CASE_LIST_QUERY);
export const ShortPagedCases = graphql(SHORT_PAGED_CASES_QUERY);
/** The staff case list (/admin/cases): spec §7 PagedCases (the selection: src/domain/case-list-operations.ts). */
export const PagedCases = graphql(PAGED_CASES_QUERY);

export type CaseListItem = NonNullable<ResultOf<typeof PagedCases>['pagedCases']>['nodes'][number];

/** One page of cases (spec §9: 200 a page); "unassigned only" is the server's filterUnassigned. */
export async function loadCaseList(filter: CaseListFilter): Promise<{ totalCount: number; nodes: CaseListItem[]; pageSize: number }> {
  const data = await request(PagedCases, {
    search: filter.search.trim() || null,
    stage: filter.stage || null,
    filterUnassigned: filter.unassigned,
    first: PAGED_CASES_PAGE_SIZE,
    offset: filter.offset,
  });
  return { totalCount: data.pagedCases?.totalCount ?? 0, nodes: data.pagedCases?.nodes ?? [], pageSize: PAGED_CASES_PAGE_SIZE };
}

const CaseFieldsFragment = graphql(`fragment CaseFields on Case {
  title description diagnosis emergencyContact stage isDropout dropoutReason askForPostIfDroppedOut excludeFromAnalysis reasonForExclusion
}`);
export type CaseFields = ResultOf<typeof CaseFieldsFragment>;

/** The patient's exclusion flags, in the order of spec §3 "Patient". */
export const PATIENT_FLAGS = [
  'excluded',
  'excludedForBdiGte45',
  'excludedForLackOfEmail',
  'excludedForLackOfInternetAccess',
  'excludedDuringInterview',
  'excludedForMissingInterview',
  'excludedForMinorAge',
  'excludedForNoTraumaOrLowBdi',
  'excludedForUpcomingTreatment',
  'isCounselingOnly',
  'registeredForCounseling',
] as const;

// Declared without fragments, so it is sent exactly as written: the server answers this text from
// one SQL statement (src/server/graphql/compiled-lists.ts; the selection: src/domain/case-operations.ts).
export const CaseWithMessages = graphql(CASE_WITH_MESSAGES_QUERY);
export type CaseDetail = NonNullable<ResultOf<typeof CaseWithMessages>['caseById']>;
export type CasePatient = NonNullable<CaseDetail['patient']>;
export type CaseMemberRow = CaseDetail['members'][number];

export const UpdateCaseById = graphql(
  `mutation UpdateCaseById($id: UUID!, $patch: CasePatch!) {
    updateCaseById(input: { id: $id, casePatch: $patch }) { case { id ...CaseFields } }
  }`,
  [CaseFieldsFragment],
);

export const CreateCaseMember = graphql(`
  mutation CreateCaseMember($member: CaseMemberInput!) { createCaseMember(input: { caseMember: $member }) { caseMember { id } } }
`);

export const UpdateCaseMemberById = graphql(`
  mutation UpdateCaseMemberById($id: UUID!, $patch: CaseMemberPatch!) { updateCaseMemberById(input: { id: $id, caseMemberPatch: $patch }) { caseMember { id } } }
`);

export const DeleteCaseMemberById = graphql(`
  mutation DeleteCaseMemberById($id: UUID!) { deleteCaseMemberById(input: { id: $id }) { deletedCaseMemberId } }
`);

const AccountFields = graphql(`fragment AccountFields on User {
  id username alias isTherapistAccount isSupervisorAccount isSupporterAccount isCounselorAccount isInterviewerAccount isCoordinatorAccount isPatientAccount
}`);
export type Account = ResultOf<typeof AccountFields>;

/** Everyone with a care-team account, to add to a case (coordinators see every account). */
export const StaffAccounts = graphql(
  `query StaffAccounts {
    therapist: allUsersList(condition: { isTherapistAccount: true }, orderBy: USERNAME_ASC, first: 500) { ...AccountFields }
    supervisor: allUsersList(condition: { isSupervisorAccount: true }, orderBy: USERNAME_ASC, first: 500) { ...AccountFields }
    supporter: allUsersList(condition: { isSupporterAccount: true }, orderBy: USERNAME_ASC, first: 500) { ...AccountFields }
    counselor: allUsersList(condition: { isCounselorAccount: true }, orderBy: USERNAME_ASC, first: 500) { ...AccountFields }
    interviewer: allUsersList(condition: { isInterviewerAccount: true }, orderBy: USERNAME_ASC, first: 500) { ...AccountFields }
  }`,
  [AccountFields],
);

/** An account by its exact username (the condition is an equality; usernames ignore case). */
export const FindUser = graphql(
  `query FindUser($username: String!) { allUsers(condition: { username: $username }, first: 1) { nodes { ...AccountFields } } }`,
  [AccountFields],
);

export const CaseAuditLog = graphql(`
  query CaseAuditLog($caseId: UUID!, $condition: AuditLogCondition!, $first: Int!, $offset: Int!) {
    caseById(id: $caseId) { id shortId }
    allAuditLogs(condition: $condition, orderBy: [AT_DESC, ID_DESC], first: $first, offset: $offset) {
      totalCount
      nodes { id at actorId actorRole tableName operation recordId oldData newData }
    }
  }
`);
export type AuditRow = NonNullable<ResultOf<typeof CaseAuditLog>['allAuditLogs']>['nodes'][number];

/** A person named in a case log (ids the reader may not see stay unknown). */
export const AuditPerson = graphql(`query AuditPerson($id: UUID!) { userById(id: $id) { ...PersonFields } }`, [PersonFields]);

export const AUDIT_PAGE_SIZE = 50;

/** Query keys of the case screens. */
export const caseKeys = {
  all: ['cases'] as const,
  lists: () => ['cases', 'list'] as const,
  list: (filter: CaseListFilter) => ['cases', 'list', filter] as const,
  detail: (id: string) => ['cases', 'detail', id] as const,
  log: (id: string, filter: { tableName: string; operation: string; offset: number }) => ['cases', 'log', id, filter] as const,
  person: (id: string) => ['people', id] as const,
  staffAccounts: () => ['people', 'staff'] as const,
};

export const caseListQuery = (filter: CaseListFilter) => queryOptions({ queryKey: caseKeys.list(filter), queryFn: () => loadCaseList(filter) });

export const caseDetailQuery = (id: string) =>
  queryOptions({ queryKey: caseKeys.detail(id), queryFn: async () => (await request(CaseWithMessages, { id })).caseById });

/** A page of a case's audit log, newest first; filters left empty are not sent (null would mean "is null"). */
export const caseLogQuery = (caseId: string, filter: { tableName: string; operation: string; offset: number }) =>
  queryOptions({
    queryKey: caseKeys.log(caseId, filter),
    queryFn: async () => {
      const condition: Record<string, string> = { caseId };
      if (filter.tableName) condition.tableName = filter.tableName;
      if (filter.operation) condition.operation = filter.operation;
      const data = await request(CaseAuditLog, { caseId, condition, first: AUDIT_PAGE_SIZE, offset: filter.offset });
      return { shortId: data.caseById?.shortId ?? null, totalCount: data.allAuditLogs?.totalCount ?? 0, nodes: data.allAuditLogs?.nodes ?? [] };
    },
  });

/** One person by id; cached for the session, so a log page asks each name once. */
export const personQuery = (id: string) =>
  queryOptions({ queryKey: caseKeys.person(id), queryFn: async () => (await request(AuditPerson, { id })).userById, staleTime: Infinity });

export const staffAccountsQuery = () =>
  queryOptions({
    queryKey: caseKeys.staffAccounts(),
    queryFn: async () => {
      const data = await request(StaffAccounts);
      const byId = new Map<string, Account>();
      for (const list of Object.values(data)) for (const account of list ?? []) byId.set(account.id, account);
      return [...byId.values()].sort((a, b) => a.username.localeCompare(b.username));
    },
  });

export async function findAccount(username: string): Promise<Account | null> {
  const data = await request(FindUser, { username });
  return data.allUsers?.nodes[0] ?? null;
}

/** Spec §5: saving a stored entity expects exactly one result back. */
export const EXACTLY_ONE = 'Expected exactly one result';

export async function updateCase(id: string, patch: Partial<CaseFields>): Promise<CaseFields> {
  const data = await request(UpdateCaseById, { id, patch });
  const stored = data.updateCaseById?.case;
  if (!stored) throw new Error(EXACTLY_ONE);
  return stored;
}

export async function addCaseMember(caseId: string, userId: string, roles: Involvement): Promise<void> {
  await request(CreateCaseMember, { member: { caseId, userId, ...roles } });
}

export async function updateCaseMember(id: string, roles: Involvement): Promise<void> {
  await request(UpdateCaseMemberById, { id, patch: roles });
}

export async function removeCaseMember(id: string): Promise<void> {
  await request(DeleteCaseMemberById, { id });
}

/**
 * After a case's fields or members change: the case, the lists that show it, its log and my
 * case picker (membership decides which conversations I see). The one place that says so.
 */
export function refetchAfterCaseChange(client: QueryClient, caseId: string): Promise<void> {
  return Promise.all([
    client.invalidateQueries({ queryKey: caseKeys.detail(caseId) }),
    client.invalidateQueries({ queryKey: caseKeys.lists() }),
    client.invalidateQueries({ queryKey: ['cases', 'log', caseId] }),
    client.invalidateQueries({ queryKey: ['messages', 'my-cases'] }),
  ]).then(() => undefined);
}
