/**
 * The GraphQL texts of the staff case lists (spec §7 PagedCases, ShortPagedCases,
 * CaseListWithMessageCounts), shared by the web app (which sends them, src/web/features/cases/api.ts)
 * and the server, which answers exactly these texts from one SQL function each
 * (src/server/graphql/compiled-lists.ts, docs/decisions/0030-case-list-read-path.md).
 *
 * The server recognises an operation by its exact text: any other text, even one space more, is
 * answered by PostGraphile as before. So the fragments are written out (a document with fragments
 * is sent printed, not as written), and each selection here has its twin in the SQL of
 * migration 0107; the equality tests (test/integration/compiled-lists.int.test.ts) compare both
 * answers field by field, so neither can change alone.
 */

/** Spec §9: 100 cases a page in the message-count list, 200 in the paged lists. */
export const CASE_LIST_PAGE_SIZE = 100 as const;
export const PAGED_CASES_PAGE_SIZE = 200 as const;

/** The lighter lists' row: the old case list's fields (spec §7 CaseListWithMessageCounts). */
const CASE_LIST_NODE = `id shortId title stage createdAt newMessages searchSimilarity(search: $search) openSafetySignals
      latestMessage { id sentAt subject }
      patient { id username alias }
      myInvolvement { id actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient }
      treatmentAssignmentsByCaseIdList { treatment }` as const;

export const CASE_LIST_QUERY = `query CaseListWithMessageCounts($search: String, $stage: String, $first: Int = ${CASE_LIST_PAGE_SIZE}, $offset: Int = 0) {
  caseList(search: $search, stage: $stage, first: $first, offset: $offset) {
    totalCount
    nodes {
      ${CASE_LIST_NODE}
    }
  }
}` as const;

export const SHORT_PAGED_CASES_QUERY = `query ShortPagedCases($filterUnassigned: Boolean = false, $search: String, $stage: String, $first: Int = ${PAGED_CASES_PAGE_SIZE}, $offset: Int = 0) {
  pagedCases(filterUnassigned: $filterUnassigned, search: $search, stage: $stage, first: $first, offset: $offset) {
    totalCount
    nodes {
      ${CASE_LIST_NODE}
    }
  }
}` as const;

/**
 * The staff case list (/admin/cases): with the task stats, the next waiting date, the treatment,
 * the case's therapists, counselors and interviewers and the latest PHQ-9 item 9. Nested lists
 * are bounded (an assignment is final; a care role has a few people), which keeps 200 cases a
 * page well inside the request cost limit (issue 16).
 */
export const PAGED_CASES_QUERY = `query PagedCases($filterUnassigned: Boolean = false, $search: String, $stage: String, $first: Int = ${PAGED_CASES_PAGE_SIZE}, $offset: Int = 0) {
  pagedCases(filterUnassigned: $filterUnassigned, search: $search, stage: $stage, first: $first, offset: $offset) {
    totalCount
    nodes {
      id shortId title stage createdAt newMessages searchSimilarity(search: $search) openSafetySignals
      isDropout excludeFromAnalysis
      patient { id username alias }
      myInvolvement { id actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor actsAsPatient }
      patientTasks: taskSummary(groupName: "patients") { countOfOpen latestDue nextTime }
      therapistTasks: taskSummary(groupName: "therapists") { countOfOpen countOfOverdue }
      nextWaitingDate latestPhq9Item9
      treatmentAssignmentsByCaseIdList(orderBy: ASSIGNED_AT_ASC, first: 1) { id assignedAt treatment }
      therapistsList(first: 10) { id user: person { id username alias } }
      counselorsList(first: 10) { id user: person { id username alias } }
      interviewersList(first: 10) { id user: person { id username alias } }
    }
  }
}` as const;
