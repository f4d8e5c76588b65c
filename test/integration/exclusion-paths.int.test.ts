/**
 * One door for exclusions (0095): every path that excludes a patient or marks a case a dropout
 * leaves exactly one app_public.exclusion_changes row with the flag, the value and a readable
 * reason, by the person who decided or by nobody (a rule); a refused attempt leaves nothing.
 * The interview paths (rejected, missed-interview limit) are tested with the interview report
 * (interview-reports.int.test.ts), the coordinator's exclusion in trial-flow, the suicide-risk
 * exclusion in safety.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsortFlow } from '../../src/domain/consort';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
const { notify, openTasks, submit } = trial;
let coordinator: Person, therapist: Person, supervisor: Person, interviewer: Person, supporter: Person, outsider: Person;

const pool = () => t.database.db.pool;
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const BASELINE = { internet_access: true, email: true, age: 30, gender: 'MALE', country_of_origin: 'Iraq', country_of_residence: 'Iraq', fled: false, loss: false };

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  supervisor = await t.user({ flags: ['supervisor'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  supporter = await t.user({ flags: ['supporter'] });
  outsider = await t.user({ flags: ['therapist'] });
  expect((await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }] } })).status).toBe(201);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

async function changes(caseId: string) {
  const { rows } = await pool().query('select flag, value, reason, changed_by from app_public.exclusion_changes where case_id = $1 order by changed_at, flag', [caseId]);
  return rows as { flag: string; value: boolean; reason: string; changed_by: string | null }[];
}

async function trialCase(): Promise<Person> {
  return (await trial.newTrialCase([], { gender: 'FEMALE' })).patient;
}

describe('screening rules', () => {
  it('each raised flag is one row by no person with the rule as the reason; answering again adds none', async () => {
    const patient = await trialCase();
    const caseId = patient.caseId!;
    const answer = (body: object, who: Person = patient) =>
      t.api('POST', '/api/demographics', { token: who.token, headers: UPSERT, body: { case_id: caseId, time_of_measurement: 'screening', ...body } });
    expect((await answer({ ...BASELINE, age: 17, email: false })).status).toBe(201);
    expect(await changes(caseId)).toEqual([
      { flag: 'excluded_for_lack_of_email', value: true, reason: 'Screening rule: the patient has no email address.', changed_by: null },
      { flag: 'excluded_for_minor_age', value: true, reason: 'Screening rule: the patient is younger than the minimum age.', changed_by: null },
    ]);
    // The same decision again (another answer of the record) changes nothing and records nothing.
    expect((await answer({ country_of_residence: 'Jordan' })).status).toBe(201);
    expect(await changes(caseId)).toHaveLength(2);
    // The trial reaches its excluded stage with the flags already recorded: no row more.
    await notify(caseId, 'screeningCompleted', { excluded: { value: true, type: 'Boolean' }, exclusionReasons: { value: 'excludedForMinorAge', type: 'String' } });
    expect((await pool().query('select stage from app_public.cases where id = $1', [caseId])).rows[0].stage).toBe('excluded');
    expect(await changes(caseId)).toHaveLength(2);
  });

  it('a person who may not answer for the case is refused and nothing is flagged or recorded', async () => {
    const patient = await trialCase();
    const stranger = await t.user({ flags: ['patient'] });
    const refused = await t.api('POST', '/api/demographics', {
      token: stranger.token, headers: UPSERT, body: { case_id: patient.caseId, time_of_measurement: 'screening', ...BASELINE, age: 16 },
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(await changes(patient.caseId!)).toEqual([]);
    expect((await pool().query('select excluded, excluded_for_minor_age from app_public.users where id = $1', [patient.id])).rows[0]).toEqual({ excluded: false, excluded_for_minor_age: false });
    // The function is the server's: a request role cannot call it.
    const client = await pool().connect();
    try {
      await client.query('begin');
      await client.query('set local role sanad_user');
      await expect(client.query(`select app_hidden.raise_patient_exclusion($1, 'excluded', 'x', null)`, [patient.caseId])).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe('the screening step completed by hand', () => {
  it('a trial started with excluded = true and screened by hand: the patient is excluded with one row; the patient is refused and nothing changes', async () => {
    const patient = await t.user({ flags: ['patient'] });
    const caseId = patient.caseId!;
    // A coordinator starts the trial by hand with the variable set and completes the screening step.
    const started = await t.api('POST', '/api/workflow/rest/process-definition/key/trial/start', {
      token: coordinator.token,
      body: { businessKey: 'trial', variables: { caseId: { value: caseId, type: 'String' }, excluded: { value: true, type: 'Boolean' } } },
    });
    expect(started.status).toBe(200);
    await t.sanad.workflow.tick();
    const task = (await openTasks(caseId, 'screeningTask'))[0]!;
    expect((await submit(task.id, patient.token)).status).toBe(403);
    expect(await changes(caseId)).toEqual([]);
    expect((await pool().query('select excluded from app_public.users where id = $1', [patient.id])).rows[0].excluded).toBe(false);

    expect((await submit(task.id, coordinator.token)).status).toBe(204);
    await t.sanad.workflow.tick();
    expect((await pool().query('select stage from app_public.cases where id = $1', [caseId])).rows[0].stage).toBe('excluded');
    expect((await pool().query('select excluded from app_public.users where id = $1', [patient.id])).rows[0].excluded).toBe(true);
    const rows = await changes(caseId);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ flag: 'excluded', value: true, changed_by: null });
    expect(rows[0]!.reason).toMatch(/screening .*excluded/i);
  });
});

describe('a dropout sent as the workflow message', () => {
  async function newTreatmentCase() {
    const { patient, caseId } = await trial.newTrialCase(
      [
        { person: therapist, roles: ['therapist'] },
        { person: supervisor, roles: ['supervisor'] },
        { person: interviewer, roles: ['interviewer'] },
        { person: supporter, roles: ['supporter'] },
      ],
      { gender: 'MALE' },
    );
    await trial.advance(caseId, 'treatment', { interviewer, coordinator });
    expect((await openTasks(caseId)).map((x) => x.task_definition_key)).toContain('patientTreatmentTask');
    return patient;
  }

  const dropout = (token: string, variables: Record<string, unknown>) =>
    t.api('POST', '/api/workflow/rest/message', { token, body: { messageName: 'dropout', businessKey: 'trial', processVariables: variables } });

  it('marks the case a dropout with the reason sent, one row by the sender; the CONSORT flow counts it as a dropout', { timeout: 120_000 }, async () => {
    const patient = await newTreatmentCase();
    const caseId = patient.caseId!;
    const before = { is_dropout: false, dropout_reason: null, ask_for_post_if_dropped_out: false };
    const caseRow = async () => (await pool().query('select is_dropout, dropout_reason, ask_for_post_if_dropped_out from app_public.cases where id = $1', [caseId])).rows[0];
    // Refused: the patient and the supporter (403); a therapist of another case reaches no process (200, []).
    for (const person of [patient, supporter]) {
      expect((await dropout(person.token, { dropoutReason: { value: 'x', type: 'String' } })).status, person.username).toBe(403);
    }
    const elsewhere = await dropout(outsider.token, { dropoutReason: { value: 'x', type: 'String' } });
    expect([elsewhere.status, elsewhere.body]).toEqual([200, []]);
    expect(await caseRow()).toEqual(before);
    expect(await changes(caseId)).toEqual([]);
    expect((await openTasks(caseId)).map((x) => x.task_definition_key)).toContain('patientTreatmentTask');

    const sent = await dropout(therapist.token, {
      askForPostIfDroppedOut: { value: true, type: 'Boolean' },
      dropoutReason: { value: 'Moved abroad, no longer reachable', type: 'String' },
    });
    expect(sent.status).toBeLessThan(300);
    expect(await caseRow()).toEqual({ is_dropout: true, dropout_reason: 'Moved abroad, no longer reachable', ask_for_post_if_dropped_out: true });
    expect(await changes(caseId)).toEqual([{ flag: 'is_dropout', value: true, reason: 'Moved abroad, no longer reachable', changed_by: therapist.id }]);
    // The trial behaves as before: the treatment ends, post measurement follows when asked for.
    const keys = (await openTasks(caseId)).map((x) => x.task_definition_key);
    expect(keys).not.toContain('patientTreatmentTask');
    expect(keys).toContain('postTask');

    // CONSORT: this participant is lost to dropout after treatment, in the export as in the flow.
    const csv = await fetch(`${t.url}/api/trial/participants.csv`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    expect(csv.status).toBe(200);
    const row = csvObjects(await csv.text()).find((r) => r.case_id === caseId)!;
    expect(row.is_dropout).toBe('1');
    const flow = (await t.api('GET', '/api/trial/consort', { token: coordinator.token })).body as ConsortFlow;
    expect(flow.arms.reduce((n, arm) => n + arm.lost.post.dropout, 0)).toBe(1);
  });

  it('without a reason the row says none was given; a case already a dropout records nothing more', { timeout: 120_000 }, async () => {
    const patient = await newTreatmentCase();
    const caseId = patient.caseId!;
    expect((await dropout(supervisor.token, {})).status).toBeLessThan(300);
    expect(await changes(caseId)).toEqual([
      { flag: 'is_dropout', value: true, reason: 'Dropout sent as the workflow message "dropout" without a reason.', changed_by: supervisor.id },
    ]);
    expect((await pool().query('select ask_for_post_if_dropped_out, stage from app_public.cases where id = $1', [caseId])).rows[0]).toEqual({ ask_for_post_if_dropped_out: false, stage: 'finished' });
    // Nothing waits for the message any more: it reaches nothing, and nothing is recorded.
    const again = await dropout(therapist.token, {});
    expect([again.status, again.body]).toEqual([200, []]);
    expect(await changes(caseId)).toHaveLength(1);
  });
});
