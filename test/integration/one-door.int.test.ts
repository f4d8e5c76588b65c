/**
 * One door per clinical decision (issue 27): the interview outcome only through a signed report
 * while the trial is in its interview phase, one signed intake report per case, the arm drawn
 * only in the trial's randomization step, exclusion and dropout only with the stage checked.
 * Every second door (Camunda REST, GraphQL, a direct write) is tried and refused with nothing
 * changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { addDuration } from '../../src/server/workflow/expressions';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, interviewer: Person, therapist: Person;
const pool = () => t.database.db.pool;
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };

const no = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, false]));
const yes = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, true]));
const ACCEPTED = {
  age: 30, sex: 'FEMALE', ...no('suicidality_c', [1, 2, 3, 4, 5, 6]), trauma_criterion_a: true, worst_event_on: '2020-01-01',
  ...yes('ptsd_g', [14, 19, 21, 22, 28, 29, 34, 36, 39, 40]), primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd',
};
const REJECTED = { ...ACCEPTED, status: 'rejected', accepted_reason: null, rejected_reasons: ['refuses'], refuses_treatment: true };

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  therapist = await t.user({ flags: ['therapist'] });
  const configured = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } });
  expect(configured.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
});

let slots = 0;
/** A patient with a booking of `interviewer` that began a while ago; the trial at `phase`. */
async function bookedCase(phase: 'screening' | 'interview' = 'interview') {
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE' });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  await addMember(pool(), caseId, therapist.username, ['therapist']);
  const bookingId = await newBooking(caseId, patient.id);
  await trial.startTrial(caseId);
  if (phase === 'interview') await trial.advance(caseId, 'interview', { bookingId });
  return { patient, caseId, bookingId };
}

async function newBooking(caseId: string, patientId: string): Promise<string> {
  slots += 1;
  const offer = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(now() - make_interval(mins => $2), now() - make_interval(mins => $2 - 60))) returning id`,
    [interviewer.id, 100 + 70 * slots],
  );
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patientId, interviewer.id],
  );
  return booking.rows[0]!.id;
}

async function draft(bookingId: string, values: Record<string, unknown>): Promise<string> {
  const saved = await t.api('POST', '/api/interview_reports', { token: interviewer.token, body: { booking_id: bookingId, ...values }, headers: UPSERT });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return saved.body[0].id;
}

const finalize = (id: string, token = interviewer.token, body: Record<string, unknown> = {}) => t.api('POST', `/api/interview_reports/${id}/finalize`, { token, body });

/** What a decision could change: the case's stage, open tasks, process variables, reports, assignment, exclusions. */
async function caseState(caseId: string) {
  const q = async (text: string) => (await pool().query(text, [caseId])).rows;
  return {
    stage: await q('select stage, is_dropout from app_public.cases where id = $1'),
    tasks: await q('select task_definition_key from app_public.workflow_tasks where case_id = $1 and end_time is null order by 1'),
    variables: await q(`select variables from app_public.workflow_instances where case_id = $1 order by start_time`),
    reports: await q('select id, state, trial_outcome from app_public.interview_reports where case_id = $1 order by id'),
    assignment: await q('select treatment from app_public.treatment_assignments where case_id = $1'),
    exclusions: await q('select flag, value from app_public.exclusion_changes where case_id = $1 order by changed_at'),
    patient: await q(`select u.excluded from app_public.users u join app_public.case_members m on m.user_id = u.id where m.case_id = $1 and m.acts_as_patient`),
  };
}

async function owner(text: string, values: unknown[]) {
  const client = await pool().connect();
  try {
    await client.query('begin');
    return await client.query(text, values);
  } finally {
    await client.query('rollback');
    client.release();
  }
}

describe('the interview outcome: only a signed report, only in the interview phase', () => {
  it('no person completes the interview task (submit-form, complete; any role, with or without an outcome)', async () => {
    const { caseId } = await bookedCase();
    const task = await trial.openTask(caseId, 'interviewTask');
    const before = await caseState(caseId);
    for (const person of [interviewer, coordinator]) {
      for (const call of ['submit-form', 'complete']) {
        for (const variables of [{ outcome: { value: 'ptsd', type: 'String' } }, {}]) {
          const answer = await t.api('POST', `/api/workflow/rest/task/${task.id}/${call}`, { token: person.token, body: { variables } });
          expect(answer.status, `${person.username} ${call}`).toBe(403);
          expect(answer.body.message).toContain('signing the interview report');
        }
      }
    }
    await t.sanad.workflow.tick();
    expect(await caseState(caseId)).toEqual(before);
  });

  it('the interview task has no outcome field any more', async () => {
    const { caseId } = await bookedCase();
    const task = await trial.openTask(caseId, 'interviewTask');
    const form = await t.api('GET', `/api/workflow/rest/task/${task.id}/form-variables`, { token: interviewer.token });
    expect(form.status).toBe(200);
    expect(form.body).toEqual({});
  });

  it('a report is not signed while the trial is not in its interview phase (screening): 409, nothing changed', async () => {
    const { caseId, bookingId } = await bookedCase('screening');
    const id = await draft(bookingId, ACCEPTED);
    const before = await caseState(caseId);
    for (const token of [interviewer.token, coordinator.token]) {
      const refused = await finalize(id, token, { overrideReason: 'trying' });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toBe('not_in_interview_phase');
    }
    expect(await caseState(caseId)).toEqual(before);
    // The database holds the same rule for a direct write.
    await expect(owner(`update app_public.interview_reports set state = 'final', finalized_at = now(), trial_outcome = 'ptsd' where id = $1`, [id])).rejects.toThrow(/not waiting for an interview outcome/);
  });

  it('signing in the interview phase records the outcome and moves the trial', async () => {
    const { caseId, bookingId } = await bookedCase();
    const id = await draft(bookingId, ACCEPTED);
    const signed = await finalize(id);
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    expect(signed.body).toMatchObject({ outcome: 'ptsd', workflow: 'completed' });
    await t.sanad.workflow.tick();
    expect((await caseState(caseId)).tasks).toEqual([{ task_definition_key: 'randomizeTask' }]);
  });
});

describe('one signed intake report per case', () => {
  it('a second report of a randomized case cannot be signed (no contradicting "rejected"): 409, nothing changed', async () => {
    const { caseId, bookingId, patient } = await bookedCase();
    expect((await finalize(await draft(bookingId, ACCEPTED))).status).toBe(200);
    await t.sanad.workflow.tick();
    expect((await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: coordinator.token })).status).toBe(201);
    const second = await draft(await newBooking(caseId, patient.id), REJECTED);
    const before = await caseState(caseId);
    const refused = await finalize(second, coordinator.token, { overrideReason: 'second opinion' });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('final_report_exists');
    expect(await caseState(caseId)).toEqual(before);
    await expect(owner(`update app_public.interview_reports set state = 'final', finalized_at = now(), trial_outcome = 'rejected' where id = $1`, [second])).rejects.toThrow(/already has a signed intake report/);
  });
});

describe('randomization: only the trial step', () => {
  it('the case page button completes the randomization task and moves the stage', async () => {
    const { caseId } = await bookedCase();
    await trial.signedOutcome(caseId, interviewer, 'ptsd');
    const drawn = await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: coordinator.token });
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(201);
    expect(drawn.body.treatment).toMatch(/^(cbt|ipt)$/);
    await t.sanad.workflow.tick();
    const state = await caseState(caseId);
    expect(state.tasks.map((x) => x.task_definition_key)).not.toContain('randomizeTask');
    expect(state.stage[0].stage).toBe('treatment');
    expect(state.assignment).toEqual([{ treatment: drawn.body.treatment }]);
    const vars = state.variables.at(-1)!.variables;
    expect(vars.treatment.value).toBe(drawn.body.treatment);
  });

  it('refused before the step (interview phase), for non-coordinators, through GraphQL and by a direct write; nothing drawn', async () => {
    const { caseId } = await bookedCase();
    const before = await caseState(caseId);
    const early = await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: coordinator.token });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('not_accepted');
    await trial.signedOutcome(caseId, interviewer, 'depression');
    const atStep = await caseState(caseId);
    for (const person of [interviewer, therapist]) {
      expect((await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: person.token })).status).toBe(403);
    }
    for (const person of [coordinator, interviewer]) {
      const gql = await t.graphql(`mutation($id: UUID!) { randomizeCase(input: { caseId: $id }) { treatmentAssignment { treatment } } }`, { id: caseId }, person.token);
      expect(gql.errors?.length, person.username).toBeGreaterThan(0);
    }
    // As the request role, the draw function is not reachable at all.
    await expect((async () => {
      const client = await pool().connect();
      try {
        await client.query('begin');
        await client.query(`select set_config('jwt.claims.user_id', $1, true)`, [coordinator.id]);
        await client.query('set local role sanad_user');
        return await client.query('select app_public.randomize_case($1)', [caseId]);
      } finally {
        await client.query('rollback');
        client.release();
      }
    })()).rejects.toThrow(/permission denied/);
    expect(await caseState(caseId)).toEqual(atStep);
    expect(before.assignment).toEqual([]);
  });

  it('an assignment cannot be written outside the randomization step, not even by the owner', async () => {
    const { caseId } = await bookedCase();
    await expect(owner(`insert into app_public.treatment_assignments (case_id, treatment, stratum, factor_levels, method) values ($1, 'cbt', 'x', '{}', 'blocks')`, [caseId]))
      .rejects.toThrow(/not waiting for randomization/);
  });
});

describe('exclusion and dropout: the stage checked', () => {
  const change = (caseId: string, body: Record<string, unknown>) => t.api('POST', `/api/trial/cases/${caseId}/exclusion`, { token: coordinator.token, body });

  it('a randomized patient is not excluded (intention to treat) but may drop out; a dropout needs randomization', async () => {
    const waiting = await bookedCase();
    const before = await caseState(waiting.caseId);
    const early = await change(waiting.caseId, { flag: 'is_dropout', value: true, reason: 'Moved away' });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('dropout_before_randomization');
    expect(await caseState(waiting.caseId)).toEqual(before);

    const { caseId } = await bookedCase();
    await trial.signedOutcome(caseId, interviewer, 'ptsd');
    expect((await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: coordinator.token })).status).toBe(201);
    await t.sanad.workflow.tick();
    const randomized = await caseState(caseId);
    const excluded = await change(caseId, { flag: 'excluded_for_minor_age', value: true, reason: 'Born 2010' });
    expect(excluded.status).toBe(409);
    expect(excluded.body.error).toBe('randomized_use_dropout');
    expect(await caseState(caseId)).toEqual(randomized);
    const dropout = await change(caseId, { flag: 'is_dropout', value: true, reason: 'Moved abroad' });
    expect(dropout.status).toBe(204);
    const twice = await change(caseId, { flag: 'is_dropout', value: true, reason: 'Again' });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('already_dropout');
  });
});

describe('the stage: moved only by the trial once it runs (0271)', () => {
  const UPDATE = `mutation($id: UUID!, $patch: CasePatch!) { updateCaseById(input: { id: $id, casePatch: $patch }) { case { stage title } } }`;

  it('a coordinator cannot move a trial case to another stage (GraphQL; REST has no door); nothing changes, other fields stay editable', async () => {
    const { caseId } = await bookedCase('screening');
    const before = await caseState(caseId);
    for (const stage of ['treatment', 'interview', 'counseling', 'finished']) {
      const gql = await t.graphql(UPDATE, { id: caseId, patch: { stage } }, coordinator.token);
      expect(gql.errors?.[0]?.extensions?.refusal, `${stage}: ${JSON.stringify(gql)}`).toBe('stage_by_the_trial');
      // REST has no cases collection to write through.
      const rest = await t.api('PATCH', `/api/cases?id=eq.${caseId}`, { token: coordinator.token, body: { stage } });
      expect(rest.status, stage).toBe(404);
    }
    expect(await caseState(caseId)).toEqual(before);
    const renamed = await t.graphql(UPDATE, { id: caseId, patch: { title: 'Renamed', stage: 'screening' } }, coordinator.token);
    expect(renamed.data?.updateCaseById?.case).toEqual({ stage: 'screening', title: 'Renamed' });
  });

  it('the trial itself still moves it, and a case without a trial keeps its editable stage', async () => {
    const { caseId } = await bookedCase('interview');
    expect(await trial.stage(caseId)).toBe('interview');
    const manual = await t.user({ flags: ['patient'] });
    const moved = await t.graphql(UPDATE, { id: manual.caseId, patch: { stage: 'treatment' } }, coordinator.token);
    expect(moved.data?.updateCaseById?.case?.stage).toBe('treatment');
  });
});

describe('the trial rules on every signing and every amendment (issue 27)', () => {
  const report = async (id: string) => (await pool().query('select state, version, suicidality_c4, override_reason, override_by, dast_total from app_public.interview_reports where id = $1', [id])).rows[0];
  const amend = (id: string, body: Record<string, unknown>, token = coordinator.token) => t.api('POST', `/api/interview_reports/${id}/amend`, { token, body });
  const rulesOf = (answer: { body: { problems?: { rule: string }[] } }) => (answer.body.problems ?? []).map((p) => p.rule);

  it('signing: suicidality unanswered is refused; a coordinator may override with a recorded reason', async () => {
    const { bookingId } = await bookedCase();
    const fiveItems: Record<string, unknown> = { ...ACCEPTED };
    delete fiveItems.suicidality_c6;
    const id = await draft(bookingId, fiveItems);
    const refused = await finalize(id);
    expect(refused.status).toBe(422);
    expect(rulesOf(refused)).toEqual(['suicidality_not_assessed']);
    expect((await finalize(id, interviewer.token, { overrideReason: 'asked by phone' })).status).toBe(422);
    expect((await report(id)).state).toBe('draft');
    const overridden = await finalize(id, coordinator.token, { overrideReason: 'Assessed in the clinic the same day; see the file' });
    expect(overridden.status).toBe(200);
    expect(overridden.body.overridden).toEqual(['suicidality_not_assessed']);
    expect(await report(id)).toMatchObject({ state: 'final', override_by: coordinator.id, override_reason: 'Assessed in the clinic the same day; see the file' });
  });

  it('signing: three DAST "yes" of a partial scale reach the cut-off; two do not', async () => {
    const three = await bookedCase();
    const id = await draft(three.bookingId, { ...ACCEPTED, dast1: true, dast2: true, dast4: true });
    expect((await report(id)).dast_total).toBeNull();
    const refused = await finalize(id);
    expect(refused.status).toBe(422);
    expect(rulesOf(refused)).toEqual(['drugs']);
    const two = await bookedCase();
    expect((await finalize(await draft(two.bookingId, { ...ACCEPTED, dast1: true, dast2: true }))).status).toBe(200);
  });

  it('signing: PTSD accepted with every PTSD criterion "no" is refused (no depression or PTSD, diagnosis inconsistent)', async () => {
    const { bookingId } = await bookedCase();
    const allNo = Object.fromEntries(Array.from({ length: 27 }, (_, i) => [`ptsd_g${i + 14}`, false]));
    const refused = await finalize(await draft(bookingId, { ...ACCEPTED, ...allNo }));
    expect(refused.status).toBe(422);
    expect(rulesOf(refused)).toEqual(['no_depression_or_ptsd', 'diagnosis_inconsistent']);
  });

  it('amending: high risk with an attempt within 3 years asks for an override reason; a low risk without one does not', async () => {
    const { bookingId } = await bookedCase();
    const id = await draft(bookingId, ACCEPTED);
    expect((await finalize(id)).status).toBe(200);
    const before = await report(id);
    const high = { suicidality_c4: true, suicidality_serious_attempt_3y: true };
    const refused = await amend(id, { reason: 'The patient called back', values: high });
    expect(refused.status).toBe(422);
    expect(rulesOf(refused)).toEqual(['suicidality']);
    expect(refused.body.message).toContain('override');
    expect(await report(id)).toEqual(before);
    const overridden = await amend(id, { reason: 'The patient called back', values: high, overrideReason: 'Crisis plan agreed with the psychiatrist; treatment continues' });
    expect(overridden.status, JSON.stringify(overridden.body)).toBe(200);
    expect(overridden.body.overridden).toEqual(['suicidality']);
    expect(await report(id)).toMatchObject({ version: before.version + 1, suicidality_c4: true, override_by: coordinator.id, override_reason: 'Crisis plan agreed with the psychiatrist; treatment continues' });

    const other = await bookedCase();
    const calm = await draft(other.bookingId, ACCEPTED);
    expect((await finalize(calm)).status).toBe(200);
    // C1 alone is a low risk: without an attempt within 3 years no rule applies.
    expect((await amend(calm, { reason: 'Passive wish mentioned later', values: { suicidality_c1: true } })).status).toBe(422);
    const low = await amend(calm, { reason: 'Passive wish mentioned later', values: { suicidality_c1: true, suicidality_serious_attempt_3y: false } });
    expect(low.status).toBe(200);
    expect(low.body.overridden).toEqual([]);
  });

  it('amending: partial DAST at the cut-off is refused without a reason; the outcome itself cannot change', async () => {
    const { bookingId } = await bookedCase();
    const id = await draft(bookingId, ACCEPTED);
    expect((await finalize(id)).status).toBe(200);
    const before = await report(id);
    const drugs = await amend(id, { reason: 'DAST asked later', values: { dast1: true, dast2: true, dast4: true } });
    expect(drugs.status).toBe(422);
    expect(rulesOf(drugs)).toEqual(['drugs']);
    const rejected = await amend(id, { reason: 'Changed my mind', values: { status: 'rejected', accepted_reason: null, rejected_reasons: ['refuses'], refuses_treatment: true } });
    expect(rejected.status).toBe(409);
    expect(rejected.body.error).toBe('outcome_change');
    expect(await report(id)).toEqual(before);
  });
});

describe('calendar-correct time in the workflow (issue 27)', () => {
  it('the trial carries the participant\'s time zone and counts its due dates in that calendar', async () => {
    const patient = await t.user({ flags: ['patient'] });
    await pool().query(`update app_public.users set time_zone = 'Africa/Cairo' where id = $1`, [patient.id]);
    await trial.startTrial(patient.caseId!);
    const { rows } = await pool().query(
      `select i.variables, t.created, t.due from app_public.workflow_instances i
         join app_public.workflow_tasks t on t.process_instance_id = i.id and t.task_definition_key = 'screeningTask' where i.case_id = $1`,
      [patient.caseId],
    );
    expect(rows[0].variables.timeZone).toEqual({ value: 'Africa/Cairo', type: 'String' });
    const duration = rows[0].variables.patientTaskDue.value as string;
    // The task row's `created` is written a moment after the step's clock read the time.
    const expected = addDuration(rows[0].created as Date, duration, 'Africa/Cairo').getTime();
    expect(Math.abs((rows[0].due as Date).getTime() - expected)).toBeLessThan(1000);
  });
});
