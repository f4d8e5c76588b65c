/**
 * Scores for staff (spec §7 DetailedCases, the case detail, PagedCases' latest PHQ-9 item 9)
 * and the completion of a time of measurement that tells the workflow (spec §4), over real
 * HTTP and a real database, for each role.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InstrumentCode } from '../../src/domain/instruments';
import { addMember } from '../../src/server/admin/accounts';
import { withUser } from '../../src/server/db/transaction';
import { reportCompletedMeasurement } from '../../src/server/questionnaires/completion';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, therapist: Person, coordinator: Person, outsider: Person;
let caseId: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const PHQ9_PRE = { item1: 2, item2: 2, item3: 2, item4: 2, item5: 2, item6: 2, item7: 2, item8: 1, item9: 1 }; // 16
const PHQ9_POST = { item1: 1, item2: 1, item3: 1, item4: 0, item5: 0, item6: 1, item7: 0, item8: 0, item9: 0 }; // 4
const GAD7_PRE = { item1: 1, item2: 1, item3: 1, item4: 1, item5: 1, item6: 0, item7: 0 }; // 5

const CASE_SCORES = `query CaseScores($id: UUID!) {
  caseById(id: $id) { latestPhq9Item9 caseScoresList(orderBy: [INSTRUMENT_ASC, CREATED_AT_ASC]) { instrument timeOfMeasurement total band flags complete } }
}`;

const DETAILED_CASES = `query DetailedCases {
  allCases(orderBy: CREATED_AT_DESC) { nodes { id shortId
    phq9: caseScoresList(condition: { instrument: "phq9" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
    gad7: caseScoresList(condition: { instrument: "gad7" }, orderBy: CREATED_AT_ASC) { timeOfMeasurement total band createdAt }
  } }
}`;

function post(person: Person, collection: string, body: object) {
  return t.api('POST', `/api/${collection}`, { body, token: person.token, headers: UPSERT });
}

async function outbox(id: string): Promise<{ message_name: string; variables: Record<string, { value: unknown; type: string }> }[]> {
  return (await t.database.db.pool.query('select message_name, variables from app_private.workflow_outbox where case_id = $1 order by id', [id])).rows;
}

beforeAll(async () => {
  t = await startTestApp();
  patient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  outsider = await t.user({ flags: ['therapist'] });
  for (const [collection, body] of [
    ['phq9', { time_of_measurement: 'pre', ...PHQ9_PRE }],
    ['gad7', { time_of_measurement: 'pre', ...GAD7_PRE }],
    ['phq9', { time_of_measurement: 'post', ...PHQ9_POST }],
  ] as const) {
    expect((await post(patient, collection, { case_id: caseId, ...body })).status).toBe(201);
  }
});
afterAll(async () => {
  await t?.close();
});

describe('case scores', () => {
  it('shows the care team every record with its server-computed total, band and flags', async () => {
    const body = await t.graphql(CASE_SCORES, { id: caseId }, therapist.token);
    expect(body.errors).toBeUndefined();
    expect(body.data!.caseById.latestPhq9Item9).toBe(0);
    expect(body.data!.caseById.caseScoresList).toEqual([
      { instrument: 'gad7', timeOfMeasurement: 'pre', total: 5, band: 'mild', flags: [], complete: true },
      { instrument: 'phq9', timeOfMeasurement: 'pre', total: 16, band: 'moderately_severe', flags: ['suicide_item', 'screen_positive', 'phq2_positive'], complete: true },
      { instrument: 'phq9', timeOfMeasurement: 'post', total: 4, band: 'minimal', flags: [], complete: true },
    ]);
  });

  it('shows coordinators the same, and nothing to staff outside the case', async () => {
    const forCoordinator = await t.graphql(CASE_SCORES, { id: caseId }, coordinator.token);
    expect(forCoordinator.data.caseById.caseScoresList).toHaveLength(3);
    const forOutsider = await t.graphql(CASE_SCORES, { id: caseId }, outsider.token);
    expect(forOutsider.data.caseById).toBeNull();
    const all = await t.graphql('{ allCaseScoresList { id } }', {}, outsider.token);
    expect(all.data.allCaseScoresList).toEqual([]);
  });

  it('never shows the patient a score, only that records exist', async () => {
    const body = await t.graphql(CASE_SCORES, { id: caseId }, patient.token);
    expect(body.data!.caseById.caseScoresList).toHaveLength(3);
    for (const row of body.data!.caseById.caseScoresList) expect(row).toMatchObject({ total: null, band: null, flags: null, complete: null });
  });

  it('answers DetailedCases with each case’s PHQ-9 and GAD-7 totals and times of measurement', async () => {
    const body = await t.graphql(DETAILED_CASES, {}, coordinator.token);
    expect(body.errors).toBeUndefined();
    const mine = body.data!.allCases.nodes.find((c: { id: string }) => c.id === caseId);
    expect(mine.phq9.map((s: { timeOfMeasurement: string; total: number }) => [s.timeOfMeasurement, s.total])).toEqual([
      ['pre', 16],
      ['post', 4],
    ]);
    expect(mine.gad7).toEqual([expect.objectContaining({ timeOfMeasurement: 'pre', total: 5, band: 'mild' })]);
    const forTherapist = await t.graphql(DETAILED_CASES, {}, therapist.token);
    expect(forTherapist.data.allCases.nodes.map((c: { id: string }) => c.id)).toEqual([caseId]);
  });
});

describe('a completed time of measurement tells the workflow once', () => {
  it('reports nothing while a questionnaire due is missing or unfinished', async () => {
    const pool = t.database.db.pool;
    const reported = await withUser(pool, { userId: patient.id }, (sql) => reportCompletedMeasurement(sql, caseId, 'pre', ['phq9', 'gad7', 'pcl5']));
    expect(reported).toBe(false);
    expect((await post(patient, 'pcl5', { case_id: caseId, time_of_measurement: 'pre', item1: 2 })).status).toBe(201);
    expect(await withUser(pool, { userId: patient.id }, (sql) => reportCompletedMeasurement(sql, caseId, 'pre', ['phq9', 'gad7', 'pcl5']))).toBe(false);
    expect(await outbox(caseId)).toEqual([]);
  });

  it('queues preMeasurementCompleted on the first completion only', async () => {
    const pool = t.database.db.pool;
    const report = () => withUser(pool, { userId: patient.id }, (sql) => reportCompletedMeasurement(sql, caseId, 'pre', ['phq9', 'gad7']));
    expect(await report()).toBe(true);
    expect(await report()).toBe(false);
    expect(await outbox(caseId)).toEqual([{ message_name: 'preMeasurementCompleted', variables: { timeOfMeasurement: { value: 'pre', type: 'String' } } }]);
  });

  it('queues screeningCompleted with the exclusion as variables', async () => {
    const minor = await t.user({ flags: ['patient'] });
    const baseline = { internet_access: true, email: true, age: 17, gender: 'FEMALE', country_of_origin: 'Syria', country_of_residence: 'Germany', fled: false, loss: false };
    expect((await post(minor, 'demographics', { case_id: minor.caseId, time_of_measurement: 'screening', ...baseline })).status).toBe(201);
    const reported = await withUser(t.database.db.pool, { userId: minor.id }, (sql) => reportCompletedMeasurement(sql, minor.caseId!, 'screening', ['demographics']));
    expect(reported).toBe(true);
    expect(await outbox(minor.caseId!)).toEqual([
      {
        message_name: 'screeningCompleted',
        variables: {
          excluded: { value: true, type: 'Boolean' },
          exclusionReasons: { value: 'excludedForMinorAge', type: 'String' },
          timeOfMeasurement: { value: 'screening', type: 'String' },
        },
      },
    ]);
  });

  it('refuses a person outside the case and an unknown questionnaire, queuing nothing', async () => {
    const pool = t.database.db.pool;
    await expect(withUser(pool, { userId: outsider.id }, (sql) => reportCompletedMeasurement(sql, caseId, 'post', ['phq9']))).rejects.toThrow(/Not involved/);
    await expect(withUser(pool, { userId: patient.id }, (sql) => reportCompletedMeasurement(sql, caseId, 'post', ['nope' as InstrumentCode]))).rejects.toThrow(/Unknown questionnaire/);
    expect((await outbox(caseId)).map((r) => r.message_name)).toEqual(['preMeasurementCompleted']);
  });
});
