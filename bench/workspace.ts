/**
 * The case workspace scenarios (issue "Case workspace", item 7): what the case list, a case's
 * page and the unread badge ask of the server, each beside the same question in plain SQL as
 * the baseline. Every scenario also checks its answer against the seed and against the SQL,
 * so that a broken policy (a therapist seeing no cases) cannot pass for a fast one.
 */
import type pg from 'pg';
import type { LoadRequest } from './load';
import { runOnce, type SqlRequest } from './sql-load';
import type { SeededWorkspace } from './workspace-seed';
import { ME_STATEMENT } from './floor-server';
import { documentText, operationName } from '../src/web/api/graphql';
import { CASE_LIST_PAGE_SIZE, CaseListWithMessageCounts, CaseWithMessages, PAGED_CASES_PAGE_SIZE, PagedCases, ShortPagedCases } from '../src/web/features/cases/api';

/**
 * Who sends a scenario's request and so which path answers it: 'web', what the web app sends
 * (its declared documents, answered by one statement on the compiled path, the REST reads and
 * `me`), which the floor server (floor-server.ts) answers too; 'other', a lighter selection of
 * another client, answered by PostGraphile's general path, which the floor server cannot.
 */
export type ScenarioGroup = 'web' | 'other';

export interface WorkspaceScenario {
  name: string;
  group: ScenarioGroup;
  /** The p99 this scenario must reach on PostgreSQL (issue "Speed at clinic scale"). */
  p99TargetMs: number;
  request: LoadRequest;
  sql: SqlRequest;
  /**
   * Throws unless the API answers as it should. 'unavailable' when the route does not exist
   * (yet): the REST collections are being built beside this benchmark.
   */
  check(baseUrl: string, pool: pg.Pool): Promise<'ok' | 'unavailable'>;
}

export interface WorkspaceTokens {
  therapist: string;
  coordinator: string;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json' };

/**
 * The case list of spec §7 CaseListWithMessageCounts in its lightest form: the rows of a page
 * without `totalCount` and the staff columns. The web app's declared document (CaseListFields in
 * src/web/features/cases/api.ts) asks for `totalCount` too, which PostGraphile sends as a
 * statement of its own (bench/RESULTS.md "ShortPagedCases round trips"); the ShortPagedCases
 * scenarios below send those full fields.
 */
export const CASE_LIST_QUERY = `query CaseListWithMessageCounts($search: String, $stage: String) {
  caseList(search: $search, stage: $stage, first: 100, offset: 0) {
    nodes {
      id shortId stage newMessages searchSimilarity(search: $search)
      latestMessage { id sentAt subject }
      patient { id username alias }
      myInvolvement { id newMessagesAfter }
    }
  }
}`;

/**
 * The same rows in SQL: the same functions (and so the same row-level security) for the same
 * page of 100 cases; new messages, the latest message, the patient and the membership through
 * the inlined twins the API reads (src/server/graphql/inline-columns.ts). The page is cut before
 * the per-case fields are computed, as PostGraphile does; the page's rows are numbered and
 * sorted by that number at the end, since an inlined twin may be joined by hash, not in order.
 */
export const CASE_LIST_SQL = `
select (page.c).id, app_public.cases_short_id(page.c) as short_id, (page.c).stage,
       (select v from app_hidden.cases_new_messages_inline(page.c) v) as new_messages,
       app_public.cases_search_similarity(page.c, $1) as search_similarity,
       latest.id as latest_id, latest.sent_at as latest_sent_at, latest.subject as latest_subject,
       patient.id as patient_id, patient.username as patient_username, patient.alias as patient_alias,
       involvement.id as involvement_id, involvement.new_messages_after
  from (select c, row_number() over () as n from app_public.case_list($1, $2) as c limit 100 offset 0) as page
  left join lateral app_hidden.cases_latest_message_inline(page.c) as latest on true
  left join lateral app_hidden.cases_patient_inline(page.c) as patient on true
  left join lateral app_hidden.cases_my_involvement_inline(page.c) as involvement on true
 order by page.n`;

/**
 * The fields both paged lists share, for the page of paged_cases($1 filterUnassigned, $2 search,
 * $3 stage) cut by $4 first and $5 offset, and the total as PostGraphile's totalCount counts it.
 * The open risk signals, like PagedCases' next waiting date, latest item 9 and task summaries,
 * are read through their inlined twins, as the API reads them (src/server/graphql/inline-columns.ts).
 */
const PAGED_COMMON_COLUMNS = `(page.c).id, app_public.cases_short_id(page.c) as short_id, (page.c).title, (page.c).stage, (page.c).created_at,
       (select v from app_hidden.cases_new_messages_inline(page.c) v) as new_messages,
       app_public.cases_search_similarity(page.c, $2) as search_similarity,
       (select v from app_hidden.cases_open_safety_signals_inline(page.c) v) as open_safety_signals,
       patient.id as patient_id, patient.username as patient_username, patient.alias as patient_alias,
       involvement.id as involvement_id, involvement.acts_as_therapist, involvement.acts_as_supervisor, involvement.acts_as_interviewer,
       involvement.acts_as_supporter, involvement.acts_as_counselor, involvement.acts_as_patient,
       (select count(*) from app_public.paged_cases($1, $2, $3)) as total_count`;
const PAGED_COMMON_FROM = `from (select c, row_number() over () as n from app_public.paged_cases($1, $2, $3) as c limit $4 offset $5) as page
  left join lateral app_hidden.cases_patient_inline(page.c) as patient on true
  left join lateral app_hidden.cases_my_involvement_inline(page.c) as involvement on true`;

/** ShortPagedCases' rows (CaseListFields of src/web/features/cases/api.ts) and total, as one statement. */
export const SHORT_PAGED_CASES_SQL = `
select ${PAGED_COMMON_COLUMNS},
       latest.id as latest_id, latest.sent_at as latest_sent_at, latest.subject as latest_subject,
       (select json_agg(a.treatment order by a.id) from app_public.treatment_assignments a where a.case_id = (page.c).id) as treatments
  ${PAGED_COMMON_FROM}
  left join lateral app_hidden.cases_latest_message_inline(page.c) as latest on true
 order by page.n`;

/** A case's people in one care role (at most 10, as PagedCases asks), with their names (the `person` of each membership). */
function careRole(role: 'therapists' | 'counselors' | 'interviewers'): string {
  return `(select json_agg(json_build_object('id', (r.m).id, 'user', case when u.id is null then null else json_build_object('id', u.id, 'username', u.username, 'alias', u.alias) end))
          from (select m from app_public.cases_${role}(page.c) as m limit 10) as r
          left join lateral app_hidden.case_members_person_inline(r.m) as u on true) as ${role}`;
}

/** PagedCases' rows (the /admin/cases document) and total, as one statement. */
export const PAGED_CASES_SQL = `
select ${PAGED_COMMON_COLUMNS},
       (page.c).is_dropout, (page.c).exclude_from_analysis,
       (select v from app_hidden.cases_next_waiting_date_inline(page.c) v) as next_waiting_date,
       (select v from app_hidden.cases_latest_phq9_item9_inline(page.c) v) as latest_phq9_item9,
       (select json_build_object('id', a.id, 'assignedAt', a.assigned_at, 'treatment', a.treatment)
          from app_public.treatment_assignments a where a.case_id = (page.c).id order by a.assigned_at, a.id limit 1) as treatment,
       patient_tasks.count_of_open as patient_open, patient_tasks.latest_due, patient_tasks.next_time,
       therapist_tasks.count_of_open as therapist_open, therapist_tasks.count_of_overdue as therapist_overdue,
       ${careRole('therapists')},
       ${careRole('counselors')},
       ${careRole('interviewers')}
  ${PAGED_COMMON_FROM}
  left join lateral app_hidden.cases_task_summary_inline(page.c, 'patients') as patient_tasks on true
  left join lateral app_hidden.cases_task_summary_inline(page.c, 'therapists') as therapist_tasks on true
 order by page.n`;

/** Newest sent messages shown when a case opens; older ones page in on scrolling. */
const SENT_PAGE = 50;

/** A case's page (spec §7 CaseWithMessages): the case, its people, drafts and recent messages. */
export const CASE_WITH_MESSAGES_QUERY = `query CaseWithMessages($id: UUID!) {
  caseById(id: $id) {
    id shortId stage title newMessages
    patient { id username alias }
    myInvolvement { id newMessagesAfter favoriteMessage }
    caseMembersByCaseId {
      nodes {
        id userId actsAsPatient actsAsTherapist actsAsSupervisor actsAsInterviewer actsAsSupporter actsAsCounselor
        userByUserId { id username alias }
      }
    }
    unsentMessagesList { id subject body createdAt updatedAt toPatients toTherapists toSupervisors toInterviewers toSupporters toCounselors }
    sentMessagesList(first: ${SENT_PAGE}) {
      id senderId fromSystem subject body sentAt
      toPatients toTherapists toSupervisors toInterviewers toSupporters toCounselors
      isUnread isFavorite
    }
  }
}`;

/** The same answer as one SQL statement, nested as JSON as the GraphQL answer is. */
export const CASE_WITH_MESSAGES_SQL = `
select c.id, app_public.cases_short_id(c) as short_id, c.stage, c.title, (select v from app_hidden.cases_new_messages_inline(c) v) as new_messages,
       (select json_build_object('id', p.id, 'username', p.username, 'alias', p.alias)
          from app_hidden.cases_patient_inline(c) as p where p.id is not null) as patient,
       (select json_build_object('id', i.id, 'newMessagesAfter', i.new_messages_after, 'favoriteMessage', i.favorite_message)
          from app_hidden.cases_my_involvement_inline(c) as i where i.id is not null) as my_involvement,
       (select json_agg(json_build_object('id', i.id, 'userId', i.user_id, 'actsAsPatient', i.acts_as_patient,
                 'actsAsTherapist', i.acts_as_therapist, 'actsAsSupervisor', i.acts_as_supervisor,
                 'actsAsInterviewer', i.acts_as_interviewer, 'actsAsSupporter', i.acts_as_supporter,
                 'actsAsCounselor', i.acts_as_counselor,
                 'user', (select json_build_object('id', u.id, 'username', u.username, 'alias', u.alias)
                            from app_public.users as u where u.id = i.user_id)) order by i.id)
          from app_public.case_members as i where i.case_id = c.id) as members,
       (select json_agg(json_build_object('id', m.id, 'subject', m.subject, 'body', m.body, 'createdAt', m.created_at,
                 'updatedAt', m.updated_at, 'toPatients', m.to_patients, 'toTherapists', m.to_therapists,
                 'toSupervisors', m.to_supervisors, 'toInterviewers', m.to_interviewers,
                 'toSupporters', m.to_supporters, 'toCounselors', m.to_counselors))
          from app_public.cases_unsent_messages(c) as m) as unsent,
       (select json_agg(json_build_object('id', m.id, 'senderId', m.sender_id, 'fromSystem', m.from_system,
                 'subject', m.subject, 'body', m.body, 'sentAt', m.sent_at, 'toPatients', m.to_patients,
                 'toTherapists', m.to_therapists, 'toSupervisors', m.to_supervisors,
                 'toInterviewers', m.to_interviewers, 'toSupporters', m.to_supporters, 'toCounselors', m.to_counselors,
                 'isUnread', (select v from app_hidden.case_messages_is_unread_inline(m) v),
                 'isFavorite', (select v from app_hidden.case_messages_is_favorite_inline(m) v)))
          from (select * from app_public.cases_sent_messages(c) limit ${SENT_PAGE}) as m) as sent
  from app_public.cases as c
 where c.id = $1`;

/** The unread badge's poll: GET /api/my_messages, PostgREST style, and its SQL. */
const MY_UNREAD_PATH = '/api/my_messages?select=id,case_id,is_unread&is_unread=is.true';
const MY_UNREAD_SQL = 'select id, case_id, is_unread from app_public.my_messages where is_unread is true';
const MY_UNREAD_PAGE_PATH = `${MY_UNREAD_PATH}&limit=50&order=sent_at.desc`;
const MY_UNREAD_PAGE_SQL = `${MY_UNREAD_SQL} order by sent_at desc limit 50`;

/**
 * Offsets of the deep pages a coordinator pages to (issue "Speed at clinic scale": a coordinator
 * with 10,000 cases pages through the list): the last full page and the one in the middle. An
 * offset makes the database walk past the skipped cases, so a page deep in the list may cost
 * more than the first.
 */
export function lastFullPage(total: number, pageSize: number): number {
  return Math.max(0, (Math.floor(total / pageSize) - 1) * pageSize);
}

export function middlePage(total: number, pageSize: number): number {
  return Math.floor(total / pageSize / 2) * pageSize;
}

/** The deep pages worth a scenario: past the first page, each once (a small list has fewer). */
function deepPages(total: number, pageSize: number, which: ((total: number, pageSize: number) => number)[]): number[] {
  return [...new Set(which.map((page) => page(total, pageSize)))].filter((offset) => offset > 0);
}

export function workspaceScenarios(seed: SeededWorkspace, tokens: WorkspaceTokens): WorkspaceScenario[] {
  const { therapist, coordinator, search } = seed;
  const coordinatorCases = `coordinator (${seed.listedCases} cases)`;
  return [
    caseList(`CaseListWithMessageCounts light form, therapist (${therapist.caseIds.length} cases)`, tokens.therapist, therapist.id, null),
    caseList(`CaseListWithMessageCounts light form search "${search}", therapist`, tokens.therapist, therapist.id, search),
    caseList(`CaseListWithMessageCounts light form, coordinator (${seed.listedCases} cases)`, tokens.coordinator, coordinator.id, null),
    caseList(`CaseListWithMessageCounts light form search "${search}", coordinator`, tokens.coordinator, coordinator.id, search),
    webCaseList(`therapist (${therapist.caseIds.length} cases)`, tokens.therapist, therapist.id),
    webCaseList('therapist', tokens.therapist, therapist.id, 0, search),
    webCaseList(coordinatorCases, tokens.coordinator, coordinator.id),
    webCaseList('coordinator', tokens.coordinator, coordinator.id, 0, search),
    ...deepPages(seed.listedCases, CASE_LIST_PAGE_SIZE, [lastFullPage]).map((offset) => webCaseList(coordinatorCases, tokens.coordinator, coordinator.id, offset)),
    pagedCases('PagedCases', PAGED_CASES_SQL, `therapist (${therapist.caseIds.length} cases)`, tokens.therapist, therapist.id),
    pagedCases('PagedCases', PAGED_CASES_SQL, coordinatorCases, tokens.coordinator, coordinator.id),
    ...deepPages(seed.listedCases, PAGED_CASES_PAGE_SIZE, [middlePage, lastFullPage]).map((offset) =>
      pagedCases('PagedCases', PAGED_CASES_SQL, coordinatorCases, tokens.coordinator, coordinator.id, offset)),
    pagedCases('ShortPagedCases', SHORT_PAGED_CASES_SQL, `therapist (${therapist.caseIds.length} cases)`, tokens.therapist, therapist.id),
    pagedCases('ShortPagedCases', SHORT_PAGED_CASES_SQL, `coordinator (${seed.listedCases} cases)`, tokens.coordinator, coordinator.id),
    caseWithMessages(`CaseWithMessages light form, therapist (each of ${therapist.caseIds.length} cases)`, tokens.therapist, therapist),
    webCaseWithMessages(`CaseWithMessages web document, therapist (each of ${therapist.caseIds.length} cases)`, tokens.therapist, therapist),
    myMessages('GET /api/my_messages unread, therapist', MY_UNREAD_PATH, MY_UNREAD_SQL, tokens.therapist, therapist.id),
    myMessages('GET /api/my_messages unread, 50 newest, therapist', MY_UNREAD_PAGE_PATH, MY_UNREAD_PAGE_SQL, tokens.therapist, therapist.id),
    me('GET /api/auth/users/me, therapist', tokens.therapist, therapist.id),
  ];
}

/** The case-list and message scenarios' p99 target; `me` has its own (ME_P99_TARGET_MS). */
const P99_TARGET_MS = 50;
const ME_P99_TARGET_MS = 20;

/** The profile every screen loads first, and its SQL (the columns of auth/service.ts). */
function me(name: string, token: string, userId: string): WorkspaceScenario {
  const sql: SqlRequest = { userId, text: ME_STATEMENT, values: [[]] };
  const path = '/api/auth/users/me';
  const headers = { accept: 'application/json', authorization: `Bearer ${token}` };
  return {
    name,
    group: 'web',
    p99TargetMs: ME_P99_TARGET_MS,
    request: { method: 'GET', path, headers },
    sql,
    async check(baseUrl) {
      const response = await fetch(baseUrl + path, { headers });
      const body = (await response.json()) as { id?: string };
      if (response.status !== 200 || body.id !== userId) throw new Error(`${name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      return 'ok';
    },
  };
}

function caseList(name: string, token: string, userId: string, search: string | null): WorkspaceScenario {
  const variables = { search, stage: null };
  const sql: SqlRequest = { userId, text: CASE_LIST_SQL, values: [[search, null]] };
  return {
    name,
    group: 'other',
    p99TargetMs: P99_TARGET_MS,
    request: graphql(CASE_LIST_QUERY, [variables], token),
    sql,
    async check(baseUrl, pool) {
      const data = await postGraphql<{ caseList: { nodes: { id: string }[] } | null }>(baseUrl, CASE_LIST_QUERY, variables, token);
      const nodes = data.caseList?.nodes ?? [];
      const { rows } = await runOnce(pool, sql);
      if (nodes.length === 0) throw new Error(`${name}: the list is empty`);
      sameIds(name, nodes, rows);
      return 'ok';
    },
  };
}

/**
 * The web app's CaseListWithMessageCounts (CaseListFields of src/web/features/cases/api.ts over
 * case_list($1 search, $2 stage), the page cut by $3 first and $4 offset) and its totalCount,
 * as one statement: what the API's answer costs in plain SQL, through the same inlined twins the
 * API reads (src/server/graphql/inline-columns.ts).
 */
export const WEB_CASE_LIST_SQL = `
select (page.c).id, app_public.cases_short_id(page.c) as short_id, (page.c).title, (page.c).stage, (page.c).created_at,
       (select v from app_hidden.cases_new_messages_inline(page.c) v) as new_messages,
       app_public.cases_search_similarity(page.c, $1) as search_similarity,
       (select v from app_hidden.cases_open_safety_signals_inline(page.c) v) as open_safety_signals,
       latest.id as latest_id, latest.sent_at as latest_sent_at, latest.subject as latest_subject,
       patient.id as patient_id, patient.username as patient_username, patient.alias as patient_alias,
       involvement.id as involvement_id, involvement.acts_as_therapist, involvement.acts_as_supervisor, involvement.acts_as_interviewer,
       involvement.acts_as_supporter, involvement.acts_as_counselor, involvement.acts_as_patient,
       (select json_agg(a.treatment order by a.id) from app_public.treatment_assignments a where a.case_id = (page.c).id) as treatments,
       (select count(*) from app_public.case_list($1, $2)) as total_count
  from (select c, row_number() over () as n from app_public.case_list($1, $2) as c limit $3 offset $4) as page
  left join lateral app_hidden.cases_latest_message_inline(page.c) as latest on true
  left join lateral app_hidden.cases_patient_inline(page.c) as patient on true
  left join lateral app_hidden.cases_my_involvement_inline(page.c) as involvement on true
 order by page.n`;

/** A scenario's name for a page: the first page is the list's own; a deeper one says its offset. */
function pageName(name: string, offset: number): string {
  return offset === 0 ? name : `${name}, page at offset ${offset}`;
}

/**
 * The staff screens' paged lists (spec §7 PagedCases, ShortPagedCases; 200 a page, spec §9),
 * sent as the web app sends them (the documents of src/web/features/cases/api.ts, no filter,
 * the first page or the one at `offset`), beside the same rows and total in one SQL statement
 * with the same offset.
 */
function pagedCases(operation: 'PagedCases' | 'ShortPagedCases', text: string, who: string, token: string, userId: string, offset = 0): WorkspaceScenario {
  return webList({
    name: pageName(`${operation}, ${who}`, offset),
    document: operation === 'PagedCases' ? PagedCases : ShortPagedCases,
    rootField: 'pagedCases',
    variables: { filterUnassigned: false, search: null, stage: null, first: PAGED_CASES_PAGE_SIZE, offset },
    sql: { userId, text, values: [[false, null, null, PAGED_CASES_PAGE_SIZE, offset]] },
    token,
    fullPage: offset > 0 ? PAGED_CASES_PAGE_SIZE : undefined,
  });
}

/**
 * The web's CaseListWithMessageCounts document as the web app sends it: the first page or the
 * one at `offset`, without a search or with the seed's (the case list's search box).
 */
function webCaseList(who: string, token: string, userId: string, offset = 0, search: string | null = null): WorkspaceScenario {
  const searching = search === null ? '' : ` search "${search}"`;
  return webList({
    name: pageName(`CaseListWithMessageCounts web document${searching}, ${who}`, offset),
    document: CaseListWithMessageCounts,
    rootField: 'caseList',
    variables: { search, stage: null, first: CASE_LIST_PAGE_SIZE, offset },
    sql: { userId, text: WEB_CASE_LIST_SQL, values: [[search, null, CASE_LIST_PAGE_SIZE, offset]] },
    token,
    fullPage: offset > 0 ? CASE_LIST_PAGE_SIZE : undefined,
  });
}

interface WebList {
  name: string;
  document: Parameters<typeof documentText>[0];
  /** The root field holding the connection (its nodes and totalCount). */
  rootField: 'caseList' | 'pagedCases';
  variables: Record<string, unknown>;
  sql: SqlRequest;
  token: string;
  /** A deep page must hold this many rows: else the offset missed the list and measures an empty page. */
  fullPage?: number | undefined;
}

/**
 * A list the web app declares, sent as it sends it (document text and operation name, whatever
 * the text is: it is read from the declared document, never written here), checked against its
 * SQL: the same ids in the same order and the same totalCount.
 */
function webList({ name, document, rootField, variables, sql, token, fullPage }: WebList): WorkspaceScenario {
  const query = documentText(document);
  return {
    name,
    group: 'web',
    p99TargetMs: P99_TARGET_MS,
    request: graphql(query, [variables], token, operationName(document)),
    sql,
    async check(baseUrl, pool) {
      type Page = Record<string, { totalCount: number; nodes: { id: string }[] } | null>;
      const data = await postGraphql<Page>(baseUrl, query, variables, token);
      const list = data[rootField];
      const nodes = list?.nodes ?? [];
      const { rows } = await runOnce(pool, sql);
      if (nodes.length === 0) throw new Error(`${name}: the list is empty`);
      if (fullPage !== undefined && nodes.length !== fullPage) throw new Error(`${name}: ${nodes.length} rows, a full page is ${fullPage}`);
      sameIds(name, nodes, rows);
      const total = Number((rows[0] as { total_count: unknown } | undefined)?.total_count);
      if (list?.totalCount !== total) throw new Error(`${name}: totalCount ${list?.totalCount}, the SQL counts ${total}`);
      return 'ok';
    },
  };
}

/**
 * The staff case screen's own CaseWithMessages (src/web/features/cases/api.ts: every member with
 * their account, all drafts and all sent messages with their senders), sent as the web sends
 * it. Its SQL side is the statement the server runs for that text
 * (app_hidden.case_with_messages_json, 0108) sent directly as the same person, so the ratio is
 * what HTTP and the server add to it; `GRAPHQL_COMPILED_LISTS=0` measures PostGraphile instead.
 */
function webCaseWithMessages(name: string, token: string, therapist: SeededWorkspace['therapist']): WorkspaceScenario {
  const query = documentText(CaseWithMessages);
  const sql: SqlRequest = { userId: therapist.id, text: 'select app_hidden.case_with_messages_json($1) as json', values: therapist.caseIds.map((id) => [id]) };
  return {
    name,
    group: 'web',
    p99TargetMs: P99_TARGET_MS,
    request: graphql(query, therapist.caseIds.map((id) => ({ id })), token, operationName(CaseWithMessages)),
    sql,
    async check(baseUrl, pool) {
      for (const [index, id] of therapist.caseIds.slice(0, 5).entries()) {
        const data = await postGraphql<{ caseById: { id: string; sentMessagesList: { id: string }[] } | null }>(baseUrl, query, { id }, token);
        if (!data.caseById) throw new Error(`${name}: the therapist cannot open their case ${id}`);
        const { rows } = await runOnce(pool, sql, sql.values[index]);
        const direct = JSON.parse(String((rows[0] as { json: unknown } | undefined)?.json ?? 'null')) as { sentMessagesList: { id: string }[] } | null;
        sameIds(name, data.caseById.sentMessagesList, direct?.sentMessagesList ?? []);
      }
      return 'ok';
    },
  };
}

function caseWithMessages(name: string, token: string, therapist: SeededWorkspace['therapist']): WorkspaceScenario {
  const sql: SqlRequest = { userId: therapist.id, text: CASE_WITH_MESSAGES_SQL, values: therapist.caseIds.map((id) => [id]) };
  return {
    name,
    group: 'other',
    p99TargetMs: P99_TARGET_MS,
    // One body per case, used in turn: a therapist opens all of their cases, not one.
    request: graphql(CASE_WITH_MESSAGES_QUERY, therapist.caseIds.map((id) => ({ id })), token),
    sql,
    async check(baseUrl, pool) {
      for (const [index, id] of therapist.caseIds.slice(0, 5).entries()) {
        type Page = { caseById: { sentMessagesList: { id: string }[]; caseMembersByCaseId: { nodes: unknown[] } } | null };
        const data = await postGraphql<Page>(baseUrl, CASE_WITH_MESSAGES_QUERY, { id }, token);
        if (!data.caseById) throw new Error(`${name}: the therapist cannot open their case ${id}`);
        const { rows } = await runOnce(pool, sql, sql.values[index]);
        const row = rows[0] as { sent: { id: string }[] | null; members: unknown[] } | undefined;
        sameIds(name, data.caseById.sentMessagesList, row?.sent ?? []);
        if (data.caseById.caseMembersByCaseId.nodes.length !== row?.members.length) throw new Error(`${name}: members differ from the SQL`);
      }
      return 'ok';
    },
  };
}

function myMessages(name: string, path: string, text: string, token: string, userId: string): WorkspaceScenario {
  const sql: SqlRequest = { userId, text, values: [[]] };
  return {
    name,
    group: 'web',
    p99TargetMs: P99_TARGET_MS,
    request: { method: 'GET', path, headers: { accept: 'application/json', authorization: `Bearer ${token}` } },
    sql,
    async check(baseUrl, pool) {
      const response = await fetch(baseUrl + path, { headers: { accept: 'application/json', authorization: `Bearer ${token}` } });
      if (response.status === 404) return 'unavailable';
      const body = (await response.json()) as { id: string; is_unread: boolean }[];
      if (response.status !== 200 || !Array.isArray(body)) throw new Error(`${name}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      if (body.some((message) => message.is_unread !== true)) throw new Error(`${name}: answered messages that are not unread`);
      const { rows } = await runOnce(pool, sql);
      if (body.length !== rows.length) throw new Error(`${name}: ${body.length} messages, the SQL finds ${rows.length}`);
      return 'ok';
    },
  };
}

/** A GraphQL POST, one body per variable set; the web app's documents also carry their operation name. */
function graphql(query: string, variableSets: Record<string, unknown>[], token: string, operationName?: string | null): LoadRequest {
  return {
    method: 'POST',
    path: '/api/graphql',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    bodies: variableSets.map((variables) => JSON.stringify({ query, variables, operationName: operationName ?? undefined })),
    graphql: true,
  };
}

async function postGraphql<T>(baseUrl: string, query: string, variables: Record<string, unknown>, token: string): Promise<T> {
  const response = await fetch(`${baseUrl}/api/graphql`, {
    method: 'POST',
    headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: T; errors?: unknown };
  if (!body.data || body.errors) throw new Error(`GraphQL answered ${response.status} ${JSON.stringify(body.errors ?? body).slice(0, 500)}`);
  return body.data;
}

/** The API and the SQL baseline must return the same rows in the same order. */
function sameIds(name: string, api: { id: string }[], sql: { id: string }[]): void {
  const a = api.map((row) => row.id).join(',');
  const b = sql.map((row) => row.id).join(',');
  if (a !== b) throw new Error(`${name}: the API answered ${api.length} rows, the SQL ${sql.length}, or in another order`);
}
