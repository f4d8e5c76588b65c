/**
 * The case lists read one page (migration 0080): case_list has a branch per kind of caller,
 * each in its own order, instead of one sort over all listed cases. The answers must be those
 * of the list before 0080 for every caller (a coordinator who is a member of no case, one who
 * is a member of some, a therapist, a patient), search (none, blank, by name, by short id, by a
 * LIKE wildcard, no match), stage (none, one, anonymization, unknown) and page (limit, offset),
 * compared row by row and in order with 0032's case_list, recreated here from its migration
 * under another name. Ties of created_at are ordered by id; PagedCases and ShortPagedCases
 * (pagedCases with filterUnassigned) page the same rows through GraphQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { MIGRATIONS_DIR } from '../../src/server/db/migrate';
import { withUser } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
const viewers: Record<string, Person> = {};
const caseIds: string[] = [];

/** 0032's case_list as app_hidden.case_list_0032, for comparison: the text of the migration itself. */
function caseListOf0032(): string {
  const migration = fs.readFileSync(path.join(MIGRATIONS_DIR, '0032-case-inbox.sql'), 'utf8');
  const start = migration.indexOf('create or replace function app_public.case_list(');
  const end = migration.indexOf('$$;', start) + 3;
  expect(start).toBeGreaterThan(0);
  return migration
    .slice(start, end)
    .replace('app_public.case_list(', 'app_hidden.case_list_0032(')
    .replaceAll('case_list.', 'case_list_0032.');
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
  await pool.query(caseListOf0032());
  await pool.query('grant execute on function app_hidden.case_list_0032(text, text) to sanad_user');
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

async function ids(person: Person, text: string, values: unknown[]): Promise<string[]> {
  return withUser(t.database.db.pool, { userId: person.id }, async (sql) => (await sql.query<{ id: string }>(text, values)).rows.map((r) => r.id));
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
