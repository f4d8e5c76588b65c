/**
 * The POST of a whole questionnaire record as one message (routes.ts writeInOneMessage, its
 * statements from buildPlannedUpsert) and the measurement completion it calls (migration 0110):
 * a statement that fails after the upsert leaves nothing behind and the pooled connection clean;
 * concurrent POSTs of one record leave one record whose scores are those of its stored answers;
 * the completion, now one static statement over every collection, answers for each collection
 * from that collection's own records; a record's safety signal is raised once however often
 * it is saved (migration 0111).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUMENT_CODES, PHQ9, score } from '../../src/domain/instruments';
import { queryOnceAsUser, preparedStatementName } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let caseId: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const CALM = { item1: 0, item2: 1, item3: 0, item4: 1, item5: 0, item6: 0, item7: 1, item8: 0, item9: 0, item10: 'not_difficult' };

beforeAll(async () => {
  // PHQ-9 alone is due before treatment, so that one whole record completes that time.
  t = await startTestApp({ MEASUREMENTS_PRE: 'phq9' });
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
});
afterAll(async () => {
  await t?.close();
});

function post(body: unknown) {
  return t.api('POST', '/api/phq9', { body, token: patient.token, headers: UPSERT });
}

async function count(sql: string, values: unknown[]): Promise<number> {
  return (await t.database.db.pool.query<{ n: number }>(sql, values)).rows[0]!.n;
}

describe('POST of a whole record in one message', () => {
  it('leaves nothing behind when a statement after the upsert fails, and the connection serves the next request', async () => {
    const pool = t.database.db.pool;
    // A real fault after the upsert: the completion's insert is refused by a trigger.
    await pool.query(`create function public.qpost_fail() returns trigger language plpgsql as $$ begin raise exception 'completion refused'; end $$`);
    await pool.query('create trigger qpost_fail before insert on app_private.measurement_completions for each row execute function public.qpost_fail()');
    try {
      const refused = await post({ case_id: caseId, time_of_measurement: 'pre', ...CALM });
      expect(refused.status, JSON.stringify(refused.body)).toBeGreaterThanOrEqual(400);
      expect(refused.status).toBeLessThan(600);
      expect(await count('select count(*)::int as n from app_public.phq9 where case_id = $1', [caseId])).toBe(0);
      expect(await count("select count(*)::int as n from app_public.audit_log where table_name = 'phq9' and case_id = $1", [caseId])).toBe(0);
    } finally {
      await pool.query('drop trigger qpost_fail on app_private.measurement_completions');
      await pool.query('drop function public.qpost_fail()');
    }
    // The same request again, now that nothing refuses it: stored, scored, completed once.
    for (let i = 0; i < 3; i++) {
      const response = await post({ case_id: caseId, time_of_measurement: 'pre', ...CALM });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    }
    const { rows } = await pool.query('select total, complete from app_public.phq9 where case_id = $1 and time_of_measurement = $2', [caseId, 'pre']);
    expect(rows).toHaveLength(1);
    expect(Number(rows[0].total)).toBe(score(PHQ9, CALM).total);
    expect(await count('select count(*)::int as n from app_private.measurement_completions where case_id = $1', [caseId])).toBe(1);
    // One audit row: the first write; the same answers again change nothing and are not audited.
    expect(await count("select count(*)::int as n from app_public.audit_log where table_name = 'phq9' and case_id = $1", [caseId])).toBe(1);
  });

  it('keeps one record, scored from its own answers, when the same record is posted concurrently', async () => {
    const bodies = Array.from({ length: 8 }, (_, i) => ({ ...CALM, item1: i % 4, item3: Math.floor(i / 4), item9: i % 2, item10: 'somewhat' }));
    const responses = await Promise.all(bodies.map((answers) => post({ case_id: caseId, time_of_measurement: 'fu2', ...answers })));
    for (const response of responses) expect(response.status, JSON.stringify(response.body)).toBe(201);
    const { rows } = await t.database.db.pool.query('select * from app_public.phq9 where case_id = $1 and time_of_measurement = $2', [caseId, 'fu2']);
    expect(rows).toHaveLength(1);
    const stored = rows[0];
    const answers = Object.fromEntries(PHQ9.items.map((item) => [item.id, stored[item.id]]));
    const expected = score(PHQ9, answers);
    expect(Number(stored.total)).toBe(expected.total);
    expect(stored).toMatchObject({ band: expected.band, flags: expected.flags, complete: true });
    const writes = await t.database.db.pool.query<{ operation: string }>('select operation from app_public.audit_log where record_id = $1 order by id', [stored.id]);
    // Eight different bodies: one insert, then seven updates, each one write (no second write of the scores).
    expect(writes.rows.map((r) => r.operation)).toEqual(['INSERT', ...Array<string>(7).fill('UPDATE')]);
  });

  it('runs its statements prepared on the connection, under the row-level security of whoever sends them', async () => {
    const owner = await t.user({ flags: ['patient'] });
    const other = await t.user({ flags: ['patient'] });
    const save = (person: Person, body: unknown) => t.api('POST', '/api/phq9', { body, token: person.token, headers: UPSERT });
    // Enough saves of the patient's own record that PostgreSQL may settle on a generic plan.
    for (let i = 0; i < 8; i++) {
      const response = await save(owner, { case_id: owner.caseId, time_of_measurement: 'post', ...CALM, item1: i % 4 });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
    }
    const stored = async (time: string) =>
      (await t.database.db.pool.query('select item1, total from app_public.phq9 where case_id = $1 and time_of_measurement = $2', [owner.caseId, time])).rows;
    const saved = await stored('post');
    expect(saved).toEqual([{ item1: 3, total: String(score(PHQ9, { ...CALM, item1: 3 }).total) }]);
    // Another patient's whole record for this case, as update and as insert, on every connection of the pool.
    for (let i = 0; i < 8; i++) {
      for (const time of ['post', 'fu1']) {
        const refused = await save(other, { case_id: owner.caseId, time_of_measurement: time, ...CALM });
        expect(refused.status, JSON.stringify(refused.body)).toBe(403);
        expect(refused.body.code).toBe('42501');
      }
    }
    expect(await stored('post')).toEqual(saved);
    expect(await stored('fu1')).toEqual([]);
    // The other patient's own record, by the same prepared statements, reads back as theirs.
    const own = await save(other, { case_id: other.caseId, time_of_measurement: 'post', ...CALM });
    expect(own.status, JSON.stringify(own.body)).toBe(201);
    expect(own.body).toMatchObject([{ case_id: other.caseId, submitter_id: other.id, item1: 0, total: null }]);
  });

  it('prepares a named statement once per connection and executes it with each message’s values', async () => {
    const owner = await t.user({ flags: ['patient'] });
    expect((await t.api('POST', '/api/phq9', { body: { case_id: owner.caseId, time_of_measurement: 'post', ...CALM }, token: owner.token, headers: UPSERT })).status).toBe(201);
    const statement = { text: 'select count(*)::int as n from app_public.phq9 where case_id = $1 and time_of_measurement = $2', values: [owner.caseId, 'post'] };
    const named = { ...statement, name: preparedStatementName(statement.text) };
    const listed = { text: 'select array_agg(name::text) as names from pg_prepared_statements where name = $1', values: [named.name] };
    for (const time of ['post', 'fu1', 'post']) {
      const [result, prepared] = await queryOnceAsUser(t.database.db.pool, { userId: owner.id }, [{ ...named, values: [owner.caseId, time] }, listed]);
      expect(result!.rows).toEqual([{ n: time === 'post' ? 1 : 0 }]);
      expect(prepared!.rows).toEqual([{ names: [named.name] }]);
    }
    // Another patient runs the same prepared statement and sees none of this case's records.
    const other = await t.user({ flags: ['patient'] });
    const [hidden] = await queryOnceAsUser(t.database.db.pool, { userId: other.id }, [named]);
    expect(hidden!.rows).toEqual([{ n: 0 }]);
  });

  it('raises a record’s safety signal once, with its group, however often the record is saved (0111)', async () => {
    const atRisk = { ...CALM, item9: 2 };
    for (let i = 0; i < 3; i++) expect((await post({ case_id: caseId, time_of_measurement: 'fu1', ...atRisk, item1: i })).status).toBe(201);
    const { rows } = await t.database.db.pool.query(
      `select s.responsible_group from app_public.safety_signals s join app_public.phq9 r on r.id = s.source_record_id
        where s.source = 'phq9' and r.case_id = $1 and r.time_of_measurement = 'fu1'`,
      [caseId],
    );
    // No therapist or interviewer on this case: the coordinators answer for it.
    expect(rows).toEqual([{ responsible_group: 'coordinators' }]);
  });
});

describe('record_measurement_completion (0110)', () => {
  /** As the patient, in a transaction rolled back afterwards; `setup` runs first as the owner. */
  async function asPatient<T>(setup: string[], run: (query: (sql: string, values: unknown[]) => Promise<any[]>) => Promise<T>): Promise<T> {
    const client = await t.database.db.pool.connect();
    try {
      await client.query('begin');
      for (const statement of setup) await client.query(statement, [caseId]);
      await client.query(`set local role sanad_user; select set_config('jwt.claims.user_id', '${patient.id}', true)`);
      return await run(async (sql, values) => (await client.query(sql, values)).rows);
    } finally {
      await client.query('rollback');
      client.release();
    }
  }

  const complete = (due: string[]) => async (query: (sql: string, values: unknown[]) => Promise<any[]>) =>
    (await query(`select app_hidden.record_measurement_completion($1, 'post', $2::text[], '{}'::jsonb) as reported`, [caseId, due]))[0].reported as boolean;
  const record = (code: string, done: boolean) => `insert into app_public.${code} (case_id, time_of_measurement, complete) values ($1, 'post', ${done})`;

  it('reads each collection’s own records: none, incomplete and complete', async () => {
    for (const code of INSTRUMENT_CODES) {
      expect(await asPatient([], complete([code])), `${code}: no record`).toBe(false);
      expect(await asPatient([record(code, false)], complete([code])), `${code}: incomplete`).toBe(false);
      expect(await asPatient([record(code, true)], complete([code])), `${code}: complete`).toBe(true);
    }
  });

  it('needs every due collection, counts a name listed twice once, and reports only the first time', async () => {
    const due = ['gad7', 'phq9', 'pcl5'];
    expect(await asPatient([record('gad7', true), record('phq9', true)], complete(due))).toBe(false);
    expect(await asPatient([record('gad7', true), record('phq9', true), record('pcl5', false)], complete(due))).toBe(false);
    await asPatient([record('gad7', true), record('phq9', true), record('pcl5', true)], async (query) => {
      expect(await complete([...due, 'phq9'])(query)).toBe(true);
      expect(await complete(due)(query)).toBe(false);
    });
  });

  it('refuses an unknown or empty list and a person outside the case, as before', async () => {
    const refusal = async (due: string[]) => asPatient([], async (query) => query(`select app_hidden.record_measurement_completion($1, 'post', $2::text[], '{}'::jsonb)`, [caseId, due]).then(() => null, (error: { code?: string }) => error.code));
    expect(await refusal(['phq8'])).toBe('22023');
    expect(await refusal([])).toBe('22023');
    const outsider = await t.user({ flags: ['patient'] });
    const client = await t.database.db.pool.connect();
    try {
      await client.query('begin');
      await client.query(`set local role sanad_user; select set_config('jwt.claims.user_id', '${outsider.id}', true)`);
      const code = await client.query(`select app_hidden.record_measurement_completion($1, 'post', '{phq9}'::text[], '{}'::jsonb)`, [caseId]).then(
        () => null,
        (error: { code?: string }) => error.code,
      );
      expect(code).toBe('42501');
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
