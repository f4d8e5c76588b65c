/**
 * Questionnaires move the trial process (spec §4 "Exclusion of a patient": after the screening
 * the workflow is told so the process moves on): the last complete questionnaire due at a time
 * of measurement queues `screeningCompleted` or `<time>MeasurementCompleted` in the outbox, in the
 * writer's transaction, and the workflow host correlates it to the case's trial process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
const { stage } = trial;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const BASELINE = { internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'Iraq', country_of_residence: 'Germany', fled: false, loss: false };
// BDI-II total 18 (items 1–18 one point each; 16 and 18 take option codes): not excluded.
const bdiItem = (n: number) => (n === 16 || n === 18 ? '1a' : n <= 18 ? 1 : 0);
const BDI2 = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`item${i + 1}`, bdiItem(i + 1)]));

beforeAll(async () => {
  // A short screening keeps the test about the hand-over, not the batteries.
  t = await startTestApp({ MEASUREMENTS_SCREENING: 'demographics,bdi2' });
});
afterAll(async () => {
  await t?.close();
});

async function trialCase(): Promise<Person> {
  return (await trial.newTrialCase()).patient;
}

function answer(patient: Person, collection: string, answers: object) {
  return t.api('POST', `/api/${collection}`, {
    body: { case_id: patient.caseId, time_of_measurement: 'screening', ...answers },
    token: patient.token,
    headers: UPSERT,
  });
}

async function outbox(caseId: string): Promise<string[]> {
  return (await t.database.db.pool.query('select message_name from app_private.workflow_outbox where case_id = $1 order by id', [caseId])).rows.map((r) => r.message_name);
}

describe('the screening hands the case to the trial process', () => {
  it('moves on to the interview once every screening questionnaire is complete, and only then', async () => {
    const patient = await trialCase();
    expect(await stage(patient.caseId!)).toBe('screening');

    // Half a BDI-II and a complete baseline questionnaire: nothing yet.
    expect((await answer(patient, 'bdi2', { item1: 1, item2: 1 })).status).toBe(201);
    expect((await answer(patient, 'demographics', BASELINE)).status).toBe(201);
    expect(await outbox(patient.caseId!)).toEqual([]);

    // The rest of the BDI-II completes the screening.
    expect((await answer(patient, 'bdi2', BDI2)).status).toBe(201);
    expect(await outbox(patient.caseId!)).toEqual(['screeningCompleted']);
    await t.sanad.workflow.tick();
    expect(await stage(patient.caseId!)).toBe('interview');
    expect(await outbox(patient.caseId!)).toEqual([]);

    // Changing an answer later does not tell the workflow again.
    expect((await answer(patient, 'demographics', { ...BASELINE, age: 31 })).status).toBe(201);
    expect(await outbox(patient.caseId!)).toEqual([]);
  });

  it('ends the process of a patient the screening excludes', async () => {
    const patient = await trialCase();
    expect((await answer(patient, 'demographics', { ...BASELINE, age: 17 })).status).toBe(201);
    expect((await answer(patient, 'bdi2', BDI2)).status).toBe(201);
    await t.sanad.workflow.tick();
    expect(await stage(patient.caseId!)).toBe('excluded');
    // The trial only: this BDI-II answers item 9, so the case also has a safety process (0050).
    const { rows } = await t.database.db.pool.query(`select state from app_public.workflow_instances where case_id = $1 and business_key = 'trial'`, [patient.caseId]);
    expect(rows.map((r) => r.state)).toEqual(['COMPLETED']);
  });
});
