/**
 * A treatment that ends normally ends the worksheet tasks it assigned (issue 14): the trial's
 * treatment phase completes, its service task `treatmentModulesEnd` queues `treatmentEnded`,
 * and the open worksheet tasks of that case (workflows/treatment-modules.bpmn) end; a case still
 * in treatment keeps its own. Nobody may send `treatmentEnded` by hand (a refusal changes nothing).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

const MODULES = {
  a: [
    { worksheet: 'cbt_thoughts', week: 1 },
    { worksheet: 'cbt_reframings', week: 2 },
  ],
  b: [
    { worksheet: 'ipt_relationships', week: 1 },
    { worksheet: 'ipt_conflicts', week: 2 },
  ],
};

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, therapist: Person, interviewer: Person;
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp({ TREATMENT_MODULES: JSON.stringify(MODULES) });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  const allocation = await t.api('POST', '/api/trial/allocation', {
    token: coordinator.token,
    body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] },
  });
  expect(allocation.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** Registration to the treatment phase: screened in, interviewed, randomized, pre done. */
async function caseInTreatment(): Promise<{ patient: Person; caseId: string }> {
  const started = await trial.newTrialCase([
    { person: therapist, roles: ['therapist'] },
    { person: interviewer, roles: ['interviewer'] },
  ]);
  await trial.advance(started.caseId, 'treatment', { interviewer, coordinator });
  return started;
}

async function worksheetTasks(caseId: string) {
  const { rows } = await pool().query(
    `select t.end_time, t.delete_reason from app_public.workflow_tasks t join app_public.workflow_instances i on i.id = t.process_instance_id
      where t.case_id = $1 and i.definition_key = 'treatment-modules' order by t.due`,
    [caseId],
  );
  return rows as { end_time: Date | null; delete_reason: string | null }[];
}

describe('the end of the treatment ends the worksheet tasks', () => {
  let closing: { patient: Person; caseId: string };
  let running: { patient: Person; caseId: string };

  beforeAll(async () => {
    closing = await caseInTreatment();
    running = await caseInTreatment();
  }, 120_000);

  it('assigns worksheet tasks to both cases in treatment', async () => {
    for (const c of [closing, running]) expect((await worksheetTasks(c.caseId)).map((task) => task.end_time)).toEqual([null, null]);
  });

  it('lets nobody send treatmentEnded by hand; a refusal changes nothing', async () => {
    for (const person of [therapist, coordinator, closing.patient]) {
      const answer = await t.api('POST', '/api/workflow/rest/message', {
        token: person.token,
        body: { messageName: 'treatmentEnded', businessKey: 'cbt_thoughts', processVariables: {}, all: true },
      });
      expect([403, 404], `${person.username}: ${JSON.stringify(answer.body)}`).toContain(answer.status);
    }
    await t.sanad.workflow.tick();
    for (const c of [closing, running]) expect((await worksheetTasks(c.caseId)).every((task) => task.end_time === null)).toBe(true);
  });

  it('ends the treatment when the therapist closes it: the patient\'s session task completes with it (issue 25)', async () => {
    await trial.openTask(closing.caseId, 'patientTreatmentTask');
    await trial.complete(closing.caseId, 'therapistTreatmentTask', therapist.token);
    await t.sanad.workflow.tick();
    // Nobody closes the patient's "work through the treatment sessions" by hand any more.
    expect(await trial.openTasks(closing.caseId, 'patientTreatmentTask')).toEqual([]);
    const { rows } = await pool().query(
      `select delete_reason from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'patientTreatmentTask'`,
      [closing.caseId],
    );
    expect(rows).toEqual([{ delete_reason: 'completed' }]);
  });

  it('ends the open worksheet tasks of the case whose treatment phase completed, and only of that case', async () => {
    await trial.openTask(closing.caseId, 'postTask');
    const ended = await worksheetTasks(closing.caseId);
    expect(ended.map((task) => task.end_time !== null)).toEqual([true, true]);
    // Ended, not done: the patient did not send them.
    expect(ended.every((task) => task.delete_reason !== 'completed')).toBe(true);
    expect((await worksheetTasks(running.caseId)).map((task) => task.end_time)).toEqual([null, null]);
    expect(await trial.stage(closing.caseId)).toBe('post');
  });
});
