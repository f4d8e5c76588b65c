/**
 * "After randomization a coordinator task 'assign a therapist' opens" (issue 26): a case drawn
 * without a therapist gets the task (workflows/therapist-assignment.bpmn, started by 0215); a
 * case that has one does not; completing the task makes the chosen therapist account the case's
 * therapist through the one command app_hidden.assign_therapist; a therapist added through the
 * case's member list closes it too. The role matrix: only a coordinator completes it, for every
 * other role of the case, of the other case and outside, and a refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast, type CastMember } from '../helpers/people';
import { trialDriver, typed, type Person } from '../helpers/trial';

let t: TestApp;
let cast: Cast;
const trial = trialDriver(() => t);
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  cast = await castOfRoles(t);
  const allocation = await t.api('POST', '/api/trial/allocation', {
    token: cast.people.coordinator.token,
    body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] },
  });
  expect(allocation.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function assignTask(caseId: string) {
  const { rows } = await pool().query<{ id: string; candidate_groups: string[]; end_time: Date | null }>(
    `select id, candidate_groups, end_time from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'assignTherapistTask' order by created`,
    [caseId],
  );
  return rows;
}

async function therapistsOf(caseId: string): Promise<string[]> {
  const { rows } = await pool().query<{ user_id: string }>('select user_id from app_public.case_members where case_id = $1 and acts_as_therapist order by user_id', [caseId]);
  return rows.map((r) => r.user_id);
}

/** A new patient's case, randomized, with an interviewer and (unless said) no therapist. */
async function randomizedCase(members: { person: Person; roles: ('therapist' | 'interviewer')[] }[] = []) {
  const interviewer = cast.people.interviewer;
  const started = await trial.newTrialCase([{ person: interviewer, roles: ['interviewer'] }, ...members]);
  await trial.advance(started.caseId, 'pre', { interviewer, coordinator: cast.people.coordinator });
  await t.sanad.workflow.tick();
  return started.caseId;
}

describe('assign a therapist after randomization', () => {
  it('opens for the coordinators when the drawn case has no therapist; completing it assigns the chosen therapist', async () => {
    const caseId = await randomizedCase();
    const [task] = await assignTask(caseId);
    expect(task).toMatchObject({ candidate_groups: ['coordinators'], end_time: null });
    expect(await therapistsOf(caseId)).toEqual([]);

    // Not a therapist account: refused by the one command, nothing changes.
    const wrong = await trial.submit(task!.id, cast.people.coordinator.token, { therapist: typed.string(cast.people.supporter.id) });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ code: 'not_a_therapist' });
    const notAnId = await trial.submit(task!.id, cast.people.coordinator.token, { therapist: typed.string('Dr. Smith') });
    expect(notAnId.status).toBe(400);
    expect(await therapistsOf(caseId)).toEqual([]);
    expect((await assignTask(caseId))[0]!.end_time).toBeNull();

    const done = await trial.submit(task!.id, cast.people.coordinator.token, { therapist: typed.string(cast.people.otherTherapist.id) });
    expect(done.status).toBe(204);
    await t.sanad.workflow.tick();
    expect(await therapistsOf(caseId)).toEqual([cast.people.otherTherapist.id]);
    expect((await assignTask(caseId))[0]!.end_time).not.toBeNull();
  });

  it('does not open when the case has a therapist at the draw', async () => {
    const caseId = await randomizedCase([{ person: cast.people.otherTherapist, roles: ['therapist'] }]);
    expect(await assignTask(caseId)).toEqual([]);
  });

  it('closes when a therapist joins the case through its member list', async () => {
    const caseId = await randomizedCase();
    expect((await assignTask(caseId))[0]!.end_time).toBeNull();
    const added = await t.graphql(
      `mutation($caseId: UUID!, $userId: UUID!) { createCaseMember(input: { caseMember: { caseId: $caseId, userId: $userId, actsAsTherapist: true } }) { caseMember { id } } }`,
      { caseId, userId: cast.people.otherTherapist.id },
      cast.people.coordinator.token,
    );
    expect(added.errors).toBeUndefined();
    await t.sanad.workflow.tick();
    expect((await assignTask(caseId))[0]!.end_time).not.toBeNull();
  });

  it('role matrix: only a coordinator completes it; every refusal changes nothing', async () => {
    // The task on case A (which has every role) and on case B, opened as the draw opens it.
    for (const caseId of [cast.caseA, cast.caseB]) {
      await pool().query(`select app_hidden.request_workflow_start($1, 'therapist-assignment', null, '{"treatment": "a"}')`, [caseId]);
    }
    await t.sanad.workflow.tick();
    const taskA = (await assignTask(cast.caseA))[0]!;
    const taskB = (await assignTask(cast.caseB))[0]!;
    const chosen = cast.people.outsider.id; // holds a therapist account, in neither case
    const refused: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider', 'otherPatient', 'otherTherapist'];
    for (const who of refused) {
      for (const task of [taskA, taskB]) {
        const answer = await trial.submit(task.id, cast.people[who].token, { therapist: typed.string(chosen) });
        expect([403, 404], `${who} on ${task === taskA ? 'case A' : 'case B'}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
      }
      expect(await therapistsOf(cast.caseA)).toEqual([cast.people.therapist.id]);
      expect(await therapistsOf(cast.caseB)).toEqual([cast.people.otherTherapist.id]);
      expect((await assignTask(cast.caseA))[0]!.end_time).toBeNull();
      expect((await assignTask(cast.caseB))[0]!.end_time).toBeNull();
    }
    for (const task of [taskA, taskB]) {
      const answer = await trial.submit(task.id, cast.people.coordinator.token, { therapist: typed.string(chosen) });
      expect(answer.status).toBe(204);
    }
    expect(await therapistsOf(cast.caseA)).toEqual([cast.people.therapist.id, chosen].sort());
    expect(await therapistsOf(cast.caseB)).toEqual([cast.people.otherTherapist.id, chosen].sort());
  });
});
