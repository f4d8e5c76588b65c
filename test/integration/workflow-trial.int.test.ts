/**
 * The trial process (workflows/trial.bpmn) under a controllable clock: the paths a case takes
 * as people complete tasks, features send messages through the outbox, and time passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

const DAY = 86_400_000;
let t: TestApp;
let now = Date.parse('2027-03-01T09:00:00Z');
const clock = { now: () => new Date(now) };
const trial = trialDriver(() => t);
const { notify, stage, openTasks, openTask, submit, measurement } = trial;
let coordinator: Person, therapist: Person, interviewer: Person;

beforeAll(async () => {
  t = await startTestApp({}, {}, { workflowClock: clock });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  // The randomization task draws from the trial's allocation (issue 15).
  const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] } });
  expect(allocation.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;

/** A patient's case with its therapist and interviewer, its trial started as registration starts it. */
function newTrialCase(): Promise<{ patient: Person; caseId: string }> {
  return trial.newTrialCase([
    { person: therapist, roles: ['therapist'] },
    { person: interviewer, roles: ['interviewer'] },
  ]);
}

async function advance(ms: number) {
  now += ms;
  await t.sanad.workflow.tick();
}

async function instance(caseId: string) {
  const { rows } = await pool().query(
    `select id, state, end_time from app_public.workflow_instances where case_id = $1 and business_key = 'trial' order by start_time desc limit 1`,
    [caseId],
  );
  return rows[0];
}

/** Registration → screening → interview → outcome; returns at the outcome task. */
async function throughInterview(caseId: string, patient: Person) {
  expect(await stage(caseId)).toBe('screening');
  const screening = await openTask(caseId, 'screeningTask');
  expect(screening.candidate_groups).toEqual(['patients']);
  expect(screening.due?.toISOString()).toBe(new Date(now + 7 * DAY).toISOString());
  await notify(caseId, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' }, exclusionReasons: { value: '', type: 'String' } });
  expect(await stage(caseId)).toBe('interview');
  await openTask(caseId, 'bookTask');
  await notify(caseId, 'interviewBooked', {
    offerId: { value: 'offer-1', type: 'String' },
    bookingId: { value: 'booking-1', type: 'String' },
    startsAt: { value: new Date(now + 3 * DAY).toISOString(), type: 'Date' },
  });
  const interview = await openTask(caseId, 'interviewTask');
  expect(interview.due?.toISOString()).toBe(new Date(now + 3 * DAY).toISOString());
  // The patient got a system message about the booking.
  const messages = await t.api('GET', '/api/my_messages?from_system=is.true', { token: patient.token });
  expect(messages.body.length).toBeGreaterThanOrEqual(1);
  return interview;
}

describe('the trial process', () => {
  it('starts with a patient registration', async () => {
    const registered = await t.api('POST', '/api/auth/users/register', {
      body: { user: { username: `trialist${Date.now() % 100000}`, email: `trialist${Date.now()}@example.org`, password: 'a long secret phrase', agreedToTerms: true, agreedToPrivacyPolicy: true, confirmedAdult: true } },
    });
    expect(registered.status).toBeLessThan(300);
    const { rows } = await pool().query(`select r.case_id from app_private.workflow_start_requests r where r.definition_key = 'trial'`);
    expect(rows).toHaveLength(1);
    await t.sanad.workflow.tick();
    expect((await instance(rows[0].case_id)).state).toBe('ACTIVE');
    expect(await stage(rows[0].case_id)).toBe('screening');
    expect((await pool().query('select 1 from app_private.workflow_start_requests')).rowCount).toBe(0);
  });

  it('accepted: randomization, pre, treatment, post, FU1 and FU2 after their durations, then finished', async () => {
    const { patient, caseId } = await newTrialCase();
    const interview = await throughInterview(caseId, patient);
    // A person cannot complete it (issue 27); the signed report does, as the server.
    expect((await submit(interview.id, interviewer.token, { outcome: { value: 'ptsd', type: 'String' } })).status).toBe(403);
    await trial.signedOutcome(caseId, interviewer, 'ptsd');

    const randomize = await openTask(caseId, 'randomizeTask');
    expect(randomize.candidate_groups).toEqual(['coordinators']);
    // A hand-picked arm is refused; the server draws it from the concealed allocation.
    expect((await submit(randomize.id, coordinator.token, { treatment: { value: 'a', type: 'String' } })).status).toBe(400);
    expect((await submit(randomize.id, coordinator.token)).status).toBe(204);
    const { rows: drawn } = await pool().query('select treatment from app_public.treatment_assignments where case_id = $1', [caseId]);
    expect(['a', 'b']).toContain(drawn[0]?.treatment);
    expect(await stage(caseId)).toBe('treatment');

    // Questionnaires of another time, filled in early, do not complete the pre task.
    await notify(caseId, 'postMeasurementCompleted', { timeOfMeasurement: { value: 'post', type: 'String' } });
    await openTask(caseId, 'preTask');
    await measurement(caseId, 'pre');
    const patientTask = await openTask(caseId, 'patientTreatmentTask');
    const therapistTask = await openTask(caseId, 'therapistTreatmentTask');
    expect(therapistTask.due?.toISOString()).toBe(new Date(now + 42 * DAY).toISOString());

    // Overdue: one reminder mail to the patient, the task stays open.
    const toPatient = () => t.smtp.mails.filter((m) => m.to.includes(patient.email.toLowerCase())).length;
    const before = toPatient();
    await advance(43 * DAY);
    await t.smtp.waitFor(patient.email);
    expect(toPatient()).toBe(before + 1);
    await advance(DAY);
    expect(toPatient()).toBe(before + 1);

    expect((await submit(patientTask.id, patient.token)).status).toBe(204);
    expect((await submit(therapistTask.id, therapist.token)).status).toBe(204);
    expect(await stage(caseId)).toBe('post');
    await measurement(caseId, 'post');
    expect(await openTasks(caseId)).toEqual([]);

    // FU1 three months later: a timer, visible in my_dates.
    const dates = await t.api('GET', '/api/my_dates', { token: patient.token });
    expect(dates.status).toBe(200);
    expect(dates.body.map((d: { name: string }) => d.name)).toEqual(['fu1Wait']);
    await advance(80 * DAY);
    expect(await stage(caseId)).toBe('post');
    await advance(15 * DAY);
    expect(await stage(caseId)).toBe('fu1');
    await measurement(caseId, 'fu1');
    await advance(95 * DAY);
    expect(await stage(caseId)).toBe('fu2');
    await measurement(caseId, 'fu2');
    expect(await stage(caseId)).toBe('finished');
    expect((await instance(caseId)).state).toBe('COMPLETED');

    const log = await t.api('GET', '/api/my_process_log?activity_id=eq.outcomeCheck', { token: therapist.token });
    expect(log.body).toHaveLength(1);
    const gateways = await t.api('GET', '/api/my_gateways', { token: therapist.token });
    expect(gateways.body.some((g: { activity_id: string }) => g.activity_id === 'outcomeCheck')).toBe(true);
  });

  it('rejected: the case ends with stage rejected', async () => {
    const { patient, caseId } = await newTrialCase();
    const interview = await throughInterview(caseId, patient);
    expect(interview.id).toBeDefined();
    await trial.signedOutcome(caseId, interviewer, 'rejected');
    expect(await stage(caseId)).toBe('rejected');
    expect((await instance(caseId)).state).toBe('COMPLETED');
  });

  it('excluded at screening: the case ends with stage excluded', async () => {
    const { caseId } = await newTrialCase();
    await notify(caseId, 'screeningCompleted', { excluded: { value: true, type: 'Boolean' }, exclusionReasons: { value: 'bdi2Gte45', type: 'String' } });
    expect(await stage(caseId)).toBe('excluded');
    expect((await instance(caseId)).state).toBe('COMPLETED');
  });

  it('a cancelled booking or offer goes back to booking', async () => {
    const { patient, caseId } = await newTrialCase();
    await throughInterview(caseId, patient);
    await notify(caseId, 'interviewBookingCanceled', { offerId: { value: 'offer-1', type: 'String' }, bookingId: { value: 'booking-1', type: 'String' } });
    await openTask(caseId, 'bookTask');
    expect((await openTasks(caseId)).map((x) => x.task_definition_key)).toEqual(['bookTask']);
    await notify(caseId, 'interviewBooked', { offerId: { value: 'offer-2', type: 'String' }, startsAt: { value: new Date(now + DAY).toISOString(), type: 'Date' } });
    await openTask(caseId, 'interviewTask');
    // The interview client cancels the offer through the REST message with a correlation key.
    const wrong = await t.api('POST', '/api/workflow/rest/message', {
      token: interviewer.token,
      body: { messageName: 'offerCanceled', correlationKeys: { offerId: { value: 'offer-1', type: 'String' } }, all: true },
    });
    expect(wrong.status).toBe(200);
    expect(wrong.body).toEqual([]);
    const right = await t.api('POST', '/api/workflow/rest/message', {
      token: interviewer.token,
      body: { messageName: 'offerCanceled', correlationKeys: { offerId: { value: 'offer-2', type: 'String' } }, all: true },
    });
    expect(right.status).toBe(200);
    expect(right.body).toHaveLength(1);
    expect(right.body[0].resultType).toBe('Execution');
    await openTask(caseId, 'bookTask');
  });

  async function intoTreatment() {
    const { patient, caseId } = await newTrialCase();
    await throughInterview(caseId, patient);
    await trial.advance(caseId, 'treatment', { from: 'interview', interviewer, coordinator });
    return { patient, caseId };
  }

  it('dropout without post: treatment tasks end and the trial ends', async () => {
    const { caseId } = await intoTreatment();
    const dropout = await t.api('POST', '/api/workflow/rest/message', {
      token: therapist.token,
      body: { messageName: 'dropout', businessKey: 'trial', processVariables: { askForPostIfDroppedOut: { value: false, type: 'Boolean' } }, resultEnabled: false },
    });
    expect(dropout.status).toBe(204);
    expect(await openTasks(caseId)).toEqual([]);
    const { rows } = await pool().query(`select delete_reason from app_public.workflow_tasks where case_id = $1 and task_definition_key like '%TreatmentTask'`, [caseId]);
    expect(rows.map((r) => r.delete_reason)).toEqual(['deleted', 'deleted']);
    expect(await stage(caseId)).toBe('finished');
    expect((await instance(caseId)).state).toBe('COMPLETED');
  });

  it('dropout with askForPostIfDroppedOut keeps post and the follow-ups', async () => {
    const { caseId } = await intoTreatment();
    await notify(caseId, 'dropout', { askForPostIfDroppedOut: { value: true, type: 'Boolean' } });
    expect(await stage(caseId)).toBe('post');
    expect((await openTasks(caseId)).map((x) => x.task_definition_key)).toEqual(['postTask']);
    await measurement(caseId, 'post');
    await advance(100 * DAY);
    expect(await stage(caseId)).toBe('fu1');
  });
});
