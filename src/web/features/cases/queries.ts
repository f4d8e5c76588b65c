/**
 * The GraphQL operations of the staff case screens (spec §7 CaseListWithMessageCounts,
 * ShortPagedCases, CaseWithMessages, the case and membership mutations, and the audit log),
 * with the shapes the screens read. Plain fetch through graphql().
 */
import type { Gender } from '../../../domain/accounts';
import type { Involvement } from '../../../domain/messages';
import { graphql } from '../../api/client';
import { MESSAGE_FIELDS, type CaseMessage, type MyInvolvement, type Person } from '../messages/queries';

const ACTS_AS = 'actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient';

/** Spec §9: 100 cases a page in the message-count list, 200 in the paged lists. */
export const CASE_LIST_PAGE_SIZE = 100;
export const PAGED_CASES_PAGE_SIZE = 200;

export interface CaseListItem {
  id: string;
  shortId: string;
  title: string | null;
  stage: string;
  createdAt: string;
  newMessages: number | null;
  searchSimilarity: number | null;
  latestMessage: { id: string; sentAt: string | null; subject: string | null } | null;
  patient: Person | null;
  myInvolvement: (Involvement & { id: string }) | null;
  /** The randomized treatment (issue 15); empty before randomization. */
  treatmentAssignmentsByCaseIdList?: { treatment: string }[];
}

export interface CaseListFilter {
  search: string;
  stage: string;
  unassigned: boolean;
  offset: number;
}

const LIST_FIELDS = `totalCount
  nodes {
    id shortId title stage createdAt newMessages searchSimilarity(search: $search)
    latestMessage { id sentAt subject }
    patient { id username alias }
    myInvolvement { id ${ACTS_AS} }
    treatmentAssignmentsByCaseIdList { treatment }
  }`;

/**
 * One page of cases. "Unassigned only" is a different list on the server (pagedCases with
 * filterUnassigned: no therapist or counselor yet), with its own page size.
 */
export async function loadCaseList(filter: CaseListFilter): Promise<{ totalCount: number; nodes: CaseListItem[]; pageSize: number }> {
  const variables = { search: filter.search.trim() || null, stage: filter.stage || null, offset: filter.offset };
  if (filter.unassigned) {
    const data = await graphql<{ pagedCases: { totalCount: number; nodes: CaseListItem[] } }>(
      `query ShortPagedCases($filterUnassigned: Boolean = false, $search: String, $stage: String, $first: Int = ${PAGED_CASES_PAGE_SIZE}, $offset: Int = 0) {
        pagedCases(filterUnassigned: $filterUnassigned, search: $search, stage: $stage, first: $first, offset: $offset) { ${LIST_FIELDS} }
      }`,
      { ...variables, filterUnassigned: true },
    );
    return { ...data.pagedCases, pageSize: PAGED_CASES_PAGE_SIZE };
  }
  const data = await graphql<{ caseList: { totalCount: number; nodes: CaseListItem[] } }>(
    `query CaseListWithMessageCounts($search: String, $stage: String, $first: Int = ${CASE_LIST_PAGE_SIZE}, $offset: Int = 0) {
      caseList(search: $search, stage: $stage, first: $first, offset: $offset) { ${LIST_FIELDS} }
    }`,
    variables,
  );
  return { ...data.caseList, pageSize: CASE_LIST_PAGE_SIZE };
}

export interface CaseFields {
  title: string | null;
  description: string | null;
  diagnosis: string | null;
  emergencyContact: string | null;
  stage: string;
  isDropout: boolean;
  dropoutReason: string | null;
  askForPostIfDroppedOut: boolean;
  excludeFromAnalysis: boolean;
  reasonForExclusion: string | null;
}

export interface CasePatient extends Person {
  phone: string | null;
  gender: Gender | null;
  excluded: boolean;
  excludedForBdiGte45: boolean;
  excludedForLackOfEmail: boolean;
  excludedForLackOfInternetAccess: boolean;
  excludedDuringInterview: boolean;
  excludedForMissingInterview: boolean;
  excludedForMinorAge: boolean;
  excludedForNoTraumaOrLowBdi: boolean;
  excludedForUpcomingTreatment: boolean;
  isCounselingOnly: boolean;
  registeredForCounseling: boolean;
}

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
] as const satisfies readonly (keyof CasePatient)[];

export interface MemberUser extends Person {
  gender: Gender | null;
  phone: string | null;
  email: string;
  lastLogin: string | null;
  nrOfLogins: number;
}

export interface CaseMemberRow extends Involvement {
  id: string;
  userId: string;
  createdAt: string;
  user: MemberUser | null;
}

export interface CaseDetail extends CaseFields {
  id: string;
  shortId: string;
  createdAt: string;
  updatedAt: string;
  newMessages: number | null;
  patient: CasePatient | null;
  members: CaseMemberRow[];
  myInvolvement: MyInvolvement | null;
  unsentMessagesList: CaseMessage[] | null;
  sentMessagesList: CaseMessage[] | null;
}

const CASE_FIELDS = 'title description diagnosis emergencyContact stage isDropout dropoutReason askForPostIfDroppedOut excludeFromAnalysis reasonForExclusion';

export async function loadCase(id: string): Promise<CaseDetail | null> {
  const data = await graphql<{ caseById: CaseDetail | null }>(
    `query CaseWithMessages($id: UUID!) {
      caseById(id: $id) {
        id shortId createdAt updatedAt newMessages ${CASE_FIELDS}
        patient { id username alias phone gender ${PATIENT_FLAGS.join(' ')} }
        members: caseMembersByCaseIdList(orderBy: CREATED_AT_ASC) {
          id userId createdAt ${ACTS_AS}
          user: userByUserId { id username alias gender phone email lastLogin nrOfLogins }
        }
        myInvolvement { id favoriteMessage ${ACTS_AS} }
        unsentMessagesList { ...MessageFields }
        sentMessagesList { ...MessageFields }
      }
    }
    ${MESSAGE_FIELDS}`,
    { id },
  );
  return data.caseById;
}

export async function updateCase(id: string, patch: Partial<CaseFields>): Promise<CaseFields> {
  const data = await graphql<{ updateCaseById: { case: CaseFields } }>(
    `mutation UpdateCaseById($id: UUID!, $patch: CasePatch!) {
      updateCaseById(input: { id: $id, casePatch: $patch }) { case { id ${CASE_FIELDS} } }
    }`,
    { id, patch },
  );
  return data.updateCaseById.case;
}

export async function addCaseMember(caseId: string, userId: string, roles: Involvement): Promise<void> {
  await graphql(
    `mutation CreateCaseMember($member: CaseMemberInput!) { createCaseMember(input: { caseMember: $member }) { caseMember { id } } }`,
    { member: { caseId, userId, ...roles } },
  );
}

export async function updateCaseMember(id: string, roles: Involvement): Promise<void> {
  await graphql(
    `mutation UpdateCaseMemberById($id: UUID!, $patch: CaseMemberPatch!) { updateCaseMemberById(input: { id: $id, caseMemberPatch: $patch }) { caseMember { id } } }`,
    { id, patch: roles },
  );
}

export async function removeCaseMember(id: string): Promise<void> {
  await graphql(`mutation DeleteCaseMemberById($id: UUID!) { deleteCaseMemberById(input: { id: $id }) { deletedCaseMemberId } }`, { id });
}

export interface Account extends Person {
  isTherapistAccount: boolean;
  isSupervisorAccount: boolean;
  isSupporterAccount: boolean;
  isCounselorAccount: boolean;
  isInterviewerAccount: boolean;
  isCoordinatorAccount: boolean;
  isPatientAccount: boolean;
}

const ACCOUNT_FIELDS = 'id username alias isTherapistAccount isSupervisorAccount isSupporterAccount isCounselorAccount isInterviewerAccount isCoordinatorAccount isPatientAccount';
const STAFF_KINDS = ['Therapist', 'Supervisor', 'Supporter', 'Counselor', 'Interviewer'] as const;

/** Everyone with a care-team account, to add to a case (coordinators see every account). */
export async function loadStaffAccounts(): Promise<Account[]> {
  const data = await graphql<Record<string, Account[] | null>>(
    `query StaffAccounts {
      ${STAFF_KINDS.map((kind) => `${kind.toLowerCase()}: allUsersList(condition: { is${kind}Account: true }, orderBy: USERNAME_ASC, first: 500) { ${ACCOUNT_FIELDS} }`).join('\n')}
    }`,
  );
  const byId = new Map<string, Account>();
  for (const list of Object.values(data)) for (const account of list ?? []) byId.set(account.id, account);
  return [...byId.values()].sort((a, b) => a.username.localeCompare(b.username));
}

/** An account by its exact username (the condition is an equality; usernames ignore case). */
export async function findAccount(username: string): Promise<Account | null> {
  const data = await graphql<{ allUsers: { nodes: Account[] } | null }>(
    `query FindUser($username: String!) { allUsers(condition: { username: $username }, first: 1) { nodes { ${ACCOUNT_FIELDS} } } }`,
    { username },
  );
  return data.allUsers?.nodes[0] ?? null;
}

export interface AuditRow {
  id: string;
  at: string;
  actorId: string | null;
  actorRole: string;
  tableName: string;
  operation: string;
  recordId: string | null;
  oldData: Record<string, unknown> | null;
  newData: Record<string, unknown> | null;
}

export const AUDIT_PAGE_SIZE = 50;

/** A page of a case's audit log, newest first; filters left empty are not sent (null would mean "is null"). */
export async function loadAuditLog(caseId: string, filter: { tableName: string; operation: string; offset: number }): Promise<{ shortId: string | null; totalCount: number; nodes: AuditRow[] }> {
  const condition: Record<string, string> = { caseId };
  if (filter.tableName) condition.tableName = filter.tableName;
  if (filter.operation) condition.operation = filter.operation;
  const data = await graphql<{ caseById: { shortId: string } | null; allAuditLogs: { totalCount: number; nodes: AuditRow[] } | null }>(
    `query CaseAuditLog($caseId: UUID!, $condition: AuditLogCondition!, $first: Int!, $offset: Int!) {
      caseById(id: $caseId) { id shortId }
      allAuditLogs(condition: $condition, orderBy: [AT_DESC, ID_DESC], first: $first, offset: $offset) {
        totalCount
        nodes { id at actorId actorRole tableName operation recordId oldData newData }
      }
    }`,
    { caseId, condition, first: AUDIT_PAGE_SIZE, offset: filter.offset },
  );
  return { shortId: data.caseById?.shortId ?? null, totalCount: data.allAuditLogs?.totalCount ?? 0, nodes: data.allAuditLogs?.nodes ?? [] };
}

/** Names for the people a log page mentions, in one request (ids the reader may not see stay unknown). */
export async function loadPeople(ids: readonly string[]): Promise<Map<string, Person>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const data = await graphql<Record<string, Person | null>>(
    `query AuditPeople(${unique.map((_, i) => `$p${i}: UUID!`).join(', ')}) {
      ${unique.map((_, i) => `p${i}: userById(id: $p${i}) { id username alias }`).join('\n')}
    }`,
    Object.fromEntries(unique.map((id, i) => [`p${i}`, id])),
  );
  const people = new Map<string, Person>();
  for (const person of Object.values(data)) if (person) people.set(person.id, person);
  return people;
}
