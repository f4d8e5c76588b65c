/**
 * The case lists read one page (migration 0080): case_list has a branch per kind of caller,
 * each in its own order, instead of one sort over all listed cases. The answers must be those
 * of the list before 0080 for every caller (a coordinator who is a member of no case, one who
 * is a member of some, a therapist, a patient), search (none, blank, by name, by short id, by a
 * LIKE wildcard, no match), stage (none, one, anonymization, unknown) and page (limit, offset),
 * compared row by row and in order with 0032's case_list, recreated here from its migration
 * under another name. Ties of created_at are ordered by id; PagedCases and ShortPagedCases
 * (pagedCases with filterUnassigned) page the same rows through GraphQL. The care-role people
 * (0100, 0101) and the per-case columns (0082, 0083, 0102) are compared with the users policy
 * and with their earlier definitions for every reader, on rows passed by hand too (a case or
 * membership the reader may not list), so that no answer widens; so are the inlined twins the
 * API reads (0104–0106) with the functions they stand for.
 */
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { MIGRATIONS_DIR } from '../../src/server/db/migrate';
import { withUser } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
const viewers: Record<string, Person> = {};
const caseIds: string[] = [];

/**
 * A function as an earlier migration defined it, under another name in app_hidden, for
 * comparison: the text of the migration itself.
 */
function earlierFunction(file: string, name: string, renamed: string): string {
  const migration = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
  const start = migration.search(new RegExp(`create (or replace )?function app_public\\.${name}\\(`));
  const end = migration.indexOf('$$;', start) + 3;
  expect(start).toBeGreaterThan(0);
  return migration
    .slice(start, end)
    .replace(`app_public.${name}(`, `app_hidden.${renamed}(`)
    .replaceAll(`${name}.`, `${renamed}.`);
}

const TITLES = ['Haddad family', 'Nour', 'haddad', 'Sami Haddad', '50% done', 'under_score', 'Amal', 'Rami', 'Karim', 'Huda', 'Lina', 'Omar', 'Yara', 'Ziad'];
const STAGES = ['therapy', 'waiting', 'therapy', 'anonymization', 'therapy', 'screening', 'waiting', 'therapy', 'finished', 'therapy', 'therapy', 'waiting', 'therapy', 'therapy'];

beforeAll(async () => {
  t = await startTestApp();
  const pool = t.database.db.pool;
  const patients: Person[] = [];
  for (let i = 0; i < TITLES.length; i++) patients.push(await t.user({ flags: ['patient'] }));
  for (const [i, patient] of patients.entries()) {
    caseIds.push(patient.caseId!);
    // Pairs of cases share a created_at, so the order by id decides between them.
    const created = new Date(Date.UTC(2026, 0, 1 + Math.floor(i / 2))).toISOString();
    await pool.query('update app_public.cases set title = $2, stage = $3, created_at = $4 where id = $1', [patient.caseId, TITLES[i], STAGES[i], created]);
  }
  viewers.patient = patients[0]!;
  viewers.coordinator = await t.user({ flags: ['coordinator'] });
  viewers.memberCoordinator = await t.user({ flags: ['coordinator', 'therapist'] });
  viewers.therapist = await t.user({ flags: ['therapist'] });
  viewers.counselor = await t.user({ flags: ['counselor'] });
  for (const i of [0, 2, 3, 4, 5, 8, 9, 12]) await addMember(pool, caseIds[i]!, viewers.therapist.username, ['therapist']);
  for (const i of [1, 6]) await addMember(pool, caseIds[i]!, viewers.memberCoordinator.username, ['therapist']);
  await addMember(pool, caseIds[7]!, viewers.counselor.username, ['counselor']);
  await pool.query(earlierFunction('0032-case-inbox.sql', 'case_list', 'case_list_0032'));
  await pool.query(earlierFunction('0011-workflow.sql', 'cases_task_summary', 'cases_task_summary_0011'));
  await pool.query(earlierFunction('0013-case-scores.sql', 'cases_latest_phq9_item9', 'cases_latest_phq9_item9_0013'));
  await pool.query(earlierFunction('0050-clinical-safety.sql', 'cases_open_safety_signals', 'cases_open_safety_signals_0050'));
  await pool.query(`grant execute on function app_hidden.case_list_0032(text, text), app_hidden.cases_task_summary_0011(app_public.cases, text),
    app_hidden.cases_latest_phq9_item9_0013(app_public.cases), app_hidden.cases_open_safety_signals_0050(app_public.cases) to sanad_user`);
  // Open and resolved risk signals on some cases.
  for (const [i, resolved] of [[0, false], [0, true], [2, false], [7, true]] as const) {
    await pool.query(
      `insert into app_public.safety_signals (case_id, source, source_record_id, responsible_group, resolved_at)
       values ($1, 'test', gen_random_uuid(), 'therapists', case when $2 then now() end)`,
      [caseIds[i], resolved],
    );
  }
  // PHQ-9 records on some cases, item 9 changing over time (the latest change counts).
  for (const [i, item9] of [[0, 2], [0, 1], [3, 0], [7, 3], [9, null]] as const) {
    const time = ['pre', 'post', 'fu1', 'fu2', 'pre'][i % 5];
    await pool.query(
      `insert into app_public.phq9 (case_id, submitter_id, time_of_measurement, item9, updated_at)
       values ($1, (select user_id from app_public.case_members where case_id = $1 and acts_as_patient), $2, $3, now() + make_interval(secs => $4))
       on conflict (case_id, time_of_measurement) do update set item9 = excluded.item9, updated_at = excluded.updated_at`,
      [caseIds[i], time, item9, caseIds.length + i],
    );
  }
});
afterAll(async () => {
  await t?.close();
});

const SEARCHES = [null, '', '   ', 'haddad', ' HADDAD ', 'had', '50%', '%', '_', 'no such case'];
const STAGE_FILTERS = [null, 'therapy', 'waiting', 'anonymization', 'no-such-stage'];
const PAGES = [
  { limit: 100, offset: 0 },
  { limit: 3, offset: 0 },
  { limit: 3, offset: 3 },
  { limit: 3, offset: 9 },
];

/** The rows a statement gives when the person runs it, as the server runs a request (withUser). */
async function rowsAs<T extends object = Record<string, unknown>>(person: Person, text: string, values: unknown[] = []): Promise<T[]> {
  return withUser(t.database.db.pool, { userId: person.id }, async (sql) => (await sql.query<T & pg.QueryResultRow>(text, values)).rows);
}

async function ids(person: Person, text: string, values: unknown[]): Promise<string[]> {
  return (await rowsAs<{ id: string }>(person, text, values)).map((r) => r.id);
}

describe('case_list after 0080', () => {
  it('answers every caller, search, stage and page as the list before it, in the same order', async () => {
    for (const [name, person] of Object.entries(viewers)) {
      for (const search of SEARCHES) {
        for (const stage of STAGE_FILTERS) {
          for (const { limit, offset } of PAGES) {
            const values = [search, stage, limit, offset];
            const now = await ids(person, 'select id from app_public.case_list($1, $2) limit $3 offset $4', values);
            const before = await ids(person, 'select id from app_hidden.case_list_0032($1, $2) limit $3 offset $4', values);
            expect(now, `${name} search=${JSON.stringify(search)} stage=${stage} limit ${limit} offset ${offset}`).toEqual(before);
          }
        }
      }
    }
  });

  it('really lists something for each kind of caller (the comparison is not between two empty lists)', async () => {
    const listed = async (person: Person, search: string | null) => (await ids(person, 'select id from app_public.case_list($1, null)', [search])).length;
    // 13 listed cases (one is in anonymization); the member coordinator is a coordinator first.
    expect(await listed(viewers.coordinator!, null)).toBe(13);
    expect(await listed(viewers.memberCoordinator!, null)).toBe(13);
    expect(await listed(viewers.therapist!, null)).toBe(7);
    expect(await listed(viewers.patient!, null)).toBe(1);
    expect(await listed(viewers.coordinator!, 'haddad')).toBe(2); // 'Sami Haddad' is in anonymization
    expect(await listed(viewers.therapist!, 'haddad')).toBe(2);
  });

  it('keeps the order newest first, then by id, for a coordinator without search', async () => {
    const rows = await withUser(t.database.db.pool, { userId: viewers.coordinator!.id }, async (sql) =>
      (await sql.query<{ id: string; created_at: Date }>('select id, created_at from app_public.case_list(null, null)')).rows,
    );
    const sorted = [...rows].sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    expect(rows.map((r) => r.id)).toEqual(sorted.map((r) => r.id));
  });
});

describe('the per-case columns of PagedCases after 0082 and 0083', () => {
  it('answer every reader as before: the task summaries, the latest PHQ-9 item 9 and the open risk signals', async () => {
    const outsider = await t.user({ flags: ['therapist'] });
    const readers = { ...viewers, outsider, otherPatient: await t.user({ flags: ['patient'] }) };
    for (const [name, person] of Object.entries(readers)) {
      const rows = await withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
        (
          await sql.query(
            `select c.id,
                    app_public.cases_task_summary(c, 'patients')::text as patients, app_hidden.cases_task_summary_0011(c, 'patients')::text as patients_before,
                    app_public.cases_task_summary(c, 'therapists')::text as therapists, app_hidden.cases_task_summary_0011(c, 'therapists')::text as therapists_before,
                    app_public.cases_latest_phq9_item9(c) as item9, app_hidden.cases_latest_phq9_item9_0013(c) as item9_before,
                    app_public.cases_open_safety_signals(c) as signals, app_hidden.cases_open_safety_signals_0050(c) as signals_before
               from app_public.cases c`,
          )
        ).rows,
      );
      for (const row of rows) {
        expect([row.patients, row.therapists, row.item9, row.signals], `${name} on ${row.id}`).toEqual([
          row.patients_before,
          row.therapists_before,
          row.item9_before,
          row.signals_before,
        ]);
      }
    }
    // Not all alike: item 9 is seen where it was answered, by those who may read it.
    const coordinatorRows = await withUser(t.database.db.pool, { userId: viewers.coordinator!.id }, async (sql) =>
      (await sql.query('select app_public.cases_latest_phq9_item9(c) as item9 from app_public.cases c where c.id = any($1)', [[caseIds[0], caseIds[7]]])).rows,
    );
    expect(coordinatorRows.map((r) => r.item9).sort()).toEqual([1, 3]);
    const signals = async (person: Person) =>
      withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
        (await sql.query('select app_public.cases_open_safety_signals(c) as n from app_public.cases c where c.id = $1', [caseIds[0]])).rows[0]?.n,
      );
    expect(await signals(viewers.therapist!)).toBe(1);
    expect(await signals(viewers.coordinator!)).toBe(1);
    expect(await signals(viewers.patient!)).toBeNull();
  });
});

describe('pagedCases after 0080 (PagedCases, ShortPagedCases)', () => {
  const PAGED = `query($u: Boolean, $s: String, $stage: String, $first: Int, $offset: Int) {
    pagedCases(filterUnassigned: $u, search: $s, stage: $stage, first: $first, offset: $offset) { totalCount nodes { id } }
  }`;
  const BEFORE = `select c.id from app_hidden.case_list_0032($2, $3) c
    where not coalesce($1, false)
       or not exists (select 1 from app_hidden.case_staff_roles(c.id) r where r.acts_as_therapist or r.acts_as_counselor)`;

  it('pages the same rows, in the same order, with the same total, as the list before it', async () => {
    for (const [name, person] of Object.entries(viewers)) {
      for (const unassigned of [false, true]) {
        for (const search of [null, 'haddad', '%']) {
          for (const stage of [null, 'therapy']) {
            const all = await ids(person, BEFORE, [unassigned, search, stage]);
            for (const { limit, offset } of PAGES) {
              const result = await t.graphql(PAGED, { u: unassigned, s: search, stage, first: limit, offset }, person.token);
              expect(result.errors).toBeUndefined();
              const label = `${name} unassigned=${unassigned} search=${search} stage=${stage} first ${limit} offset ${offset}`;
              expect(result.data.pagedCases.nodes.map((n: { id: string }) => n.id), label).toEqual(all.slice(offset, offset + limit));
              expect(result.data.pagedCases.totalCount, label).toBe(all.length);
            }
          }
        }
      }
    }
  });
});

describe('the care-role people of PagedCases after 0100 and 0101', () => {
  /** Every user's row as the reader may see it through the users policy, and through case_members_person. */
  async function personBothWays(person: Person, memberships: { case_id: string; user_id: string }[]) {
    return withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
      (
        await sql.query<{ case_id: string; user_id: string; person: string | null; policy: string | null }>(
          `select m.case_id, m.user_id, app_public.case_members_person(m)::text as person,
                  (select u::text from app_public.users u where u.id = m.user_id) as policy
             from jsonb_populate_recordset(null::app_public.case_members, $1) as m`,
          [JSON.stringify(memberships)],
        )
      ).rows,
    );
  }

  it('shows a member exactly as the users policy does, for every reader, real memberships and rows built by hand', async () => {
    const pool = t.database.db.pool;
    const interviewer = await t.user({ flags: ['interviewer'] });
    await addMember(pool, caseIds[0]!, interviewer.username, ['interviewer']);
    const outsider = await t.user({ flags: ['therapist'] });
    const readers = { ...viewers, interviewer, outsider, otherPatient: await t.user({ flags: ['patient'] }) };
    const real = (await pool.query<{ case_id: string; user_id: string }>('select case_id, user_id from app_public.case_members')).rows;
    const users = (await pool.query<{ id: string }>('select id from app_public.users')).rows.map((r) => r.id);
    // Every user paired with a case they may not be a member of, and with no case at all.
    const byHand = users.flatMap((userId) => [
      { case_id: caseIds[0]!, user_id: userId },
      { case_id: caseIds[7]!, user_id: userId },
      { case_id: '00000000-0000-4000-8000-000000000000', user_id: userId },
    ]);
    for (const [name, person] of Object.entries(readers)) {
      const rows = await personBothWays(person, [...real, ...byHand]);
      for (const row of rows) expect(row.person, `${name} reading ${row.user_id} in ${row.case_id}`).toBe(row.policy);
      // Not all alike: some are seen, and a non-coordinator does not see everyone.
      expect(rows.some((r) => r.person !== null), name).toBe(true);
      if (!name.toLowerCase().includes('coordinator')) expect(rows.some((r) => r.person === null), name).toBe(true);
    }
    const seen = async (reader: Person, userId: string, caseId: string) => (await personBothWays(reader, [{ case_id: caseId, user_id: userId }]))[0]!.person !== null;
    // The patient sees their therapist and interviewer; another patient and staff outside the case do not.
    expect(await seen(viewers.patient!, viewers.therapist!.id, caseIds[0]!)).toBe(true);
    expect(await seen(viewers.patient!, interviewer.id, caseIds[0]!)).toBe(true);
    expect(await seen(readers.otherPatient, viewers.therapist!.id, caseIds[0]!)).toBe(false);
    expect(await seen(outsider, viewers.therapist!.id, caseIds[0]!)).toBe(false);
    expect(await seen(outsider, viewers.patient!.id, caseIds[0]!)).toBe(false);
    expect(await seen(viewers.coordinator!, viewers.patient!.id, caseIds[0]!)).toBe(true);
    expect(await seen(viewers.therapist!, interviewer.id, caseIds[0]!)).toBe(true);
  });

  it('lists the same care-role members, in the same order, as the lists before 0101', async () => {
    const pool = t.database.db.pool;
    for (const role of ['therapists', 'counselors', 'interviewers']) {
      await pool.query(earlierFunction('0060-randomization.sql', `cases_${role}`, `cases_${role}_0060`));
      await pool.query(`grant execute on function app_hidden.cases_${role}_0060(app_public.cases) to sanad_user`);
    }
    const outsider = await t.user({ flags: ['therapist'] });
    for (const [name, person] of Object.entries({ ...viewers, outsider })) {
      const rows = await rowsAs(person, `select c.id,
                    array(select m.id from app_public.cases_therapists(c) m) as therapists, array(select m.id from app_hidden.cases_therapists_0060(c) m) as therapists_before,
                    array(select m.id from app_public.cases_counselors(c) m) as counselors, array(select m.id from app_hidden.cases_counselors_0060(c) m) as counselors_before,
                    array(select m.id from app_public.cases_interviewers(c) m) as interviewers, array(select m.id from app_hidden.cases_interviewers_0060(c) m) as interviewers_before
               from app_public.cases c`);
      for (const row of rows) {
        expect([row.therapists, row.counselors, row.interviewers], `${name} on ${row.id}`).toEqual([row.therapists_before, row.counselors_before, row.interviewers_before]);
      }
    }
  });

  it('answers PagedCases with the same people as the user relation of each membership, for every reader', async () => {
    const PEOPLE = `query { pagedCases(first: 200) { nodes { id
      therapistsList(first: 10) { person { id username alias } userByUserId { id username alias } }
      counselorsList(first: 10) { person { id username alias } userByUserId { id username alias } }
      interviewersList(first: 10) { person { id username alias } userByUserId { id username alias } }
    } } }`;
    let people = 0;
    for (const [name, person] of Object.entries(viewers)) {
      const result = await t.graphql(PEOPLE, {}, person.token);
      expect(result.errors, name).toBeUndefined();
      for (const node of result.data.pagedCases.nodes) {
        for (const list of [node.therapistsList, node.counselorsList, node.interviewersList]) {
          for (const member of list) {
            expect(member.person, `${name} on ${node.id}`).toEqual(member.userByUserId);
            if (member.person) people++;
          }
        }
      }
    }
    expect(people).toBeGreaterThan(0);
  });

  it('gives the next waiting date (0011: workflow_jobs under its policy) and the columns of 0102 to every reader as before, on every case', async () => {
    const pool = t.database.db.pool;
    await pool.query(earlierFunction('0011-workflow.sql', 'cases_next_waiting_date', 'cases_next_waiting_date_0011'));
    await pool.query('grant execute on function app_hidden.cases_next_waiting_date_0011(app_public.cases) to sanad_user');
    // Timers (one failed, one a retry, which do not count) on a therapist's case and a counselor's.
    for (const [i, kind, days, failed] of [[0, 'timer', 3, false], [0, 'timer', 1, true], [0, 'retry', 0, false], [7, 'timer', 5, false], [7, 'timer', 2, false]] as const) {
      const instance = await pool.query<{ id: string }>(
        `insert into app_public.workflow_instances (case_id, definition_key, definition_version, state, start_time)
         select $1, d.key, d.version, 'COMPLETED', now() from app_private.workflow_definitions d limit 1 returning id`,
        [caseIds[i]],
      );
      await pool.query(
        `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, execution_id, due_date, failed_at, created)
         values ($1, $2, $3, 'wait', gen_random_uuid()::text, now() + make_interval(days => $4), case when $5 then now() end, now())`,
        [instance.rows[0]!.id, caseIds[i], kind, days, failed],
      );
    }
    const outsider = await t.user({ flags: ['therapist'] });
    // Every case, also those the reader may not list (a case row can be passed by hand).
    const cases = JSON.stringify((await pool.query('select row_to_json(c) as c from app_public.cases c')).rows.map((r) => r.c));
    let dated = 0;
    for (const [name, person] of Object.entries({ ...viewers, outsider, otherPatient: await t.user({ flags: ['patient'] }) })) {
      const rows = await rowsAs(person, `select c.id, app_public.cases_next_waiting_date(c) as now, app_hidden.cases_next_waiting_date_0011(c) as before,
                    array[app_public.cases_task_summary(c, 'patients')::text, app_public.cases_task_summary(c, 'therapists')::text,
                          app_public.cases_latest_phq9_item9(c)::text, app_public.cases_open_safety_signals(c)::text] as columns,
                    array[app_hidden.cases_task_summary_0011(c, 'patients')::text, app_hidden.cases_task_summary_0011(c, 'therapists')::text,
                          app_hidden.cases_latest_phq9_item9_0013(c)::text, app_hidden.cases_open_safety_signals_0050(c)::text] as columns_before
               from jsonb_populate_recordset(null::app_public.cases, $1) as c`, [cases]);
      for (const row of rows) {
        expect(row.now, `${name} on ${row.id}`).toEqual(row.before);
        // The columns of 0102 too, on cases the reader may not list.
        expect(row.columns, `${name} on ${row.id}`).toEqual(row.columns_before);
        if (row.now) dated++;
      }
    }
    expect(dated).toBeGreaterThan(0);
  });
});

describe('the per-case columns of PagedCases inlined into the page (0104)', () => {
  // The twins in app_hidden against the functions they stand for (0102, 0032), and what the API
  // answers through them against the same functions, for every reader.
  /** Open and closed tasks of both groups, overdue and ahead, and more timers, on some cases. */
  async function addTasksAndTimers(): Promise<void> {
    const pool = t.database.db.pool;
    const tasks = [
      [0, ['patients'], -2, false],
      [0, ['patients'], 3, false],
      [0, ['therapists'], -1, false],
      [0, ['therapists'], 4, true],
      [2, ['therapists', 'supervisors'], 1, false],
      [7, ['patients', 'therapists'], -3, false],
      [9, ['therapists'], null, false],
    ] as const;
    for (const [i, groups, days, ended] of tasks) {
      const instance = await pool.query<{ id: string }>(
        `insert into app_public.workflow_instances (case_id, definition_key, definition_version, state, start_time)
         select $1, d.key, d.version, 'ACTIVE', now() from app_private.workflow_definitions d limit 1 returning id`,
        [caseIds[i]],
      );
      await pool.query(
        `insert into app_public.workflow_tasks (process_instance_id, case_id, execution_id, task_definition_key, candidate_groups, due, created, end_time)
         values ($1, $2, gen_random_uuid()::text, 'task', $3, now() + make_interval(days => $4), now() - interval '1 day', case when $5 then now() end)`,
        [instance.rows[0]!.id, caseIds[i], groups, days, ended],
      );
      if (i !== 9) {
        await pool.query(
          `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, execution_id, due_date, created)
           values ($1, $2, 'timer', 'wait', gen_random_uuid()::text, now() + make_interval(days => $3), now())`,
          [instance.rows[0]!.id, caseIds[i], 10 + (days ?? 0)],
        );
      }
    }
  }

  beforeAll(addTasksAndTimers);

  const readers = async () => ({
    ...viewers,
    outsider: await t.user({ flags: ['therapist'] }),
    otherPatient: await t.user({ flags: ['patient'] }),
  });

  it('answer every reader as the functions of 0102 do, on every case, also rows built by hand', async () => {
    const pool = t.database.db.pool;
    const cases = JSON.stringify((await pool.query('select row_to_json(c) as c from app_public.cases c')).rows.map((r) => r.c));
    const seen = { date: 0, item9: 0, signals: 0, tasks: 0, refused: 0, patient: 0, noPatient: 0, member: 0 };
    for (const [name, person] of Object.entries(await readers())) {
      const rows = await rowsAs<{ id: string; inlined: (string | null)[]; functions: (string | null)[] }>(person, `select c.id,
                    array[(select v from app_hidden.cases_next_waiting_date_inline(c) v)::text,
                          (select v from app_hidden.cases_latest_phq9_item9_inline(c) v)::text,
                          (select v from app_hidden.cases_open_safety_signals_inline(c) v)::text,
                          (select s::text from app_hidden.cases_task_summary_inline(c, 'patients') s),
                          (select s::text from app_hidden.cases_task_summary_inline(c, 'therapists') s),
                          (select count(*) from app_hidden.cases_task_summary_inline(c, 'therapists'))::text,
                          (select u::text from app_hidden.cases_patient_inline(c) u),
                          (select i::text from app_hidden.cases_my_involvement_inline(c) i)] as inlined,
                    array[app_public.cases_next_waiting_date(c)::text, app_public.cases_latest_phq9_item9(c)::text,
                          app_public.cases_open_safety_signals(c)::text, app_public.cases_task_summary(c, 'patients')::text,
                          app_public.cases_task_summary(c, 'therapists')::text, '1', app_public.cases_patient(c)::text,
                          app_public.cases_my_involvement(c)::text] as functions
               from jsonb_populate_recordset(null::app_public.cases, $1) as c`, [cases]);
      for (const row of rows) {
        expect(row.inlined, `${name} on ${row.id}`).toEqual(row.functions);
        if (row.inlined[0]) seen.date++;
        if (row.inlined[1]) seen.item9++;
        if (Number(row.inlined[2]) > 0) seen.signals++;
        if (!row.inlined[4]?.startsWith('(0,')) seen.tasks++;
        if (row.inlined[2] === null) seen.refused++;
        if (row.inlined[6]) seen.patient++;
        else seen.noPatient++;
        if (row.inlined[7]) seen.member++;
      }
    }
    // The comparison is not between empty answers: dates, item 9, signals, tasks and patients are seen, and refused.
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });

  it('answers PagedCases with the figures of the functions, for every reader', async () => {
    const PAGE = `query { pagedCases(first: 200) { nodes { id openSafetySignals nextWaitingDate latestPhq9Item9 patient { id username alias }
      myInvolvement { id actsAsTherapist actsAsCounselor actsAsPatient newMessagesAfter }
      patientTasks: taskSummary(groupName: "patients") { countOfOpen latestDue nextTime }
      therapistTasks: taskSummary(groupName: "therapists") { countOfOpen countOfOverdue latestCreated latestDue nextTime } } } }`;
    const time = (value: string | null) => (value === null ? null : new Date(value).getTime());
    let figures = 0;
    for (const [name, person] of Object.entries(await readers())) {
      const result = await t.graphql(PAGE, {}, person.token);
      expect(result.errors, name).toBeUndefined();
      type Node = { id: string; myInvolvement: { id: string; newMessagesAfter: string } | null; patient: { id: string; username: string; alias: string | null } | null; openSafetySignals: number | null; nextWaitingDate: string | null; latestPhq9Item9: number | null; patientTasks: Record<string, unknown>; therapistTasks: Record<string, unknown> };
      const nodes = result.data.pagedCases.nodes as Node[];
      const expected = await withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
        (
          await sql.query(
            `select c.id, app_public.cases_open_safety_signals(c) as signals, app_public.cases_next_waiting_date(c) as next_date,
                    app_public.cases_latest_phq9_item9(c) as item9, to_jsonb(app_public.cases_task_summary(c, 'patients')) as patients,
                    to_jsonb(app_public.cases_task_summary(c, 'therapists')) as therapists,
                    (select jsonb_build_object('id', p.id, 'username', p.username, 'alias', p.alias) from app_public.cases_patient(c) p where p.id is not null) as patient,
                    (select jsonb_build_object('id', i.id, 'actsAsTherapist', i.acts_as_therapist, 'actsAsCounselor', i.acts_as_counselor,
                            'actsAsPatient', i.acts_as_patient, 'newMessagesAfter', i.new_messages_after)
                       from app_public.cases_my_involvement(c) i where i.id is not null) as involvement
               from app_public.cases c where c.id = any($1)`,
            [nodes.map((n) => n.id)],
          )
        ).rows,
      );
      const byId = new Map(expected.map((r) => [r.id as string, r]));
      for (const node of nodes) {
        const row = byId.get(node.id)!;
        const label = `${name} on ${node.id}`;
        expect([node.openSafetySignals, time(node.nextWaitingDate), node.latestPhq9Item9], label).toEqual([row.signals, row.next_date?.getTime() ?? null, row.item9]);
        expect(node.patient, label).toEqual(row.patient);
        expect(node.myInvolvement && { ...node.myInvolvement, newMessagesAfter: time(node.myInvolvement.newMessagesAfter) }, label).toEqual(
          row.involvement && { ...row.involvement, newMessagesAfter: time(row.involvement.newMessagesAfter) },
        );
        expect([node.patientTasks.countOfOpen, time(node.patientTasks.latestDue as string | null), time(node.patientTasks.nextTime as string | null)], label).toEqual([
          row.patients.count_of_open,
          time(row.patients.latest_due),
          time(row.patients.next_time),
        ]);
        expect(
          [node.therapistTasks.countOfOpen, node.therapistTasks.countOfOverdue, time(node.therapistTasks.latestCreated as string | null), time(node.therapistTasks.latestDue as string | null), time(node.therapistTasks.nextTime as string | null)],
          label,
        ).toEqual([row.therapists.count_of_open, row.therapists.count_of_overdue, time(row.therapists.latest_created), time(row.therapists.latest_due), time(row.therapists.next_time)]);
        if (node.nextWaitingDate || node.latestPhq9Item9 !== null || node.openSafetySignals || Number(node.therapistTasks.countOfOpen) > 0) figures++;
      }
    }
    expect(figures).toBeGreaterThan(0);
  });
});

describe('the message columns and care-role people inlined into the statement (0106)', () => {
  // cases_new_messages, cases_latest_message, case_members_person, case_messages_is_unread and
  // case_messages_is_favorite against their twins in app_hidden, and the API against the
  // functions, for every kind of reader, on real rows and rows built by hand.
  const people: Record<string, Person> = {};
  const messageIds: string[] = [];

  beforeAll(async () => {
    const pool = t.database.db.pool;
    people.interviewer = await t.user({ flags: ['interviewer'] });
    people.supporter = await t.user({ flags: ['supporter'] });
    people.supervisor = await t.user({ flags: ['supervisor'] });
    people.outsider = await t.user({ flags: ['therapist'] });
    people.otherPatient = await t.user({ flags: ['patient'] });
    await addMember(pool, caseIds[0]!, people.interviewer.username, ['interviewer']);
    await addMember(pool, caseIds[0]!, people.supporter.username, ['supporter']);
    await addMember(pool, caseIds[0]!, people.supervisor.username, ['supervisor', 'therapist']);
    await addMember(pool, caseIds[2]!, people.supervisor.username, ['supervisor']);
    const patientOf = async (i: number) =>
      (await pool.query<{ user_id: string }>('select user_id from app_public.case_members where case_id = $1 and acts_as_patient', [caseIds[i]])).rows[0]!.user_id;
    // [case, sender, recipients, minutes ago (null: a draft)]: each role written to and writing,
    // a coordinator writing into a case they are no member of, and a draft newer than all.
    const messages: [number, string, string[], number | null][] = [
      [0, await patientOf(0), ['to_therapists'], 50],
      [0, viewers.therapist!.id, ['to_patients'], 40],
      [0, people.interviewer.id, ['to_therapists', 'to_supervisors'], 30],
      [0, people.supporter.id, ['to_supporters', 'to_interviewers'], 20],
      [0, viewers.coordinator!.id, ['to_therapists'], 10],
      [0, viewers.therapist!.id, ['to_patients'], null],
      [2, people.supervisor.id, ['to_therapists'], 25],
      [2, viewers.therapist!.id, ['to_supervisors'], 15],
      [7, viewers.counselor!.id, ['to_patients'], 35],
      [7, await patientOf(7), ['to_counselors'], 5],
      [1, viewers.memberCoordinator!.id, ['to_patients'], 45],
      [3, viewers.coordinator!.id, ['to_patients'], 12],
    ];
    for (const [i, sender, to, minutes] of messages) {
      const flags = ['to_interviewers', 'to_patients', 'to_supervisors', 'to_therapists', 'to_supporters', 'to_counselors'];
      const { rows } = await pool.query<{ id: string }>(
        `insert into app_public.case_messages (case_id, sender_id, body, sent_at, ${flags.join(', ')})
         values ($1, $2, 'text', now() - make_interval(mins => $3), ${flags.map((_, k) => `$${k + 4}`).join(', ')}) returning id`,
        [caseIds[i], sender, minutes === null ? null : minutes, ...flags.map((f) => to.includes(f))],
      );
      if (minutes === null) await pool.query('update app_public.case_messages set sent_at = null where id = $1', [rows[0]!.id]);
      messageIds.push(rows[0]!.id);
    }
    // The therapist has read case 0 up to 35 minutes ago and pinned a message; the patient pinned one too.
    await pool.query(`update app_public.case_members set new_messages_after = now() - interval '35 minutes', favorite_message = $3 where case_id = $1 and user_id = $2`, [
      caseIds[0],
      viewers.therapist!.id,
      messageIds[2],
    ]);
    await pool.query('update app_public.case_members set favorite_message = $2 where case_id = $1 and acts_as_patient', [caseIds[0], messageIds[1]]);
  });

  const readers = () => ({ ...viewers, ...people });

  it('answer every reader as the functions do: new messages and the latest message of every case, also cases built by hand', async () => {
    const pool = t.database.db.pool;
    const cases = JSON.stringify((await pool.query('select row_to_json(c) as c from app_public.cases c')).rows.map((r) => r.c));
    const seen = { counted: 0, latest: 0, noLatest: 0 };
    for (const [name, person] of Object.entries(readers())) {
      const rows = await rowsAs<{ id: string; inlined: (string | null)[]; functions: (string | null)[] }>(person, `select c.id,
                    array[(select v from app_hidden.cases_new_messages_inline(c) v)::text,
                          (select count(*) from app_hidden.cases_new_messages_inline(c))::text,
                          (select m::text from app_hidden.cases_latest_message_inline(c) m),
                          (select count(*) from app_hidden.cases_latest_message_inline(c) m where m.id is not null)::text] as inlined,
                    array[app_public.cases_new_messages(c)::text, '1',
                          (select m::text from app_public.cases_latest_message(c) m where m.id is not null),
                          (select count(*) from app_public.cases_latest_message(c) m where m.id is not null)::text] as functions
               from jsonb_populate_recordset(null::app_public.cases, $1) as c`, [cases]);
      for (const row of rows) {
        expect(row.inlined, `${name} on ${row.id}`).toEqual(row.functions);
        if (Number(row.inlined[0]) > 0) seen.counted++;
        if (row.inlined[2]) seen.latest++;
        else seen.noLatest++;
      }
    }
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });

  it('show the person of a membership as case_members_person does, for every reader, real memberships and rows built by hand', async () => {
    const pool = t.database.db.pool;
    const real = (await pool.query<{ case_id: string; user_id: string }>('select case_id, user_id from app_public.case_members')).rows;
    const users = (await pool.query<{ id: string }>('select id from app_public.users')).rows.map((r) => r.id);
    const byHand = users.flatMap((userId) => [
      { case_id: caseIds[0]!, user_id: userId },
      { case_id: caseIds[7]!, user_id: userId },
      { case_id: '00000000-0000-4000-8000-000000000000', user_id: userId },
      { case_id: caseIds[2]!, user_id: null },
    ]);
    const memberships = JSON.stringify([...real, ...byHand]);
    for (const [name, person] of Object.entries(readers())) {
      const rows = await rowsAs<{ case_id: string; user_id: string; inlined: string | null; rows: string; original: string | null }>(person, `select m.case_id, m.user_id, (select u::text from app_hidden.case_members_person_inline(m) u) as inlined,
                    (select count(*) from app_hidden.case_members_person_inline(m))::text as rows,
                    (select u::text from app_public.case_members_person(m) u where u.id is not null) as original
               from jsonb_populate_recordset(null::app_public.case_members, $1) as m`, [memberships]);
      for (const row of rows) {
        const label = `${name} reading ${row.user_id} in ${row.case_id}`;
        expect(row.inlined, label).toBe(row.original);
        expect(row.rows, label).toBe(row.original === null ? '0' : '1');
      }
      expect(rows.some((r) => r.inlined !== null), name).toBe(true);
      if (!name.toLowerCase().includes('coordinator')) expect(rows.some((r) => r.inlined === null), name).toBe(true);
    }
  });

  it('mark every message unread and favourite as the functions do, for every reader, also messages built by hand', async () => {
    const pool = t.database.db.pool;
    const messages = JSON.stringify((await pool.query('select row_to_json(m) as m from app_public.case_messages m')).rows.map((r) => r.m));
    const seen = { unread: 0, read: 0, favorite: 0 };
    for (const [name, person] of Object.entries(readers())) {
      const rows = await rowsAs<{ id: string; inlined: boolean[]; functions: boolean[] }>(person, `select m.id,
                    array[(select v from app_hidden.case_messages_is_unread_inline(m) v), (select v from app_hidden.case_messages_is_favorite_inline(m) v)] as inlined,
                    array[app_public.case_messages_is_unread(m), app_public.case_messages_is_favorite(m)] as functions
               from jsonb_populate_recordset(null::app_public.case_messages, $1) as m`, [messages]);
      for (const row of rows) {
        expect(row.inlined, `${name} on ${row.id}`).toEqual(row.functions);
        if (row.inlined[0]) seen.unread++;
        else seen.read++;
        if (row.inlined[1]) seen.favorite++;
      }
    }
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });

  it('answers the case list, PagedCases people and a case page with the figures of the functions, for every reader', async () => {
    const LIST = `query { caseList(first: 100) { nodes { id newMessages latestMessage { id sentAt subject } } }
      pagedCases(first: 200) { nodes { id newMessages
        therapistsList(first: 10) { userId person { id username alias } }
        counselorsList(first: 10) { userId person { id username alias } }
        interviewersList(first: 10) { userId person { id username alias } } } } }`;
    const PAGE = `query($id: UUID!) { caseById(id: $id) { id newMessages sentMessagesList(first: 50) { id isUnread isFavorite } } }`;
    const seen = { newMessages: 0, latest: 0, person: 0, unread: 0, favorite: 0 };
    for (const [name, person] of Object.entries(readers())) {
      const list = await t.graphql(LIST, {}, person.token);
      expect(list.errors, name).toBeUndefined();
      type ListNode = { id: string; newMessages: number; latestMessage: { id: string } | null };
      const nodes = list.data.caseList.nodes as ListNode[];
      const expected = await withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
        (
          await sql.query(
            `select c.id, app_public.cases_new_messages(c) as new_messages, (app_public.cases_latest_message(c)).id as latest,
                    (select json_agg(json_build_object('userId', m.user_id, 'person',
                              (select json_build_object('id', u.id, 'username', u.username, 'alias', u.alias) from app_public.case_members_person(m) u where u.id is not null))
                              order by m.created_at, m.user_id)
                       from app_public.case_members m where m.case_id = c.id and (m.acts_as_therapist or m.acts_as_counselor or m.acts_as_interviewer)) as people
               from app_public.cases c`,
          )
        ).rows as { id: string; new_messages: number; latest: string | null; people: { userId: string; person: unknown }[] | null }[],
      );
      const byId = new Map(expected.map((r) => [r.id, r]));
      for (const node of nodes) {
        const row = byId.get(node.id)!;
        expect([node.newMessages, node.latestMessage?.id ?? null], `${name} on ${node.id}`).toEqual([row.new_messages, row.latest]);
        if (node.newMessages > 0) seen.newMessages++;
        if (node.latestMessage) seen.latest++;
      }
      type PagedNode = { id: string; newMessages: number; [list: string]: unknown };
      for (const node of list.data.pagedCases.nodes as PagedNode[]) {
        const row = byId.get(node.id)!;
        expect(node.newMessages, `${name} on ${node.id}`).toBe(row.new_messages);
        const persons = new Map((row.people ?? []).map((p) => [p.userId, p.person]));
        for (const key of ['therapistsList', 'counselorsList', 'interviewersList']) {
          for (const member of node[key] as { userId: string; person: unknown }[]) {
            expect(member.person, `${name} on ${node.id}: ${member.userId}`).toEqual(persons.get(member.userId) ?? null);
            if (member.person) seen.person++;
          }
        }
      }
      for (const caseId of [caseIds[0]!, caseIds[2]!, caseIds[7]!]) {
        const page = await t.graphql(PAGE, { id: caseId }, person.token);
        if (!page.data?.caseById) continue;
        const flags = await withUser(t.database.db.pool, { userId: person.id }, async (sql) =>
          (
            await sql.query<{ id: string; unread: boolean; favorite: boolean }>(
              `select m.id, app_public.case_messages_is_unread(m) as unread, app_public.case_messages_is_favorite(m) as favorite
                 from app_public.case_messages m where m.case_id = $1 and m.sent_at is not null`,
              [caseId],
            )
          ).rows,
        );
        const byMessage = new Map(flags.map((f) => [f.id, f]));
        expect(page.data.caseById.newMessages, `${name} on ${caseId}`).toBe(byId.get(caseId)!.new_messages);
        for (const message of page.data.caseById.sentMessagesList as { id: string; isUnread: boolean; isFavorite: boolean }[]) {
          const f = byMessage.get(message.id)!;
          expect([message.isUnread, message.isFavorite], `${name} on ${message.id}`).toEqual([f.unread, f.favorite]);
          if (message.isUnread) seen.unread++;
          if (message.isFavorite) seen.favorite++;
        }
      }
    }
    for (const [what, n] of Object.entries(seen)) expect(n, what).toBeGreaterThan(0);
  });
});
