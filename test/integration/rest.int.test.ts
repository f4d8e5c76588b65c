/**
 * The REST collections over real HTTP and a real database: every operator against real rows,
 * paging and counting, upserts and deletes, row-level security, bad input, and a standard
 * PostgREST client (postgrest-js) driving the API unchanged.
 *
 * The collections here sit on a throwaway table in a `rest_test` schema, made in this file's
 * own database with policies like the real ones (membership through app_hidden.my_case_ids()),
 * so the layer is tested without depending on any feature's migration.
 */
import type { AddressInfo } from 'node:net';
import { PostgrestClient } from '@supabase/postgrest-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/config';
import { buildApp, type SanadApp } from '../../src/server/app';
import { addMember, createUser } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { HttpError } from '../../src/server/http/errors';
import { defineCollection, type CollectionRegistry } from '../../src/server/rest';
import { apiClient, type ApiResponse, type TestApp } from '../helpers/app';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

const SETUP_SQL = [
  `create schema rest_test`,
  `grant usage on schema rest_test to sanad_user`,
  `create table rest_test.scores (
     id uuid primary key default gen_random_uuid(),
     case_id uuid not null references app_public.cases (id) on delete cascade,
     time_of_measurement text not null default 'pre',
     label text,
     score int check (score between 0 and 100),
     ratio numeric,
     done boolean,
     answers jsonb,
     tags text[],
     measured_on date,
     total int,
     submitter_id uuid references app_public.users (id) on delete set null,
     created_at timestamptz not null default now(),
     unique (case_id, time_of_measurement)
   )`,
  `alter table rest_test.scores enable row level security`,
  `create policy select_member on rest_test.scores for select to sanad_user
     using (case_id in (select app_hidden.my_case_ids()))`,
  `create policy insert_member on rest_test.scores for insert to sanad_user
     with check (case_id in (select app_hidden.my_case_ids()) and submitter_id = (select app_public.current_user_id()))`,
  `create policy update_member on rest_test.scores for update to sanad_user
     using (case_id in (select app_hidden.my_case_ids())) with check (case_id in (select app_hidden.my_case_ids()))`,
  `create policy delete_member on rest_test.scores for delete to sanad_user
     using (case_id in (select app_hidden.my_case_ids()))`,
  `grant select, delete on rest_test.scores to sanad_user`,
  `grant insert (id, case_id, time_of_measurement, label, score, ratio, done, answers, tags, measured_on, total, submitter_id)
     on rest_test.scores to sanad_user`,
  `grant update (case_id, time_of_measurement, label, score, ratio, done, answers, tags, measured_on, total, submitter_id)
     on rest_test.scores to sanad_user`,
];

const COLUMNS = {
  id: 'uuid',
  case_id: 'uuid',
  time_of_measurement: 'text',
  label: 'text',
  score: 'int',
  ratio: 'numeric',
  done: 'bool',
  answers: 'jsonb',
  tags: 'text[]',
  measured_on: 'date',
  total: 'int',
  submitter_id: 'uuid',
  created_at: 'timestamptz',
} as const;

const WRITABLE = ['id', 'case_id', 'time_of_measurement', 'label', 'score', 'ratio', 'done', 'answers', 'tags', 'measured_on'] as const;

/** A questionnaire-like collection: the server sets the submitter and computes the total. */
const scores = defineCollection({
  name: 'scores',
  table: 'rest_test.scores',
  columns: COLUMNS,
  writable: [...WRITABLE],
  conflictKey: ['id'],
  defaultOrder: [{ column: 'created_at' }, { column: 'id' }],
  methods: ['GET', 'POST', 'DELETE'],
  defaults: (ctx) => ({ submitter_id: ctx.identity.userId }),
  beforeWrite(row) {
    if (row.label === 'forbidden') throw new HttpError(422, 'label_forbidden', 'This label is not allowed.');
    if (typeof row.score === 'number') row.total = row.score * 2;
  },
});

const registry: CollectionRegistry = [
  scores,
  // The same rows, merged on the natural key (one measurement per case and time point).
  defineCollection({ ...scores, name: 'measurements', conflictKey: ['case_id', 'time_of_measurement'] }),
  defineCollection({ name: 'scores_readonly', table: 'rest_test.scores', columns: { id: 'uuid', label: 'text' }, methods: ['GET'], maxRows: 2 }),
];

let database: TestDatabase;
let sanad: SanadApp;
let url: string;
let api: TestApp['api'];
type Person = { id: string; caseId?: string; token: string };
let patientA: Person, patientB: Person, therapist: Person;
const rowIds: Record<string, string> = {};

async function person(flags: ('patient' | 'therapist')[]): Promise<Person> {
  const username = `rest_${flags[0]}_${Math.random().toString(36).slice(2, 8)}`;
  const created = await createUser(database.db.pool, { username, email: `${username}@example.org`, password: 'correct horse battery', flags });
  const { encoded } = await withOwner(database.db.pool, (sql) => sanad.tokens.issue(sql, created.id));
  return { ...created, token: encoded };
}

/** Rows made by the owner (no RLS), so reads are tested against known data. */
async function seed(): Promise<void> {
  const rows = [
    ['alpha', patientA, 'pre', 10, 1.5, true, '{"q1":1,"q2":[1,2]}', '{a,b}', '2026-01-10'],
    ['Beta', patientA, 'mid', 20, null, false, '{"q1":2}', '{b,c}', '2026-02-10'],
    ['gamma,delta', patientA, 'post', 30, 3.25, null, null, '{}', null],
    [null, patientA, 'follow-up', null, 0, true, '{"q1":1}', null, '2026-03-01'],
    ['other', patientB, 'pre', 10, 1, true, null, '{a}', null],
  ] as const;
  for (const [label, owner, time, score, ratio, done, answers, tags, measured] of rows) {
    const { rows: inserted } = await database.db.pool.query<{ id: string }>(
      `insert into rest_test.scores (case_id, time_of_measurement, label, score, ratio, done, answers, tags, measured_on, submitter_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id`,
      [owner.caseId, time, label, score, ratio, done, answers, tags, measured, owner.id],
    );
    rowIds[label ?? 'null'] = inserted[0]!.id;
  }
}

beforeAll(async () => {
  database = await createTestDatabase();
  for (const statement of SETUP_SQL) await database.db.pool.query(statement);
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: database.dataDir,
    PUBLIC_URL: 'http://sanad.test',
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing',
    TOKEN_CACHE_SECONDS: '0',
  });
  // The real app, with this file's test collections instead of the product's.
  sanad = await buildApp({ config, db: database.db, serveWebApp: false, collections: registry });
  await sanad.app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(sanad.app.server.address() as AddressInfo).port}`;
  api = apiClient(url);
  patientA = await person(['patient']);
  patientB = await person(['patient']);
  therapist = await person(['therapist']);
  await addMember(database.db.pool, patientA.caseId!, (await usernameOf(therapist.id)) ?? '', ['therapist']);
  await seed();
});

afterAll(async () => {
  await sanad?.close();
  await database?.destroy();
});

async function usernameOf(id: string): Promise<string | undefined> {
  const { rows } = await database.db.pool.query<{ username: string }>('select username from app_public.users where id = $1', [id]);
  return rows[0]?.username;
}


/** Labels of the rows a query returns to the therapist (member of case A), sorted ("null" for null). */
async function labels(query: string, token = therapist.token): Promise<string[]> {
  const response = await api('GET', `/api/scores?select=label&${query}`, { token });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { label: string | null }[]).map((r) => r.label ?? 'null').sort();
}

async function storedCount(where = 'true', values: unknown[] = []): Promise<number> {
  const { rows } = await database.db.pool.query<{ n: number }>(`select count(*)::int as n from rest_test.scores where ${where}`, values);
  return rows[0]!.n;
}

describe('reading with filters', () => {
  it('returns every visible row as a JSON array with PostgREST-typed values', async () => {
    const response = await api('GET', `/api/scores?id=eq.${rowIds.alpha}`, { token: therapist.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-range')).toBe('0-0/*');
    const [row] = response.body;
    expect(row).toMatchObject({
      id: rowIds.alpha,
      case_id: patientA.caseId,
      label: 'alpha',
      score: 10,
      ratio: 1.5,
      done: true,
      answers: { q1: 1, q2: [1, 2] },
      tags: ['a', 'b'],
      measured_on: '2026-01-10',
      submitter_id: patientA.id,
    });
    expect(Object.keys(row)).toEqual(Object.keys(COLUMNS));
    expect(Number.isNaN(Date.parse(row.created_at))).toBe(false);
  });

  it('eq, neq, gt, gte, lt, lte', async () => {
    expect(await labels('label=eq.alpha')).toEqual(['alpha']);
    expect(await labels('score=neq.10')).toEqual(['Beta', 'gamma,delta']);
    expect(await labels('score=gt.10')).toEqual(['Beta', 'gamma,delta']);
    expect(await labels('score=gte.20')).toEqual(['Beta', 'gamma,delta']);
    expect(await labels('score=lt.20')).toEqual(['alpha']);
    expect(await labels('score=lte.20')).toEqual(['Beta', 'alpha']);
    expect(await labels('ratio=gt.1')).toEqual(['alpha', 'gamma,delta']);
    expect(await labels('measured_on=gte.2026-02-01')).toEqual(['Beta', 'null']);
    expect(await labels(`id=eq.${rowIds.Beta!.toUpperCase()}`)).toEqual(['Beta']);
    expect(await labels('done=eq.false')).toEqual(['Beta']);
  });

  it('like and ilike with * as the wildcard; match and imatch', async () => {
    expect(await labels('label=like.*a')).toEqual(['Beta', 'alpha', 'gamma,delta']);
    expect(await labels('label=like.b*')).toEqual([]);
    expect(await labels('label=ilike.b*')).toEqual(['Beta']);
    expect(await labels('label=match.^[ab]')).toEqual(['alpha']);
    expect(await labels('label=imatch.^[ab]')).toEqual(['Beta', 'alpha']);
    expect(await labels('label=like(any).{a*,*delta}')).toEqual(['alpha', 'gamma,delta']);
  });

  it('in with quoted values; is null, true, false, unknown; isdistinct', async () => {
    expect(await labels('label=in.(alpha,"gamma,delta",nothing)')).toEqual(['alpha', 'gamma,delta']);
    expect(await labels('score=in.(10,30)')).toEqual(['alpha', 'gamma,delta']);
    expect(await labels('label=in.()')).toEqual([]);
    expect(await labels('label=is.null')).toEqual(['null']);
    expect(await labels('done=is.true')).toEqual(['alpha', 'null']);
    expect(await labels('done=is.false')).toEqual(['Beta']);
    expect(await labels('done=is.unknown')).toEqual(['gamma,delta']);
    expect(await labels('done=isdistinct.true')).toEqual(['Beta', 'gamma,delta']);
  });

  it('takes quotes, backslashes and semicolons in values as values, never as SQL, and refuses a NUL', async () => {
    const before = await storedCount();
    const sneaky = encodeURIComponent("x'; delete from rest_test.scores; --");
    expect(await labels(`label=eq.${sneaky}`)).toEqual([]);
    expect(await labels(`label=neq.${encodeURIComponent("it's \\ fine")}`)).toEqual(['Beta', 'alpha', 'gamma,delta']);
    expect(await labels(`label=in.(${encodeURIComponent('"a\\"b"')},alpha)`)).toEqual(['alpha']);
    const nul = await api('GET', '/api/scores?label=eq.a%00b', { token: therapist.token });
    expect([nul.status, (nul.body as { code: string }).code]).toEqual([400, '22021']);
    expect(await labels('label=eq.alpha')).toEqual(['alpha']);
    expect(await storedCount()).toBe(before);
  });

  it('not. before any operator', async () => {
    expect(await labels('label=not.eq.alpha')).toEqual(['Beta', 'gamma,delta']);
    expect(await labels('label=not.is.null')).toEqual(['Beta', 'alpha', 'gamma,delta']);
    expect(await labels('score=not.in.(10,20)')).toEqual(['gamma,delta']);
    expect(await labels('label=not.ilike.*A*')).toEqual([]);
  });

  it('containment on arrays and JSON', async () => {
    expect(await labels('tags=cs.{a}')).toEqual(['alpha']);
    expect(await labels('tags=cd.{a,b,c}')).toEqual(['Beta', 'alpha', 'gamma,delta']);
    expect(await labels('tags=ov.{a,c}')).toEqual(['Beta', 'alpha']);
    expect(await labels('answers=cs.{"q1":1}')).toEqual(['alpha', 'null']);
  });

  it('or, and, nested trees and not.or', async () => {
    expect(await labels('or=(label.eq.alpha,score.gte.30)')).toEqual(['alpha', 'gamma,delta']);
    expect(await labels('or=(label.eq.alpha,and(score.gt.15,score.lt.25))')).toEqual(['Beta', 'alpha']);
    expect(await labels('and=(score.gt.5,or(done.is.true,done.is.null))')).toEqual(['alpha', 'gamma,delta']);
    expect(await labels('not.or=(label.is.null,score.lt.25)')).toEqual(['gamma,delta']);
    expect(await labels('or=(label.eq."gamma,delta",label.in.(Beta))&score=gt.25')).toEqual(['gamma,delta']);
  });

  it('orders with nulls first or last, by several columns', async () => {
    const scoresIn = async (order: string) =>
      ((await api('GET', `/api/scores?select=score&order=${order}`, { token: therapist.token })).body as { score: number | null }[]).map((r) => r.score);
    expect(await scoresIn('score.desc.nullslast')).toEqual([30, 20, 10, null]);
    expect(await scoresIn('score.asc.nullsfirst')).toEqual([null, 10, 20, 30]);
    expect(await scoresIn('score.desc')).toEqual([null, 30, 20, 10]);
    expect(await scoresIn('done.desc.nullslast,score.desc.nullsfirst')).toEqual([null, 10, 20, 30]);
  });

  it('pages with limit and offset, counts with Prefer: count=exact, and answers HEAD', async () => {
    const page = await api('GET', '/api/scores?select=score&order=score.asc.nullslast&limit=2&offset=1', { token: therapist.token });
    expect(page.body).toEqual([{ score: 20 }, { score: 30 }]);
    expect(page.headers.get('content-range')).toBe('1-2/*');
    const counted = await api('GET', '/api/scores?select=score&order=score.asc&limit=2', { token: therapist.token, headers: { prefer: 'count=exact' } });
    expect(counted.status).toBe(206);
    expect(counted.headers.get('content-range')).toBe('0-1/4');
    const all = await api('GET', '/api/scores?select=id', { token: therapist.token, headers: { prefer: 'count=exact' } });
    expect([all.status, all.headers.get('content-range')]).toEqual([200, '0-3/4']);
    const ranged = await api('GET', '/api/scores?select=score&order=score.asc', { token: therapist.token, headers: { range: '1-2', 'range-unit': 'items' } });
    expect(ranged.body).toEqual([{ score: 20 }, { score: 30 }]);
    const beyond = await api('GET', '/api/scores?offset=10', { token: therapist.token, headers: { prefer: 'count=exact' } });
    expect([beyond.status, beyond.body.code]).toEqual([416, 'PGRST103']);
    const head = await api('HEAD', '/api/scores?score=gt.10', { token: therapist.token, headers: { prefer: 'count=exact' } });
    expect([head.status, head.headers.get('content-range'), head.body]).toEqual([200, '0-1/2', undefined]);
    expect(await labels('limit=0')).toEqual([]);
  });

  it('caps rows at the collection’s maxRows and exposes only registered columns', async () => {
    const response = await api('GET', '/api/scores_readonly', { token: therapist.token });
    expect(response.body).toHaveLength(2);
    expect(Object.keys(response.body[0]).sort()).toEqual(['id', 'label']);
    const hidden = await api('GET', '/api/scores_readonly?select=score', { token: therapist.token });
    expect([hidden.status, hidden.body.code]).toEqual([400, '42703']);
  });

  it('renames columns with aliases and returns one object for application/vnd.pgrst.object+json', async () => {
    const one = await api('GET', `/api/scores?select=name:label,score&id=eq.${rowIds.alpha}`, { token: therapist.token, headers: { accept: 'application/vnd.pgrst.object+json' } });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('application/vnd.pgrst.object+json; charset=utf-8');
    expect(one.body).toEqual({ name: 'alpha', score: 10 });
    const many = await api('GET', '/api/scores', { token: therapist.token, headers: { accept: 'application/vnd.pgrst.object+json' } });
    expect([many.status, many.body.code, many.body.details]).toEqual([406, 'PGRST116', 'The result contains 4 rows']);
    const stripped = await api('GET', `/api/scores?select=label,ratio&id=eq.${rowIds.Beta}`, { token: therapist.token, headers: { accept: 'application/vnd.pgrst.array+json;nulls=stripped' } });
    expect(stripped.body).toEqual([{ label: 'Beta' }]);
  });
});

describe('row-level security', () => {
  it('shows each person only the rows of their cases', async () => {
    expect(await labels('', patientA.token)).toEqual(['Beta', 'alpha', 'gamma,delta', 'null']);
    expect(await labels('', patientB.token)).toEqual(['other']);
    expect(await labels(`id=eq.${rowIds.other}`, therapist.token)).toEqual([]);
  });

  it('refuses anonymous callers with 401 and a bad token with a PostgREST-shaped 401', async () => {
    const anonymous = await api('GET', '/api/scores');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toMatchObject({ code: '42501', message: 'Please sign in first.', error: 'sign_in_required' });
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const bad = await api('GET', '/api/scores', { token: 'not-a-token' });
    expect(bad.status).toBe(401);
    expect(Object.keys(bad.body).sort()).toEqual(['code', 'details', 'error', 'hint', 'message']);
  });

  it('refuses writing a row into a case one is not a member of; nothing is stored', async () => {
    const before = await storedCount();
    const response = await api('POST', '/api/scores', {
      token: patientA.token,
      body: { case_id: patientB.caseId, time_of_measurement: 'intruder', score: 5 },
      headers: { prefer: 'return=representation' },
    });
    expect(response.status).toBe(403);
    // Issue 27: the refusal's code and sentence, never PostgreSQL's text naming the table.
    expect(response.body).toEqual({ code: '42501', message: 'You are not allowed to do this.', details: null, hint: null, error: 'forbidden' });
    expect(await storedCount()).toBe(before);
  });

  it('refuses merging into another case’s row by its id; the row is unchanged', async () => {
    const response = await api('POST', '/api/scores?on_conflict=id', {
      token: patientA.token,
      body: { id: rowIds.other, case_id: patientA.caseId, time_of_measurement: 'stolen', label: 'mine now' },
      headers: { prefer: 'resolution=merge-duplicates,return=representation' },
    });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('42501');
    expect(await storedCount('id = $1 and label = $2 and case_id = $3', [rowIds.other, 'other', patientB.caseId])).toBe(1);
  });

  it('deletes nothing outside one’s cases', async () => {
    const response = await api('DELETE', `/api/scores?id=eq.${rowIds.other}`, { token: patientA.token });
    expect(response.status).toBe(204);
    expect(await storedCount('id = $1', [rowIds.other])).toBe(1);
  });
});

describe('writing', () => {
  it('inserts, then merges the same key into exactly one row, with server-computed and kept fields', async () => {
    const id = crypto.randomUUID();
    const prefer = { prefer: 'resolution=merge-duplicates, return=representation' };
    const first = await api('POST', '/api/scores', { token: patientA.token, body: { id, case_id: patientA.caseId, time_of_measurement: 't1', score: 4, answers: { q1: 4 } }, headers: prefer });
    expect(first.status).toBe(201);
    expect(first.body).toHaveLength(1);
    expect(first.body[0]).toMatchObject({ id, score: 4, total: 8, answers: { q1: 4 }, submitter_id: patientA.id, label: null });
    // The therapist corrects the score: the total follows, the submitter stays the patient.
    const second = await api('POST', '/api/scores', { token: therapist.token, body: [{ id, case_id: patientA.caseId, time_of_measurement: 't1', score: 7, label: 'corrected' }], headers: prefer });
    expect(second.status).toBe(201);
    expect(second.body).toHaveLength(1);
    expect(second.body[0]).toMatchObject({ id, score: 7, total: 14, label: 'corrected', answers: { q1: 4 }, submitter_id: patientA.id });
    expect(await storedCount('id = $1', [id])).toBe(1);
  });

  it('merges on a composite natural key', async () => {
    const prefer = { prefer: 'resolution=merge-duplicates,return=representation' };
    const first = await api('POST', '/api/measurements?on_conflict=case_id,time_of_measurement', { token: patientA.token, body: { case_id: patientA.caseId, time_of_measurement: 'week-4', score: 1 }, headers: prefer });
    const second = await api('POST', '/api/measurements?on_conflict=time_of_measurement,case_id', { token: patientA.token, body: { case_id: patientA.caseId, time_of_measurement: 'week-4', score: 2 }, headers: prefer });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toHaveLength(1);
    expect(second.body[0].id).toBe(first.body[0].id);
    expect(second.body[0].score).toBe(2);
    const wrongKey = await api('POST', '/api/measurements?on_conflict=id', { token: patientA.token, body: { case_id: patientA.caseId, time_of_measurement: 'week-4', score: 3 }, headers: prefer });
    expect([wrongKey.status, wrongKey.body.code]).toEqual([400, '42P10']);
    expect(await storedCount('case_id = $1 and time_of_measurement = $2 and score = 2', [patientA.caseId, 'week-4'])).toBe(1);
  });

  it('answers 201 without a body for return=minimal, and 409 for a duplicate without merge', async () => {
    const id = crypto.randomUUID();
    const created = await api('POST', '/api/scores', { token: patientA.token, body: { id, case_id: patientA.caseId, time_of_measurement: 'minimal' } });
    expect([created.status, created.body]).toEqual([201, undefined]);
    const again = await api('POST', '/api/scores', { token: patientA.token, body: { id, case_id: patientA.caseId, time_of_measurement: 'minimal-2' } });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: '23505', message: 'This exists already.', error: 'duplicate' });
    const ignored = await api('POST', '/api/scores', { token: patientA.token, body: { id, case_id: patientA.caseId, time_of_measurement: 'minimal-3' }, headers: { prefer: 'resolution=ignore-duplicates,return=representation' } });
    expect([ignored.status, ignored.body]).toEqual([201, []]);
    expect(await storedCount('id = $1 and time_of_measurement = $2', [id, 'minimal'])).toBe(1);
  });

  it('inserts several rows at once, and returns them in one array', async () => {
    const response = await api('POST', '/api/scores?select=time_of_measurement,total', {
      token: patientA.token,
      body: [
        { case_id: patientA.caseId, time_of_measurement: 'bulk-1', score: 1 },
        { case_id: patientA.caseId, time_of_measurement: 'bulk-2' },
      ],
      headers: { prefer: 'return=representation' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual([
      { time_of_measurement: 'bulk-1', total: 2 },
      { time_of_measurement: 'bulk-2', total: null },
    ]);
  });

  it('deletes by id: 204, or 200 with the deleted rows', async () => {
    const { rows } = await database.db.pool.query<{ id: string }>(
      `insert into rest_test.scores (case_id, time_of_measurement, label) values ($1, 'del-1', 'd1'), ($1, 'del-2', 'd2') returning id`,
      [patientA.caseId],
    );
    const [one, two] = rows.map((r) => r.id);
    const plain = await api('DELETE', `/api/scores?id=eq.${one}`, { token: therapist.token });
    expect([plain.status, plain.body]).toEqual([204, undefined]);
    const returned = await api('DELETE', `/api/scores?id=eq.${two}&select=label`, { token: therapist.token, headers: { prefer: 'return=representation' } });
    expect([returned.status, returned.body]).toEqual([200, [{ label: 'd2' }]]);
    expect(await storedCount('id = any($1)', [[one, two]])).toBe(0);
  });

  it('refuses a DELETE without filters', async () => {
    const before = await storedCount();
    const response = await api('DELETE', '/api/scores', { token: therapist.token });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ code: '21000', message: 'DELETE requires a WHERE clause', details: null, hint: 'Add a filter such as id=eq.<id>.', error: '21000' });
    expect(await storedCount()).toBe(before);
  });

  it('rolls back a singular write that touched several rows', async () => {
    const before = await storedCount();
    const response = await api('POST', '/api/scores', {
      token: patientA.token,
      body: [
        { case_id: patientA.caseId, time_of_measurement: 'single-1' },
        { case_id: patientA.caseId, time_of_measurement: 'single-2' },
      ],
      headers: { prefer: 'return=representation', accept: 'application/vnd.pgrst.object+json' },
    });
    expect([response.status, response.body.code]).toEqual([406, 'PGRST116']);
    expect(await storedCount()).toBe(before);
  });
});

describe('bad input: a 4xx with {code, message}, nothing stored', () => {
  async function expectRefused(response: ApiResponse, status: number, code: string, message?: string | RegExp) {
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(Object.keys(response.body).sort()).toEqual(['code', 'details', 'error', 'hint', 'message']);
    expect(response.body.code).toBe(code);
    if (message) expect(response.body.message).toMatch(message);
  }

  it('an unknown collection, with PostgREST’s 404; other /api routes are untouched', async () => {
    await expectRefused(await api('GET', '/api/nothing_here', { token: therapist.token }), 404, 'PGRST205', "Could not find the table 'nothing_here' in the schema cache");
    expect((await api('GET', '/api/status')).status).toBe(200);
  });

  it('unknown columns, operators and malformed filters, orders and selects', async () => {
    const token = therapist.token;
    await expectRefused(await api('GET', '/api/scores?secret=eq.1', { token }), 400, '42703', 'column scores.secret does not exist');
    await expectRefused(await api('GET', '/api/scores?label=approx.1', { token }), 400, 'PGRST100', '"failed to parse filter (approx.1)" (line 1, column 1)');
    await expectRefused(await api('GET', '/api/scores?label=alpha', { token }), 400, 'PGRST100');
    await expectRefused(await api('GET', '/api/scores?or=(label.eq.alpha', { token }), 400, 'PGRST100');
    await expectRefused(await api('GET', '/api/scores?order=score.sideways', { token }), 400, 'PGRST100');
    await expectRefused(await api('GET', '/api/scores?select=label,cases(*)', { token }), 400, 'PGRST100');
    await expectRefused(await api('GET', '/api/scores?limit=many', { token }), 400, 'PGRST100');
    await expectRefused(await api('GET', '/api/scores?label=is.true', { token }), 400, 'PGRST100');
  });

  it('values that do not fit the column type', async () => {
    const token = therapist.token;
    await expectRefused(await api('GET', '/api/scores?id=eq.123', { token }), 400, '22P02', 'invalid input syntax for type uuid: "123"');
    await expectRefused(await api('GET', '/api/scores?score=gt.ten', { token }), 400, '22P02');
    await expectRefused(await api('GET', '/api/scores?measured_on=eq.yesterday-ish', { token }), 400, '22007');
    await expectRefused(await api('GET', '/api/scores?tags=cs.{unclosed', { token }), 400, '22P02');
  });

  it('read-only and unknown columns in a body, values of the wrong type, constraint violations', async () => {
    const before = await storedCount();
    const token = patientA.token;
    const post = (body: unknown) => api('POST', '/api/scores', { token, body });
    await expectRefused(await post({ case_id: patientA.caseId, total: 99 }), 400, 'PGRST204', "The 'total' column of 'scores' cannot be written");
    await expectRefused(await post({ case_id: patientA.caseId, submitter_id: therapist.id }), 400, 'PGRST204');
    await expectRefused(await post({ case_id: patientA.caseId, shoe_size: 42 }), 400, 'PGRST204', "Could not find the 'shoe_size' column of 'scores' in the schema cache");
    await expectRefused(await post({ case_id: 'not-a-uuid' }), 400, '22P02');
    await expectRefused(await post({ case_id: patientA.caseId, score: 'high' }), 400, '22P02');
    await expectRefused(await post({ case_id: patientA.caseId, time_of_measurement: 'c1', score: 500 }), 400, '23514');
    await expectRefused(await post({ case_id: patientA.caseId, time_of_measurement: null }), 400, '23502');
    await expectRefused(await post({ case_id: patientA.caseId, measured_on: 'someday' }), 400, '22007');
    await expectRefused(await post({ case_id: patientA.caseId, label: 'forbidden' }), 422, 'label_forbidden', 'This label is not allowed.');
    await expectRefused(await post('just text'), 400, 'PGRST102');
    await expectRefused(await api('POST', '/api/scores', { token, rawBody: '{"case_id":' }), 400, 'PGRST102', 'Empty or invalid json');
    await expectRefused(await api('POST', '/api/scores', { token, rawBody: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'PGRST107');
    await expectRefused(await api('POST', '/api/scores_readonly', { token, body: { label: 'x' } }), 405, 'PGRST117');
    await expectRefused(await api('POST', '/api/scores?label=eq.x', { token, body: { case_id: patientA.caseId } }), 400, 'PGRST100');
    await expectRefused(await api('PATCH', `/api/scores?id=eq.${rowIds.alpha}`, { token, body: { label: 'x' } }), 405, 'PGRST117');
    await expectRefused(await api('GET', '/api/scores', { token, headers: { accept: 'text/csv' } }), 406, 'PGRST107');
    expect(await storedCount()).toBe(before);
  });
});

describe('a standard PostgREST client (postgrest-js), unchanged', () => {
  const client = (token: string) => new PostgrestClient(`${url}/api`, { headers: { Authorization: `Bearer ${token}` } });

  it('selects with filters, order and limit', async () => {
    const { data, error, status } = await client(therapist.token).from('scores').select('*').gte('score', 10).order('score', { ascending: false, nullsFirst: false }).limit(2);
    expect(error).toBeNull();
    expect(status).toBe(200);
    expect(data?.map((r) => r.label)).toEqual(['gamma,delta', 'Beta']);
  });

  it('uses in, is, not, or, ilike, count and single', async () => {
    const db = client(therapist.token);
    // Only the seeded rows: the writing tests above added more to case A.
    const seeded = () => db.from('scores').select('label').in('id', [rowIds.alpha, rowIds.Beta, rowIds['gamma,delta'], rowIds.null] as string[]);
    const listed = await db.from('scores').select('label').in('label', ['alpha', 'gamma,delta']);
    expect(listed.data?.map((r) => r.label).sort()).toEqual(['alpha', 'gamma,delta']);
    const nulls = await seeded().is('label', null);
    expect(nulls.data).toEqual([{ label: null }]);
    const notNull = await db
      .from('scores')
      .select('label', { count: 'exact' })
      .in('id', [rowIds.alpha, rowIds.Beta, rowIds['gamma,delta'], rowIds.null] as string[])
      .not('score', 'is', null)
      .or('label.ilike.*a*,score.gt.25');
    expect(notNull.count).toBe(3);
    const single = await db.from('scores').select('label,score').eq('id', rowIds.alpha!).single();
    expect(single.data).toEqual({ label: 'alpha', score: 10 });
    const none = await db.from('scores').select('label').eq('label', 'nobody').maybeSingle();
    expect([none.data, none.error]).toEqual([null, null]);
    const head = await db.from('scores').select('*', { count: 'exact', head: true }).eq('done', true).in('id', [rowIds.alpha, rowIds.null] as string[]);
    expect(head.count).toBe(2);
  });

  it('honours handling=strict with max-affected: a DELETE over the limit fails and deletes nothing', async () => {
    // postgrest-js types maxAffected() for PostgREST 13 servers only; it sends the same headers to ours.
    const limited = <T,>(builder: T, rows: number): T => (builder as unknown as { maxAffected(rows: number): T }).maxAffected(rows);
    const db = client(patientA.token);
    const ids = [crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, id] of ids.entries()) expect((await db.from('scores').insert({ id, case_id: patientA.caseId, time_of_measurement: `max-affected-${i}`, score: 1 })).error).toBeNull();
    const over = await limited(db.from('scores').delete().like('time_of_measurement', 'max-affected-*'), 1);
    expect(over.status).toBe(400);
    expect(over.error?.code).toBe('PGRST124');
    expect((await db.from('scores').select('id').like('time_of_measurement', 'max-affected-*')).data).toHaveLength(2);
    const zero = await limited(db.from('scores').delete().eq('id', ids[0]!), 0);
    expect(zero.error?.code).toBe('PGRST124');
    const one = await limited(db.from('scores').delete().eq('id', ids[0]!), 1).select('id');
    expect([one.status, one.data]).toEqual([200, [{ id: ids[0] }]]);
    // Preference-Applied names what was honoured; strict handling refuses a preference it does not know.
    const raw = await fetch(`${url}/api/scores?id=eq.${ids[1]}`, { method: 'DELETE', headers: { authorization: `Bearer ${patientA.token}`, prefer: 'return=representation, handling=strict, max-affected=5' } });
    expect(raw.status).toBe(200);
    expect(raw.headers.get('preference-applied')).toBe('return=representation, handling=strict, max-affected=5');
    const strict = await fetch(`${url}/api/scores?id=eq.${ids[1]}`, { method: 'DELETE', headers: { authorization: `Bearer ${patientA.token}`, prefer: 'handling=strict, return=everything' } });
    expect(strict.status).toBe(400);
    expect(await strict.json()).toMatchObject({ code: 'PGRST122', details: 'Invalid preferences: return=everything' });
    // Another case's rows stay out of reach whatever the preferences.
    const other = await limited(client(patientB.token).from('scores').delete().like('time_of_measurement', 'max-affected-*'), 5).select('id');
    expect([other.error, other.data]).toEqual([null, []]);
  });

  it('upserts with onConflict and select, then deletes', async () => {
    const db = client(patientA.token);
    const id = crypto.randomUUID();
    const row = { id, case_id: patientA.caseId, time_of_measurement: 'js-client', score: 3 };
    const inserted = await db.from('scores').upsert(row, { onConflict: 'id' }).select();
    expect(inserted.error).toBeNull();
    expect(inserted.status).toBe(201);
    expect(inserted.data).toHaveLength(1);
    expect(inserted.data?.[0]).toMatchObject({ id, total: 6, submitter_id: patientA.id });
    const merged = await db.from('scores').upsert({ ...row, score: 5 }, { onConflict: 'id' }).select('id,score,total');
    expect(merged.data).toEqual([{ id, score: 5, total: 10 }]);
    const bulk = await db.from('scores').upsert([{ ...row, label: 'bulk' }], { onConflict: 'id' }).select('label,score');
    expect(bulk.data).toEqual([{ label: 'bulk', score: 3 }]);
    const plainInsert = await db.from('scores').insert({ case_id: patientA.caseId, time_of_measurement: 'js-insert' });
    expect([plainInsert.status, plainInsert.error]).toEqual([201, null]);
    const deleted = await db.from('scores').delete().eq('id', id);
    expect([deleted.status, deleted.error]).toEqual([204, null]);
    expect(await storedCount('id = $1', [id])).toBe(0);
  });

  it('gets PostgREST-shaped errors', async () => {
    const db = client(patientA.token);
    const unknown = await db.from('scores').select('secret');
    expect(unknown.error).toMatchObject({ code: '42703', message: 'column scores.secret does not exist' });
    const denied = await db.from('scores').insert({ case_id: patientB.caseId, time_of_measurement: 'js-denied' }).select();
    expect(denied.status).toBe(403);
    expect(denied.error?.code).toBe('42501');
    const missing = await db.from('nowhere').select('*');
    expect([missing.status, missing.error?.code]).toEqual([404, 'PGRST205']);
  });
});
