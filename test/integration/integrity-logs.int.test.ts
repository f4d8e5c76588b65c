/**
 * Issue 30, item 1: the access log and the account log. A read of a case by each role lands in
 * the access log exactly once per request and kind (GraphQL, REST, workflow), a patient's read
 * of their own case does not; no role (the owner included) can change or delete a log row;
 * account events are logged by the users trigger and the sign-in code; the new reads answer by
 * role (coordinators: a case's access history; the patient: who read their record, by name).
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
let pool: pg.Pool;
let people: Record<CastMember, Person>;
let caseA: string;
let caseB: string;

beforeAll(async () => {
  t = await startTestApp();
  pool = t.database.db.pool;
  ({ people, caseA, caseB } = await castOfRoles(t, { therapist: { alias: 'Dr. Salma' } }));
  const stored = await t.api('POST', '/api/gad7', { token: people.patient.token, body: { case_id: caseA, time_of_measurement: 'pre', item1: 1 } });
  expect(stored.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

interface LogRow {
  record_kind: string;
  api: string;
  case_ids: string[];
}

async function readsBy(person: Person, since: Date): Promise<LogRow[]> {
  const { rows } = await pool.query<LogRow>(
    'select record_kind, api, case_ids::text[] as case_ids from app_public.access_log where reader_id = $1 and at >= $2 order by id',
    [person.id, since],
  );
  return rows;
}

const CASE_QUERY = `query($id: UUID!) { caseById(id: $id) { id stage caseMembersByCaseId { nodes { id actsAsTherapist } } } }`;
const READERS: CastMember[] = ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator'];

describe('the access log', () => {
  it.each(READERS)('a GraphQL read of case A by the %s lands once per kind of record', async (role) => {
    const since = new Date();
    const answer = await t.graphql(CASE_QUERY, { id: caseA }, people[role].token);
    expect(answer.errors).toBeUndefined();
    expect(answer.data.caseById.id).toBe(caseA);
    const rows = await readsBy(people[role], since);
    expect(rows).toEqual([
      { record_kind: 'case', api: 'graphql', case_ids: [caseA] },
      { record_kind: 'members', api: 'graphql', case_ids: [caseA] },
    ]);
  });

  it('a read that returns no case record is not logged', async () => {
    const since = new Date();
    const answer = await t.graphql(CASE_QUERY, { id: caseA }, people.outsider.token);
    expect(answer.data.caseById).toBeNull();
    expect(await readsBy(people.outsider, since)).toEqual([]);
  });

  it("the patient reading their own case is no staff read and is not logged", async () => {
    const since = new Date();
    const answer = await t.graphql(CASE_QUERY, { id: caseA }, people.patient.token);
    expect(answer.data.caseById.id).toBe(caseA);
    expect(await readsBy(people.patient, since)).toEqual([]);
  });

  it.each(READERS)('a REST read by the %s names the cases of its rows, even when its select leaves case_id out', async (role) => {
    const since = new Date();
    const response = await t.api('GET', '/api/gad7?select=id,item1', { token: people[role].token });
    expect(response.status).toBe(200);
    expect(response.body).toHaveLength(1);
    expect(await readsBy(people[role], since)).toEqual([{ record_kind: 'questionnaires', api: 'rest', case_ids: [caseA] }]);
  });

  it('a REST read that returns no row is not logged', async () => {
    const since = new Date();
    const response = await t.api('GET', '/api/gad7', { token: people.otherTherapist.token });
    expect(response.body).toEqual([]);
    expect(await readsBy(people.otherTherapist, since)).toEqual([]);
  });

  it('a workflow read by a coordinator is logged with the cases its tasks belong to', async () => {
    await t.sanad.workflow.tick();
    const since = new Date();
    const response = await t.api('GET', `/api/workflow/rest/process-instance?caseId=${caseA}`, { token: people.coordinator.token });
    expect(response.status).toBe(200);
    const rows = await readsBy(people.coordinator, since);
    if ((response.body as unknown[]).length > 0) expect(rows).toEqual([{ record_kind: 'tasks', api: 'workflow', case_ids: [caseA] }]);
    else expect(rows).toEqual([]);
  });

  it('a research export is a read of every case it holds', async () => {
    const since = new Date();
    const response = await t.api('GET', '/api/export/gad7.csv', { token: people.coordinator.token });
    expect(response.status).toBe(200);
    expect(await readsBy(people.coordinator, since)).toEqual([{ record_kind: 'questionnaires', api: 'export', case_ids: [caseA] }]);
  });

  it('rows land in the monthly partition, not the default one', async () => {
    const { rows } = await pool.query<{ partition: string }>(
      `select tableoid::regclass::text as partition from app_public.access_log where reader_id = $1 limit 1`,
      [people.therapist.id],
    );
    expect(rows[0]!.partition).toMatch(/^app_private\.access_log_y\d{4}m\d{2}$/);
  });
});

describe('the logs are append-only for every role', () => {
  const attempts = [
    'update app_public.access_log set record_kind = $$case$$',
    'delete from app_public.access_log',
    'update app_public.account_log set event = $$sign_in$$',
    'delete from app_public.account_log',
    'truncate app_public.access_log',
    'truncate app_public.account_log',
  ];
  const count = async () => {
    const { rows } = await pool.query<{ a: string; b: string }>('select (select count(*) from app_public.access_log) as a, (select count(*) from app_public.account_log) as b');
    return rows[0];
  };

  it.each(['sanad_user', 'sanad_scorer', 'sanad_anonymous', 'owner'])('as %s, no row can be changed or deleted', async (role) => {
    const before = await count();
    for (const statement of attempts) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        if (role !== 'owner') await client.query(`set local role ${role}; select set_config('jwt.claims.user_id', '${people.coordinator.id}', true)`);
        await expect(client.query(statement)).rejects.toMatchObject({ code: '42501' });
      } finally {
        await client.query('rollback');
        client.release();
      }
    }
    // A partition cannot be emptied behind the parent's back either.
    const { rows } = await pool.query<{ p: string }>(`select tableoid::regclass::text as p from app_public.access_log limit 1`);
    await expect(pool.query(`truncate ${rows[0]!.p}`)).rejects.toMatchObject({ code: '42501' });
    expect(await count()).toEqual(before);
  });

  it('request roles cannot insert log rows', async () => {
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(`set local role sanad_user; select set_config('jwt.claims.user_id', '${people.coordinator.id}', true)`);
      await expect(
        client.query(`insert into app_public.access_log (reader_id, record_kind, api, case_ids) values ($1, 'case', 'rest', '{}')`, [people.coordinator.id]),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe('the account log', () => {
  const events = async (userId: string) =>
    (await pool.query<{ event: string; actor_id: string | null; detail: Record<string, unknown> }>('select event, actor_id, detail from app_public.account_log where user_id = $1 order by id', [userId])).rows;

  it('logs creation, sign-in, failed sign-in, sign-out and password change', async () => {
    const person = await t.user({ flags: ['therapist'] });
    const wrong = await t.api('POST', '/api/auth/tokens', { body: { username: person.username, password: 'not the password at all' } });
    expect(wrong.status).toBe(401);
    const changed = await t.api('PUT', '/api/auth/password', { token: person.token, body: { currentPassword: person.password, newPassword: 'a new long passphrase 42' } });
    expect([200, 204]).toContain(changed.status);
    await t.api('DELETE', '/api/auth/tokens/current', { token: person.token });
    const logged = (await events(person.id)).map((e) => e.event);
    expect(logged.slice(0, 4)).toEqual(['created', 'sign_in', 'sign_in_failed', 'password_changed']);
    expect((await events(person.id))[0]!.detail).toEqual({ flags: ['is_therapist_account'], system_role: 'USER' });
  });

  it('logs a failed sign-in with an unknown name without naming anyone', async () => {
    const { rows: before } = await pool.query(`select count(*)::int as n from app_public.account_log where user_id is null and event = 'sign_in_failed'`);
    await t.api('POST', '/api/auth/tokens', { body: { username: 'nobody-at-all', password: 'whatever it is 1' } });
    const { rows: after } = await pool.query(`select count(*)::int as n, max(address) as address from app_public.account_log where user_id is null and event = 'sign_in_failed'`);
    expect(after[0].n).toBe(before[0].n + 1);
  });

  it('logs any change of an account flag, whoever makes it, with before and after', async () => {
    const person = await t.user({ flags: ['supporter'] });
    const client = await pool.connect();
    try {
      await client.query('begin');
      await client.query(`select set_config('jwt.claims.user_id', '${people.coordinator.id}', true)`);
      await client.query('update app_public.users set is_therapist_account = true where id = $1', [person.id]);
      await client.query('commit');
    } finally {
      client.release();
    }
    const flagged = (await events(person.id)).find((e) => e.event === 'flags_changed');
    expect(flagged).toMatchObject({ actor_id: people.coordinator.id, detail: { is_therapist_account: { before: false, after: true } } });
  });
});

describe('reading the access history', () => {
  it('only coordinators read a case\'s access history', async () => {
    for (const role of ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider', 'otherPatient', 'otherTherapist'] as CastMember[]) {
      const response = await t.api('GET', `/api/integrity/cases/${caseA}/access`, { token: people[role].token });
      expect(response.status, role).toBe(403);
    }
    const anonymous = await t.api('GET', `/api/integrity/cases/${caseA}/access`);
    expect(anonymous.status).toBe(401);
    const response = await t.api('GET', `/api/integrity/cases/${caseA}/access`, { token: people.coordinator.token });
    expect(response.status).toBe(200);
    const therapistRows = response.body.rows.filter((r: { readerName: string }) => r.readerName === 'Dr. Salma');
    expect(therapistRows).toContainEqual(expect.objectContaining({ readerRoles: ['therapist'], api: 'graphql', recordKind: 'case', reads: 1 }));
    expect(therapistRows).toContainEqual(expect.objectContaining({ readerRoles: ['therapist'], api: 'rest', recordKind: 'questionnaires', reads: 1 }));
    const other = await t.api('GET', `/api/integrity/cases/${caseB}/access`, { token: people.coordinator.token });
    expect(other.body.rows.some((r: { readerName: string }) => r.readerName === 'Dr. Salma')).toBe(false);
  });

  it('the patient sees who on the care team opened their record, by name and role, without ids', async () => {
    const response = await t.api('GET', '/api/integrity/my-record-readers', { token: people.patient.token });
    expect(response.status).toBe(200);
    const text = JSON.stringify(response.body);
    for (const person of Object.values(people)) expect(text).not.toContain(person.id);
    const names = response.body.rows.map((r: { readerName: string }) => r.readerName);
    expect(names).toContain('Dr. Salma');
    expect(names).toContain(people.coordinator.username);
    const other = await t.api('GET', '/api/integrity/my-record-readers', { token: people.otherPatient.token });
    expect(other.body.rows.map((r: { readerName: string }) => r.readerName)).not.toContain('Dr. Salma');
  });
});
