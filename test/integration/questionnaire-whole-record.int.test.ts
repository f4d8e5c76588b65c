/**
 * A POST of a whole questionnaire record (every item) is validated and scored before its
 * transaction, and upserted with its scores as sanad_scorer in one message (migration 0081,
 * routes.ts planWrite). What must hold as on the usual path: the scores are the server's and
 * written with the answers in one write; a body with a score, an answer off its scale or a
 * record of another case is refused with a 4xx and stores nothing; a patient is answered
 * without scores; the suicide item raises its safety signal also when an existing record is
 * updated; the completion of a time of measurement is reported; a partial record still merges.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { PHQ9, score } from '../../src/domain/instruments';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, therapist: Person, otherPatient: Person;
let caseId: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const CALM = { item1: 0, item2: 1, item3: 0, item4: 1, item5: 0, item6: 0, item7: 1, item8: 0, item9: 0, item10: 'not_difficult' };
const AT_RISK = { ...CALM, item2: 3, item4: 3, item9: 2 };

beforeAll(async () => {
  // PHQ-9 alone is due before treatment and at screening, so that one whole record completes that time.
  t = await startTestApp({ MEASUREMENTS_PRE: 'phq9', MEASUREMENTS_SCREENING: 'phq9' });
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  otherPatient = await t.user({ flags: ['patient'] });
});
afterAll(async () => {
  await t?.close();
});

function post(person: Person, body: unknown) {
  return t.api('POST', '/api/phq9', { body, token: person.token, headers: UPSERT });
}

async function record(time: string, forCase = caseId): Promise<Record<string, any> | undefined> {
  const { rows } = await t.database.db.pool.query('select * from app_public.phq9 where case_id = $1 and time_of_measurement = $2', [forCase, time]);
  return rows[0];
}

/** Audit rows of one record: one per write of it. */
async function writes(recordId: string): Promise<string[]> {
  const { rows } = await t.database.db.pool.query('select operation from app_public.audit_log where record_id = $1 order by id', [recordId]);
  return rows.map((r: { operation: string }) => r.operation);
}

describe('POST of a whole record', () => {
  it('writes the answers and the server’s scores in one write, and answers the patient without scores', async () => {
    const response = await post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...CALM });
    expect(response.status).toBe(201);
    expect(response.body).toHaveLength(1);
    expect(response.body[0]).toMatchObject({ case_id: caseId, time_of_measurement: 'fu1', submitter_id: patient.id, item2: 1, total: null, flags: null });
    const stored = await record('fu1');
    const expected = score(PHQ9, CALM);
    expect(Number(stored!.total)).toBe(expected.total);
    expect(stored).toMatchObject({ band: expected.band, complete: true, flags: expected.flags });
    expect(await writes(stored!.id)).toEqual(['INSERT']);

    // Again, changed: one update, rescored; the care team reads the scores.
    const again = await post(patient, { case_id: caseId, time_of_measurement: 'fu1', ...AT_RISK });
    expect(again.status).toBe(201);
    const updated = await record('fu1');
    expect(updated!.id).toBe(stored!.id);
    expect(Number(updated!.total)).toBe(score(PHQ9, AT_RISK).total);
    expect(await writes(stored!.id)).toEqual(['INSERT', 'UPDATE']);
    const read = await t.api('GET', `/api/phq9?case_id=eq.${caseId}&time_of_measurement=eq.fu1`, { token: therapist.token });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(Number(read.body[0].total)).toBe(score(PHQ9, AT_RISK).total);
  });

  it('raises the suicide item’s safety signal when an existing record is updated to it', async () => {
    expect((await post(patient, { case_id: caseId, time_of_measurement: 'post', ...CALM })).status).toBe(201);
    const id = (await record('post'))!.id as string;
    const signals = async () =>
      (await t.database.db.pool.query('select count(*)::int as n from app_public.safety_signals where source = $1 and source_record_id = $2', ['phq9', id])).rows[0].n;
    expect(await signals()).toBe(0);
    expect((await post(patient, { case_id: caseId, time_of_measurement: 'post', ...AT_RISK })).status).toBe(201);
    expect((await record('post'))!.flags).toContain('suicide_item');
    expect(await signals()).toBe(1);
  });

  it('refuses a score in the body, an answer off its scale and another case’s record, storing nothing', async () => {
    const refusals: [unknown, Person, number][] = [
      [{ case_id: caseId, time_of_measurement: 'fu2', ...CALM, total: 0 }, patient, 400],
      [{ case_id: caseId, time_of_measurement: 'fu2', ...CALM, flags: [] }, patient, 400],
      [{ case_id: caseId, time_of_measurement: 'fu2', ...CALM, item1: 4 }, patient, 400],
      [{ case_id: caseId, time_of_measurement: 'fu2', ...CALM, item10: 'sometimes' }, patient, 400],
      [{ case_id: otherPatient.caseId, time_of_measurement: 'fu2', ...CALM }, patient, 403],
    ];
    for (const [body, person, status] of refusals) {
      const response = await post(person, body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect(response.body.code).toBeTruthy();
    }
    expect(await record('fu2')).toBeUndefined();
    expect(await record('fu2', otherPatient.caseId)).toBeUndefined();
  });

  it('reports a completed time of measurement once, as the usual path does', async () => {
    const before = (await t.database.db.pool.query('select count(*)::int as n from app_private.measurement_completions where case_id = $1', [caseId])).rows[0].n;
    expect((await post(patient, { case_id: caseId, time_of_measurement: 'pre', ...CALM })).status).toBe(201);
    expect((await post(patient, { case_id: caseId, time_of_measurement: 'pre', ...CALM })).status).toBe(201);
    const after = (await t.database.db.pool.query('select count(*)::int as n from app_private.measurement_completions where case_id = $1', [caseId])).rows[0].n;
    expect(after - before).toBe(1);
  });

  it('at screening, tells the workflow with the patient’s exclusions, read in the same message', async () => {
    const minor = await t.user({ flags: ['patient'] });
    await t.database.db.pool.query(
      'update app_public.users set excluded = true, excluded_for_minor_age = true, excluded_for_lack_of_email = true where id = $1',
      [minor.id],
    );
    expect((await post(minor, { case_id: minor.caseId, time_of_measurement: 'screening', ...CALM })).status).toBe(201);
    expect(Number((await record('screening', minor.caseId))!.total)).toBe(score(PHQ9, CALM).total);
    const { rows } = await t.database.db.pool.query('select message_name, variables from app_private.workflow_outbox where case_id = $1', [minor.caseId]);
    expect(rows).toEqual([
      {
        message_name: 'screeningCompleted',
        variables: {
          excluded: { value: true, type: 'Boolean' },
          exclusionReasons: { value: 'excludedForLackOfEmail,excludedForMinorAge', type: 'String' },
          timeOfMeasurement: { value: 'screening', type: 'String' },
        },
      },
    ]);
    // A patient without exclusions: excluded false, no reasons.
    const other = await t.user({ flags: ['patient'] });
    expect((await post(other, { case_id: other.caseId, time_of_measurement: 'screening', ...CALM })).status).toBe(201);
    const { rows: plain } = await t.database.db.pool.query('select variables from app_private.workflow_outbox where case_id = $1', [other.caseId]);
    expect(plain[0].variables).toMatchObject({ excluded: { value: false, type: 'Boolean' }, exclusionReasons: { value: '', type: 'String' } });
  });

  it('still merges a partial record with the stored answers and scores the whole', async () => {
    expect((await post(patient, { case_id: caseId, time_of_measurement: 'fu1', item1: 3 })).status).toBe(201);
    const merged = await record('fu1');
    expect(merged!.item1).toBe(3);
    expect(Number(merged!.total)).toBe(score(PHQ9, { ...AT_RISK, item1: 3 }).total);
    // The usual path: the answers, then the scores by store_questionnaire_scores.
    expect((await writes(merged!.id)).slice(-2)).toEqual(['UPDATE', 'UPDATE']);
  });
});
