/**
 * The web's case lists answered by one SQL statement (src/server/graphql/compiled-lists.ts,
 * migration 0107) give, byte for byte, the answer PostGraphile gives: for every kind of reader,
 * each of the three documents and a spread of variables, on data with tasks, timers, PHQ-9
 * item 9, open signals, treatment assignments, more than ten therapists on one case, unread and
 * latest messages and an anonymized case. PostGraphile's answer is the same document with one
 * space more, which the fast path does not recognise. What the fast path must leave to
 * PostGraphile (another text, wrong variables, a refused request, signed out) is answered as
 * before, and the switch turns the path off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { pgSettingsFor } from '../../src/server/db/transaction';
import { CASE_LIST_QUERY, PAGED_CASES_QUERY, SHORT_PAGED_CASES_QUERY } from '../../src/domain/case-list-operations';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
let cast: Cast;
const readers: Record<string, Person> = {};

interface Answer {
  status: number;
  contentType: string | null;
  compiled: string | null;
  text: string;
  /** Every header but the date, the body's length and the fast path's mark. */
  headers: Record<string, string>;
}

// x-request-id: each request's own (issue 28's request ids).
const VOLATILE_HEADERS = new Set(['date', 'content-length', 'x-sanad-compiled-list', 'x-request-id']);

async function post(query: string, variables: unknown, token: string | undefined, extra: { accept?: string; operationName?: string | null } = {}): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: extra.accept ?? 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const body: Record<string, unknown> = { query, variables };
  if (extra.operationName !== undefined) body.operationName = extra.operationName;
  const response = await fetch(`${t.url}/api/graphql`, { method: 'POST', headers, body: JSON.stringify(body) });
  const kept = Object.fromEntries([...response.headers].filter(([name]) => !VOLATILE_HEADERS.has(name)));
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    compiled: response.headers.get('x-sanad-compiled-list'),
    text: await response.text(),
    headers: kept,
  };
}

const DOCUMENTS = [
  { name: 'PagedCases', query: PAGED_CASES_QUERY, paged: true },
  { name: 'ShortPagedCases', query: SHORT_PAGED_CASES_QUERY, paged: true },
  { name: 'CaseListWithMessageCounts', query: CASE_LIST_QUERY, paged: false },
] as const;

const VARIABLES: Record<string, unknown>[] = [
  {},
  { search: null, stage: null, first: 200, offset: 0 },
  { search: 'haddad' },
  { search: ' HADDAD ', first: 2, offset: 1 },
  { search: 'no such case' },
  { search: 'hadad' },
  { stage: 'therapy' },
  { stage: 'anonymization' },
  { first: 1 },
  { first: 3, offset: 3 },
  { offset: 1000 },
];
const PAGED_VARIABLES: Record<string, unknown>[] = [{ filterUnassigned: true }, { filterUnassigned: true, search: 'haddad', first: 2 }, { filterUnassigned: false, stage: 'waiting' }];

const TITLES = ['Haddad family', 'Nour', 'haddad', 'Sami Haddad', 'Amal "quoted"\nline', 'under_score', 'Rami', 'Tab\there \u0001 \u2028', 'Huda', 'Lina', 'Omar', 'Yara'];
const STAGES = ['therapy', 'waiting', 'therapy', 'anonymization', 'therapy', 'screening', 'waiting', 'therapy', 'finished', 'therapy', 'therapy', 'waiting'];

beforeAll(async () => {
  t = await startTestApp();
  const pool = t.database.db.pool;
  cast = await castOfRoles(t, { patient: { alias: 'Patient Ä' } });
  const people = cast.people;
  Object.assign(readers, {
    coordinator: people.coordinator,
    therapist: people.therapist,
    supervisor: people.supervisor,
    interviewer: people.interviewer,
    counselor: people.counselor,
    supporter: people.supporter,
    patient: people.patient,
    otherTherapist: people.otherTherapist,
    noCases: people.outsider,
  });
  readers.memberCoordinator = await t.user({ flags: ['coordinator', 'therapist'] });
  const caseIds = [cast.caseA, cast.caseB];
  for (let i = 0; i < TITLES.length; i++) caseIds.push((await t.user({ flags: ['patient'] })).caseId!);
  for (const [i, id] of caseIds.entries()) {
    // Pairs of cases share a created_at, so the order by id decides between them.
    const created = new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 2), 9, 30, 15, 123)).toISOString();
    await pool.query('update app_public.cases set title = $2, stage = $3, created_at = $4, is_dropout = $5 where id = $1', [
      id,
      TITLES[i % TITLES.length],
      STAGES[i % STAGES.length],
      created,
      i % 5 === 1,
    ]);
  }
  for (const i of [2, 4, 6, 9]) await addMember(pool, caseIds[i]!, people.therapist.username, ['therapist']);
  for (const i of [3, 7]) await addMember(pool, caseIds[i]!, readers.memberCoordinator!.username, ['therapist', 'counselor']);
  await addMember(pool, caseIds[5]!, people.counselor.username, ['counselor']);
  await addMember(pool, caseIds[5]!, people.interviewer.username, ['interviewer']);
  // More than ten therapists, counselors and interviewers on case A (the lists give ten).
  for (let i = 0; i < 12; i++) {
    const staff = await t.user({ flags: ['therapist', 'counselor', 'interviewer'], ...(i % 3 === 0 ? { alias: `Staff ${i}` } : {}) });
    await addMember(pool, cast.caseA, staff.username, i % 2 === 0 ? ['therapist', 'interviewer'] : ['counselor', 'therapist']);
  }
  // Open and resolved risk signals.
  for (const [id, resolved] of [[cast.caseA, false], [cast.caseA, false], [cast.caseA, true], [caseIds[2], false]] as const) {
    await pool.query(
      `insert into app_public.safety_signals (case_id, source, source_record_id, responsible_group, resolved_at)
       values ($1, 'test', gen_random_uuid(), 'therapists', case when $2 then now() end)`,
      [id, resolved],
    );
  }
  // PHQ-9 item 9, the latest change counting.
  for (const [id, time, item9, seconds] of [[cast.caseA, 'pre', 2, 1], [cast.caseA, 'post', 1, 2], [caseIds[2], 'pre', 0, 3], [caseIds[4], 'pre', null, 4]] as const) {
    await pool.query(
      `insert into app_public.phq9 (case_id, submitter_id, time_of_measurement, item9, updated_at)
       values ($1, (select user_id from app_public.case_members where case_id = $1 and acts_as_patient), $2, $3, now() + make_interval(secs => $4))`,
      [id, time, item9, seconds],
    );
  }
  // Tasks of both groups (open, overdue, ahead, closed) and timers (one failed).
  const tasks = [
    [cast.caseA, ['patients'], -2, false],
    [cast.caseA, ['patients'], 3, false],
    [cast.caseA, ['therapists'], -1, false],
    [cast.caseA, ['therapists'], 4, true],
    [caseIds[2], ['therapists', 'supervisors'], 1, false],
    [caseIds[5], ['patients', 'therapists'], -3, false],
    [caseIds[6], ['therapists'], null, false],
  ] as const;
  for (const [id, groups, days, ended] of tasks) {
    const instance = await pool.query<{ id: string }>(
      `insert into app_public.workflow_instances (case_id, definition_key, definition_version, state, start_time)
       select $1, d.key, d.version, 'ACTIVE', now() from app_private.workflow_definitions d limit 1 returning id`,
      [id],
    );
    await pool.query(
      `insert into app_public.workflow_tasks (process_instance_id, case_id, execution_id, task_definition_key, candidate_groups, due, created, end_time)
       values ($1, $2, gen_random_uuid()::text, 'task', $3, now() + make_interval(days => $4), now() - interval '1 day', case when $5 then now() end)`,
      [instance.rows[0]!.id, id, groups, days, ended],
    );
    await pool.query(
      `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, execution_id, due_date, failed_at, created)
       values ($1, $2, 'timer', 'wait', gen_random_uuid()::text, now() + make_interval(days => $3), case when $4 then now() end, now())`,
      [instance.rows[0]!.id, id, 10 + (days ?? 0), ended],
    );
  }
  // A treatment assignment on some cases.
  // A fixture of an assignment the trial's randomization step would have made (the step's own door,
  // 0150's _050_in_step, is tested in one-door.int.test.ts).
  await pool.query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
  for (const [id, arm] of [[cast.caseA, 'A'], [caseIds[2], 'B'], [caseIds[7], 'A']] as const) {
    await pool.query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method, assigned_at) values ($1, $2, '*', 'blocks', now())`, [id, arm]);
  }
  // Messages: sent ones (unread for some readers, the latest per case), a draft.
  const messages = [
    [cast.caseA, people.therapist.id, 'Hello', true, { to_patients: true, to_therapists: true, to_supervisors: true }],
    [cast.caseA, people.patient.id, 'Re: "hello"', true, { to_therapists: true, to_counselors: true }],
    [cast.caseA, people.therapist.id, 'draft', false, { to_patients: true }],
    [caseIds[2], people.therapist.id, null, true, { to_patients: true, to_therapists: true }],
    [caseIds[5], people.counselor.id, 'Interview', true, { to_interviewers: true, to_counselors: true }],
  ] as const;
  for (const [i, [id, sender, subject, sent, to]] of messages.entries()) {
    const flags = Object.keys(to);
    await pool.query(
      `insert into app_public.case_messages (case_id, sender_id, subject, body, sent_at, ${flags.join(', ')})
       values ($1, $2, $3, 'body', case when $4 then now() + make_interval(secs => $5) end, ${flags.map(() => 'true').join(', ')})`,
      [id, sender, subject, sent, i],
    );
  }
}, 240_000);

afterAll(async () => {
  await t?.close();
});

describe('the compiled case lists', () => {
  it('answer every reader, document and variables byte for byte as PostGraphile does', async () => {
    let compared = 0;
    let rows = 0;
    for (const [who, person] of Object.entries(readers)) {
      for (const document of DOCUMENTS) {
        for (const variables of document.paged ? [...VARIABLES, ...PAGED_VARIABLES] : VARIABLES) {
          const label = `${who} ${document.name} ${JSON.stringify(variables)}`;
          const fast = await post(document.query, variables, person.token, { operationName: document.name });
          const graphql = await post(`${document.query} `, variables, person.token, { operationName: document.name });
          expect(fast.compiled, label).toBe(document.name);
          expect(graphql.compiled, label).toBeNull();
          expect(fast.status, label).toBe(graphql.status);
          expect(fast.contentType, label).toBe(graphql.contentType);
          expect(JSON.parse(graphql.text).errors, label).toBeUndefined();
          expect(JSON.parse(fast.text), label).toEqual(JSON.parse(graphql.text));
          expect(fast.text, label).toBe(graphql.text);
          rows += (Object.values(JSON.parse(fast.text).data)[0] as { nodes: unknown[] }).nodes.length;
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
    expect(rows).toBeGreaterThan(400);
  }, 600_000);

  it('compare answers that hold every field (the data covers each of them)', async () => {
    const answer = JSON.parse((await post(PAGED_CASES_QUERY, {}, readers.coordinator!.token)).text);
    const nodes = answer.data.pagedCases.nodes as Record<string, any>[];
    const caseA = nodes.find((n) => n.id === cast.caseA)!;
    expect(caseA.therapistsList).toHaveLength(10);
    expect(caseA.counselorsList).toHaveLength(7);
    expect(caseA.interviewersList).toHaveLength(7);
    expect(caseA.openSafetySignals).toBe(2);
    expect(caseA.latestPhq9Item9).toBe(1);
    expect(caseA.nextWaitingDate).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(caseA.patientTasks).toMatchObject({ countOfOpen: 2 });
    expect(caseA.patientTasks.latestDue).not.toBeNull();
    expect(caseA.patientTasks.nextTime).not.toBeNull();
    expect(caseA.therapistTasks).toEqual({ countOfOpen: 1, countOfOverdue: 1 });
    expect(caseA.treatmentAssignmentsByCaseIdList).toHaveLength(1);
    expect(caseA.patient.alias).toBe('Patient Ä');
    expect(nodes.some((n) => n.stage === 'anonymization')).toBe(false);
    const listed = async (who: Person) =>
      (JSON.parse((await post(CASE_LIST_QUERY, {}, who.token)).text).data.caseList.nodes as Record<string, any>[]).find((n) => n.id === cast.caseA)!;
    const supervisor = await listed(readers.supervisor!);
    expect(supervisor.latestMessage.subject).toBe('Hello');
    expect(supervisor.newMessages).toBe(1);
    expect(supervisor.myInvolvement.actsAsSupervisor).toBe(true);
    const therapist = await listed(readers.therapist!);
    expect(therapist.latestMessage).toMatchObject({ subject: 'Re: "hello"' });
    expect(therapist.newMessages).toBe(1);
    const searched = JSON.parse((await post(SHORT_PAGED_CASES_QUERY, { search: 'haddad' }, readers.coordinator!.token)).text).data.pagedCases.nodes;
    expect(searched.map((n: { searchSimilarity: number }) => n.searchSimilarity)).toContain(1);
    // A near match: a similarity between 0 and 1 (a float4 as PostGraphile prints it).
    for (const who of [readers.coordinator!, readers.therapist!]) {
      const near = JSON.parse((await post(CASE_LIST_QUERY, { search: 'hadad' }, who.token)).text).data.caseList.nodes;
      expect(near.some((n: { searchSimilarity: number }) => n.searchSimilarity > 0 && n.searchSimilarity < 1)).toBe(true);
    }
  });

  it('leave everything else to PostGraphile, which answers as before', async () => {
    const token = readers.therapist!.token;
    const cases: [string, string, unknown, { accept?: string; operationName?: string | null }, string | undefined][] = [
      ['a wrong type', PAGED_CASES_QUERY, { first: '200' }, {}, token],
      ['a null first', PAGED_CASES_QUERY, { first: null }, {}, token],
      ['a negative offset', CASE_LIST_QUERY, { offset: -1 }, {}, token],
      ['a first over 32 bits', SHORT_PAGED_CASES_QUERY, { first: 2 ** 31 }, {}, token],
      ['a first over the cost limit', PAGED_CASES_QUERY, { first: 100_000 }, {}, token],
      ['a search with NUL', PAGED_CASES_QUERY, { search: 'a\u0000b' }, {}, token],
      ['an unknown variable', CASE_LIST_QUERY, { filterUnassigned: true }, {}, token],
      ['a null filter', SHORT_PAGED_CASES_QUERY, { filterUnassigned: null }, {}, token],
      ['another operation name', PAGED_CASES_QUERY, {}, { operationName: 'ShortPagedCases' }, token],
      ['variables not an object', PAGED_CASES_QUERY, [1], {}, token],
      ['signed out', PAGED_CASES_QUERY, {}, {}, undefined],
      ['a bad token', PAGED_CASES_QUERY, {}, {}, 'not-a-token'],
      ['an Accept list', CASE_LIST_QUERY, {}, { accept: 'application/json, text/plain;q=0.5' }, token],
      ['text only', CASE_LIST_QUERY, {}, { accept: 'text/plain' }, token],
    ];
    for (const [label, query, variables, extra, who] of cases) {
      const exact = await post(query, variables, who, extra);
      const other = await post(`${query} `, variables, who, extra);
      expect(exact.compiled, label).toBeNull();
      expect({ ...exact, text: JSON.parse(exact.text) }, label).toEqual({ ...other, text: JSON.parse(other.text) });
    }
    // A changed text is not recognised (PostGraphile answers it).
    const changed = await post(PAGED_CASES_QUERY.replace('isDropout ', ''), {}, token);
    expect(changed.status).toBe(200);
    expect(changed.compiled).toBeNull();
  });

  it("read as the person with the GraphQL read's settings in one message: setup, the prepared statement, commit", async () => {
    const pool = t.database.db.requestPool;
    const sent: { text: string; name?: string }[] = [];
    const recorded = new WeakSet<object>();
    const record = (client: { query: (...args: unknown[]) => unknown }) => {
      if (recorded.has(client)) return;
      recorded.add(client);
      const query = client.query.bind(client);
      Object.assign(client, {
        query: (...args: unknown[]) => {
          const config = args[0] as string | { text: string; name?: string };
          sent.push(typeof config === 'string' ? { text: config } : { text: config.text, ...(config.name ? { name: config.name } : {}) });
          return query(...args);
        },
      });
    };
    pool.on('acquire', record);
    try {
      const person = readers.therapist!;
      const answer = await post(PAGED_CASES_QUERY, { search: null, first: 200 }, person.token, { operationName: 'PagedCases' });
      expect(answer.compiled).toBe('PagedCases');
      // The access log's write after a staff read of case records is a message of its own (issue 30).
      const statements = sent.filter((s) => !s.text.includes('app_private.login_tokens') && !s.text.includes('app_hidden.record_case_reads'));
      // Once per connection, the statement is prepared in a message of its own; then every
      // read is one message: the transaction, the person's settings, the execution, the commit.
      // Prepared as the request role (issue 34: the authenticator itself may not look up names).
      const prepares = statements.filter((s) => s.text.includes('prepare '));
      expect(prepares.map((s) => s.text)).toEqual(
        prepares.length === 0
          ? []
          : ['set role sanad_user; prepare sanad_compiled_paged_cases as select app_hidden.paged_cases_page_json($1, $2, $3, $4, $5, true) as json; reset role'],
      );
      const messages = statements.filter((s) => !s.text.includes('prepare '));
      expect(messages).toHaveLength(1);
      const message = messages[0]!.text;
      expect(message.startsWith(`begin; set local role ${pgSettingsFor({ userId: person.id }).role}; set local jit = off; select set_config('jwt.claims.user_id', '${person.id}', true)`)).toBe(true);
      expect(message).toContain(", set_config('plan_cache_mode', 'force_generic_plan', true); execute sanad_compiled_paged_cases('false', null, null, '200', '0'); commit");
      expect(messages[0]!.name).toBeUndefined();
      expect(pool.totalCount - pool.idleCount).toBe(0);
    } finally {
      pool.off('acquire', record);
    }
  });

  it('answer with the media type grafserv chooses for the Accept header', async () => {
    const token = readers.coordinator!.token;
    for (const accept of ['application/json', '*/*', 'application/graphql-response+json']) {
      const fast = await post(CASE_LIST_QUERY, {}, token, { accept });
      const graphql = await post(`${CASE_LIST_QUERY} `, {}, token, { accept });
      expect(fast.compiled, accept).toBe('CaseListWithMessageCounts');
      expect([fast.status, fast.contentType], accept).toEqual([graphql.status, graphql.contentType]);
      expect(fast.headers, accept).toEqual(graphql.headers);
      expect(fast.text, accept).toBe(graphql.text);
    }
  });

  it('are counted by the rate limits as any GraphQL request', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_PERSON_PER_MINUTE: '2' });
    try {
      const person = await limited.user({ flags: ['coordinator'] });
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        const response = await fetch(`${limited.url}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${person.token}` },
          body: JSON.stringify({ query: CASE_LIST_QUERY, variables: {} }),
        });
        statuses.push(response.status);
        if (response.status === 200) expect(response.headers.get('x-sanad-compiled-list')).toBe('CaseListWithMessageCounts');
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await limited.close();
    }
  });

  it('are answered by PostGraphile when GRAPHQL_COMPILED_LISTS is off', async () => {
    const off = await startTestApp({ GRAPHQL_COMPILED_LISTS: '0' });
    try {
      const person = await off.user({ flags: ['coordinator'] });
      const response = await fetch(`${off.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${person.token}` },
        body: JSON.stringify({ query: PAGED_CASES_QUERY, variables: {} }),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-sanad-compiled-list')).toBeNull();
      expect((await response.json()).data.pagedCases.totalCount).toBeGreaterThanOrEqual(0);
    } finally {
      await off.close();
    }
  });
});
