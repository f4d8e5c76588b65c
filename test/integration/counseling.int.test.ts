/**
 * The counseling path (issue 27 item 5): a signed intake report with the counseling result starts
 * the counseling process (workflows/counseling.bpmn); a coordinator assigns the counselor through
 * one command; the counselor holds the sessions, sends the closing letter and closes the
 * counseling, which ends the patient's step and finishes the case. The assignment is tried by
 * every role on their own case and on another, and every refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast, type CastMember } from '../helpers/people';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, interviewer: Person, counselor: Person;
const pool = () => t.database.db.pool;
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const no = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, false]));
/** A complete referral: assessed, not accepted for the trial's treatment, accepted for counseling. */
const REFERRAL = {
  age: 30, sex: 'FEMALE', ...no('suicidality_c', [1, 2, 3, 4, 5, 6]), primary_problem: 'other',
  status: 'rejected', counseling_accepted: true, counseling_reasons: 'wants support with a family conflict',
};

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  counselor = await t.user({ flags: ['counselor'], alias: 'Salma' });
});
afterAll(async () => {
  await t?.close();
});

const tick = () => t.sanad.workflow.tick();
const assign = (caseId: string, counselorId: string, token: string) =>
  t.api('POST', `/api/counseling/cases/${caseId}/counselor`, { token, body: { counselorId } });

let slots = 0;
/** A patient whose trial waits for the interview outcome, with a booking that began a while ago. */
async function caseAtInterview() {
  slots += 1;
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE', locale: 'ar' });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  const offer = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(now() - make_interval(hours => 2 * $2), now() - make_interval(hours => 2 * $2 - 1))) returning id`,
    [interviewer.id, slots],
  );
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, interviewer.id],
  );
  await trial.startTrial(caseId);
  await trial.advance(caseId, 'interview', { bookingId: booking.rows[0]!.id });
  return { patient, caseId, bookingId: booking.rows[0]!.id };
}

/** The interviewer writes and signs the referral (the one door, 0150). */
async function signReferral(bookingId: string) {
  const saved = await t.api('POST', '/api/interview_reports', { token: interviewer.token, body: { booking_id: bookingId, ...REFERRAL }, headers: UPSERT });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  const signed = await t.api('POST', `/api/interview_reports/${saved.body[0].id}/finalize`, { token: interviewer.token, body: {} });
  expect(signed.status, JSON.stringify(signed.body)).toBe(200);
  await tick();
  await tick();
}

async function counselingInstance(caseId: string) {
  const { rows } = await pool().query(`select state, variables from app_public.workflow_instances where case_id = $1 and definition_key = 'counseling'`, [caseId]);
  return rows;
}

/** What an assignment could change: members, open tasks, processes, queued messages. */
async function caseState(caseId: string) {
  const q = async (text: string) => (await pool().query(text, [caseId])).rows;
  return {
    members: await q('select user_id, acts_as_counselor, acts_as_therapist, acts_as_patient from app_public.case_members where case_id = $1 order by user_id'),
    tasks: await q('select task_definition_key from app_public.workflow_tasks where case_id = $1 and end_time is null order by 1'),
    instances: await q('select definition_key, state from app_public.workflow_instances where case_id = $1 order by definition_key'),
    outbox: await q('select message_name from app_private.workflow_outbox where case_id = $1 order by 1'),
    stage: await q('select stage from app_public.cases where id = $1'),
  };
}

describe('counseling from outcome to end', () => {
  it('a signed referral starts the counseling; a counselor holds it, writes the closing letter and closes it', async () => {
    const { patient, caseId, bookingId } = await caseAtInterview();
    await signReferral(bookingId);

    // The signed report's result starts the process, at stage counseling, waiting for a counselor.
    expect((await counselingInstance(caseId)).map((i) => i.state)).toEqual(['ACTIVE']);
    expect(await trial.stage(caseId)).toBe('counseling');
    const assignTask = await trial.openTask(caseId, 'assignCounselorTask');
    expect(assignTask.candidate_groups).toEqual(['coordinators']);

    // Nobody ticks "Assign a counselor" off by hand: it closes with an assignment.
    const byHand = await trial.submit(assignTask.id, coordinator.token);
    expect(byHand.status).toBe(403);
    await trial.openTask(caseId, 'assignCounselorTask');

    // The coordinator's one door.
    expect((await assign(caseId, counselor.id, coordinator.token)).status).toBe(204);
    await tick();
    expect(await trial.openTasks(caseId, 'assignCounselorTask')).toEqual([]);
    const { rows: members } = await pool().query('select acts_as_counselor from app_public.case_members where case_id = $1 and user_id = $2', [caseId, counselor.id]);
    expect(members).toEqual([{ acts_as_counselor: true }]);
    // The patient is told in the case, in their language.
    const { rows: told } = await pool().query(`select body from app_public.case_messages where case_id = $1 and from_system order by created_at desc limit 1`, [caseId]);
    expect(told[0].body).toContain('الإرشاد');

    // Both sides are open: the patient's part and the counselor's sessions.
    expect((await trial.openTasks(caseId)).map((task) => task.task_definition_key).sort()).toEqual(['counselingPatientTask', 'counselingSessionsTask']);
    // The patient sees their step; the counselor reads the case's tasks.
    const patientTasks = await t.graphql(`{ allWorkflowTasks(condition: { endTime: null }) { nodes { taskDefinitionKey } } }`, {}, patient.token);
    expect(patientTasks.data.allWorkflowTasks.nodes.map((n: { taskDefinitionKey: string }) => n.taskDefinitionKey)).toContain('counselingPatientTask');
    // The patient cannot close the counselor's step (it is not even theirs to see).
    expect((await trial.submit((await trial.openTask(caseId, 'counselingSessionsTask')).id, patient.token)).status).toBe(404);

    await trial.complete(caseId, 'counselingSessionsTask', counselor.token);
    const letterTask = await trial.openTask(caseId, 'counselingLetterTask');
    // The closing letter: not ticked off by hand, but by sending a letter.
    expect((await trial.submit(letterTask.id, counselor.token)).status).toBe(403);
    const letter = await t.api('POST', '/api/letters', {
      token: counselor.token,
      body: { id: crypto.randomUUID(), case_id: caseId, subject: 'Abschluss', body: 'Danke für die Gespräche.', published_at: new Date().toISOString() },
      headers: UPSERT,
    });
    expect(letter.status, JSON.stringify(letter.body)).toBe(201);
    await tick();
    expect(await trial.openTasks(caseId, 'counselingLetterTask')).toEqual([]);
    // The patient reads it.
    const read = await t.api('GET', `/api/letters?case_id=eq.${caseId}`, { token: patient.token });
    expect(read.body.map((l: { subject: string }) => l.subject)).toEqual(['Abschluss']);

    // Closing the counseling ends the patient's step with it and finishes the case.
    await trial.complete(caseId, 'closeCounselingTask', counselor.token);
    expect(await trial.openTasks(caseId)).toEqual([]);
    expect((await counselingInstance(caseId)).map((i) => i.state)).toEqual(['COMPLETED']);
    expect(await trial.stage(caseId)).toBe('finished');
    const { rows: ended } = await pool().query(
      `select task_definition_key, delete_reason from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'counselingPatientTask'`,
      [caseId],
    );
    expect(ended).toEqual([{ task_definition_key: 'counselingPatientTask', delete_reason: 'completed' }]);
  });

  it('a counselor reads the letter templates to write from', async () => {
    const answer = await t.api('GET', '/api/letter_templates', { token: counselor.token });
    expect(answer.status).toBe(200);
    const { rows } = await pool().query(`select count(*)::int as n from app_public.content_templates where type = 'LETTER'`);
    expect(answer.body.length).toBe(rows[0].n);
  });

  it('an accepted patient gets no counseling process', async () => {
    const { caseId } = await caseAtInterview();
    await trial.signedOutcome(caseId, interviewer, 'ptsd');
    await tick();
    expect(await counselingInstance(caseId)).toEqual([]);
  });
});

describe('assigning a counselor: one command, every role, own case and other case', () => {
  let cast: Cast;
  let newCounselor: Person;
  const TRIERS: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];

  beforeAll(async () => {
    cast = await castOfRoles(t);
    newCounselor = await t.user({ flags: ['counselor'] });
    // Both cases on their counseling path (the start door itself is tested above).
    for (const caseId of [cast.caseA, cast.caseB]) {
      await pool().query(`select app_hidden.request_workflow_start($1, 'counseling', 'counseling')`, [caseId]);
    }
    await tick();
    await trial.openTask(cast.caseA, 'assignCounselorTask');
  });

  for (const who of TRIERS) {
    it(`${who}: ${who === 'coordinator' ? 'assigns on any case' : 'is refused on own and other case, nothing changed'}`, async () => {
      const person = cast.people[who];
      for (const caseId of [cast.caseA, cast.caseB]) {
        const before = await caseState(caseId);
        const answer = await assign(caseId, newCounselor.id, person.token);
        if (who === 'coordinator') {
          expect(answer.status, JSON.stringify(answer.body)).toBe(204);
          continue;
        }
        expect(answer.status, `${who} on ${caseId === cast.caseA ? 'own' : 'other'} case`).toBe(403);
        expect(answer.body.error).toBe('not_coordinator');
        expect(JSON.stringify(answer.body)).not.toMatch(/app_hidden|case_members|violates/);
        expect(await caseState(caseId)).toEqual(before);
      }
    });
  }

  it('the assignment replaces the former counselor, who keeps any other role', async () => {
    // caseA had a counselor (the cast's) before; after the coordinator's assignment above only the new one acts as counselor.
    await tick();
    const { rows } = await pool().query('select user_id from app_public.case_members where case_id = $1 and acts_as_counselor', [cast.caseA]);
    expect(rows.map((r) => r.user_id)).toEqual([newCounselor.id]);
    expect(await trial.openTasks(cast.caseA, 'assignCounselorTask')).toEqual([]);
  });

  it('refuses what cannot be a counselor or a counseling case, with a code and nothing changed', async () => {
    const outside = await t.user({ flags: ['patient'] }); // a case not on its counseling path
    const cases: [string, string, number, string][] = [
      [cast.caseB, cast.people.therapist.id, 400, 'not_a_counselor'],
      [cast.caseB, cast.people.otherPatient.id, 400, 'not_a_counselor'],
      [cast.caseB, '00000000-0000-4000-8000-000000000000', 400, 'not_a_counselor'],
      [outside.caseId!, counselor.id, 409, 'not_in_counseling'],
      ['00000000-0000-4000-8000-000000000000', counselor.id, 404, 'case_not_found'],
      ['not-a-case', counselor.id, 404, 'case_not_found'],
      [cast.caseB, 'nobody', 400, 'not_a_counselor'],
    ];
    for (const [caseId, counselorId, status, code] of cases) {
      const before = /^[0-9a-f-]{36}$/.test(caseId) ? await caseState(caseId) : null;
      const answer = await assign(caseId, counselorId, coordinator.token);
      expect([answer.status, answer.body.error], `${caseId} ${counselorId}`).toEqual([status, code]);
      if (before) expect(await caseState(caseId)).toEqual(before);
    }
    const empty = await t.api('POST', `/api/counseling/cases/${cast.caseB}/counselor`, { token: coordinator.token, body: {} });
    expect([empty.status, empty.body.error]).toEqual([400, 'not_a_counselor']);
  });

  it('the membership list is no second door: a direct write of the counselor role is refused, nothing changed', async () => {
    const before = await caseState(cast.caseB);
    const created = await t.graphql(
      `mutation ($m: CaseMemberInput!) { createCaseMember(input: { caseMember: $m }) { caseMember { id } } }`,
      { m: { caseId: cast.caseB, userId: counselor.id, actsAsCounselor: true } },
      coordinator.token,
    );
    expect(created.errors?.[0]?.message ?? '').not.toMatch(/app_hidden|case_members|violates|row-level/);
    expect(created.errors?.length).toBeGreaterThan(0);
    expect(await caseState(cast.caseB)).toEqual(before);
    // Other roles are still managed in the list.
    const therapistAdded = await t.graphql(
      `mutation ($m: CaseMemberInput!) { createCaseMember(input: { caseMember: $m }) { caseMember { id } } }`,
      { m: { caseId: cast.caseB, userId: cast.people.supporter.id, actsAsSupporter: true } },
      coordinator.token,
    );
    expect(therapistAdded.errors).toBeUndefined();
  });

  it('the counselor list is for coordinators only', async () => {
    const list = await t.api('GET', '/api/counseling/counselors', { token: coordinator.token });
    expect(list.status).toBe(200);
    expect(list.body.map((c: { id: string }) => c.id)).toContain(newCounselor.id);
    expect(list.body.every((c: Record<string, unknown>) => Object.keys(c).sort().join() === 'alias,id,username')).toBe(true);
    for (const who of ['patient', 'therapist', 'counselor', 'outsider'] as const) {
      const answer = await t.api('GET', '/api/counseling/counselors', { token: cast.people[who].token });
      expect(answer.body, who).toEqual([]);
    }
  });
});
