/**
 * Treatment modules (issue 14 item 2) over real HTTP and a real database: a case whose treatment
 * is assigned gets the worksheets of its arm as patient tasks with the configured due dates;
 * sending a worksheet completes exactly its own task; nobody but a coordinator completes one by
 * hand (refusals change nothing); another arm gets its own set; a bad configuration is refused.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { loadConfig } from '../../src/server/config';
import { WORKSHEETS, type WorksheetCode } from '../../src/domain/worksheets';
import { startTestApp, type TestApp } from '../helpers/app';

const DAY = 24 * 3_600_000;
const MODULES = {
  armA: [
    { worksheet: 'cbt_thoughts', week: 1 },
    { worksheet: 'cbt_reframings', week: 2 },
  ],
  armB: [{ worksheet: 'ipt_conflicts', week: 3 }],
};

let t: TestApp;
let now = Date.now();
const clock = { now: () => new Date(now) };
type Person = Awaited<ReturnType<TestApp['user']>>;
let patientA: Person, patientB: Person, therapist: Person, coordinator: Person, otherPatient: Person;
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp({ TREATMENT_MODULES: JSON.stringify(MODULES) }, {}, { workflowClock: clock });
  patientA = await t.user({ flags: ['patient'] });
  patientB = await t.user({ flags: ['patient'] });
  otherPatient = await t.user({ flags: ['patient'] });
  therapist = await t.user({ flags: ['therapist'] });
  coordinator = await t.user({ flags: ['coordinator'] });
  await addMember(pool(), patientA.caseId!, therapist.username, ['therapist']);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** The treatment is assigned as the randomization does it (one final row), then the scheduler runs. */
async function assign(caseId: string, arm: string, at: Date): Promise<void> {
  // A fixture of an assignment the trial's randomization step would have made (the step's own door,
  // 0150's _050_in_step, is tested in one-door.int.test.ts).
  await pool().query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
  await pool().query(
    `insert into app_public.treatment_assignments (case_id, treatment, stratum, method, assigned_at) values ($1, $2, '*', 'blocks', $3)`,
    [caseId, arm, at],
  );
  await t.sanad.workflow.tick();
  await t.sanad.workflow.tick();
}

async function moduleTasks(caseId: string) {
  const { rows } = await pool().query(
    `select t.id, t.candidate_groups, t.due, t.end_time, t.delete_reason, i.variables -> 'worksheet' ->> 'value' as worksheet
       from app_public.workflow_tasks t join app_public.workflow_instances i on i.id = t.process_instance_id
      where t.case_id = $1 and i.definition_key = 'treatment-modules' order by t.due`,
    [caseId],
  );
  return rows as { id: string; candidate_groups: string[]; due: Date; end_time: Date | null; delete_reason: string | null; worksheet: string }[];
}

function filled(code: WorksheetCode, caseId: string): Record<string, unknown> {
  const row: Record<string, unknown> = { id: randomUUID(), case_id: caseId, published_at: new Date().toISOString() };
  for (const field of WORKSHEETS[code].fields) {
    row[field.name] = field.kind === 'scale' ? 7 : field.kind === 'choices' ? ['mind_reading'] : `${field.name} text`;
  }
  return row;
}

async function send(code: WorksheetCode, person: Person) {
  const answer = await t.api('POST', `/api/${code}`, {
    body: filled(code, person.caseId!),
    token: person.token,
    headers: { Prefer: 'resolution=merge-duplicates, return=representation' },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  await t.sanad.workflow.tick();
}

describe('treatment modules', () => {
  // Whole seconds: the start variable carries the assignment time to the second.
  const startA = new Date(Math.floor((Date.now() - DAY) / 1000) * 1000);
  const startB = new Date(Math.floor((Date.now() - 2 * DAY) / 1000) * 1000);

  it('gives a case of arm A its configured worksheet tasks for the patients, due at the end of their weeks', async () => {
    await assign(patientA.caseId!, 'armA', startA);
    const tasks = await moduleTasks(patientA.caseId!);
    expect(tasks.map((task) => task.worksheet)).toEqual(['cbt_thoughts', 'cbt_reframings']);
    expect(tasks.map((task) => task.due.getTime())).toEqual([startA.getTime() + 7 * DAY, startA.getTime() + 14 * DAY]);
    for (const task of tasks) {
      expect(task.candidate_groups).toEqual(['patients']);
      expect(task.end_time).toBeNull();
    }
    // Each task has its overdue reminder (a mail to the patient) timed at its due date.
    const { rows: timers } = await pool().query(
      `select j.due_date from app_public.workflow_jobs j join app_public.workflow_instances i on i.id = j.process_instance_id
        where i.case_id = $1 and i.definition_key = 'treatment-modules' and j.kind = 'timer' order by j.due_date`,
      [patientA.caseId],
    );
    expect(timers.map((row) => (row.due_date as Date).getTime())).toEqual(tasks.map((task) => task.due.getTime()));
  });

  it('gives a case of arm B its own set, and an arm without modules none', async () => {
    await assign(patientB.caseId!, 'armB', startB);
    const tasks = await moduleTasks(patientB.caseId!);
    expect(tasks.map((task) => [task.worksheet, task.due.getTime()])).toEqual([['ipt_conflicts', startB.getTime() + 21 * DAY]]);
    await assign(otherPatient.caseId!, 'armWithout', startB);
    expect(await moduleTasks(otherPatient.caseId!)).toEqual([]);
  });

  it('lets nobody but a coordinator complete a worksheet task by hand; a refusal changes nothing', async () => {
    const [task] = await moduleTasks(patientA.caseId!);
    for (const person of [patientA, therapist, patientB]) {
      const answer = await t.api('POST', `/api/workflow/rest/task/${task!.id}/complete`, { token: person.token, body: { variables: {} } });
      expect([403, 404], person.username).toContain(answer.status);
    }
    expect((await moduleTasks(patientA.caseId!)).every((row) => row.end_time === null)).toBe(true);
  });

  it('completes exactly the task of the sent worksheet; a sheet outside the arm is refused and completes nothing', async () => {
    // A sheet that is not one of the arm's is refused since arms own their content (0220), and completes nothing.
    const outOfArm = await t.api('POST', '/api/cbt_activities', { body: filled('cbt_activities', patientA.caseId!), token: patientA.token, headers: { Prefer: 'return=representation' } });
    expect(outOfArm.status, JSON.stringify(outOfArm.body)).toBe(403);
    await t.sanad.workflow.tick();
    expect((await moduleTasks(patientA.caseId!)).every((row) => row.end_time === null)).toBe(true);
    await send('cbt_reframings', patientA);
    const after = await moduleTasks(patientA.caseId!);
    expect(after.map((row) => [row.worksheet, row.delete_reason])).toEqual([
      ['cbt_thoughts', null],
      ['cbt_reframings', 'completed'],
    ]);
    // The other case's task is untouched by this case's worksheets.
    expect((await moduleTasks(patientB.caseId!))[0]!.end_time).toBeNull();
    await send('ipt_conflicts', patientB);
    expect((await moduleTasks(patientB.caseId!))[0]!.delete_reason).toBe('completed');
    expect((await moduleTasks(patientA.caseId!))[0]!.end_time).toBeNull();
  });

  it('lets a coordinator complete a worksheet task by hand (a worksheet done on paper)', async () => {
    const [task] = await moduleTasks(patientA.caseId!);
    const answer = await t.api('POST', `/api/workflow/rest/task/${task!.id}/complete`, { token: coordinator.token, body: { variables: {} } });
    expect(answer.status, JSON.stringify(answer.body)).toBe(204);
    expect((await moduleTasks(patientA.caseId!)).map((row) => row.delete_reason)).toEqual(['completed', 'completed']);
  });

  it('reminds the patient by mail when a worksheet task is overdue', async () => {
    const late = await t.user({ flags: ['patient'] });
    await assign(late.caseId!, 'armB', new Date(Math.floor(now / 1000) * 1000));
    const reminders = () => t.smtp.mails.filter((m) => m.to.includes(late.email.toLowerCase())).length;
    await t.sanad.workflow.tick();
    expect(reminders()).toBe(0);
    now += 22 * DAY;
    await t.sanad.workflow.tick();
    await t.smtp.waitFor(late.email);
    expect(reminders()).toBe(1);
    expect((await moduleTasks(late.caseId!))[0]!.end_time).toBeNull();
  });

  it('ends the open worksheet tasks when the patient drops out (the dropout message), and only that case\'s', async () => {
    const dropping = await t.user({ flags: ['patient'] });
    const staying = await t.user({ flags: ['patient'] });
    await assign(dropping.caseId!, 'armA', new Date(Math.floor(now / 1000) * 1000));
    await assign(staying.caseId!, 'armA', new Date(Math.floor(now / 1000) * 1000));
    expect((await moduleTasks(dropping.caseId!)).map((row) => row.end_time)).toEqual([null, null]);
    await pool().query('select app_hidden.notify_workflow($1, $2, $3)', [dropping.caseId, 'dropout', JSON.stringify({ askForPostIfDroppedOut: { value: false, type: 'Boolean' } })]);
    await t.sanad.workflow.tick();
    const ended = await moduleTasks(dropping.caseId!);
    expect(ended.map((row) => row.end_time !== null)).toEqual([true, true]);
    expect(ended.every((row) => row.delete_reason !== 'completed')).toBe(true);
    // Another case's worksheet tasks stay open.
    expect((await moduleTasks(staying.caseId!)).map((row) => row.end_time)).toEqual([null, null]);
  });

  it('refuses a bad configuration with a message naming the entry', () => {
    const load = (value: string) => () => loadConfig({ NODE_ENV: 'test', TREATMENT_MODULES: value });
    expect(load('{"a": [{"worksheet": "diary", "week": 1}]}')).toThrow(/unknown worksheet "diary"/);
    expect(load('{"a": [{"worksheet": "cbt_thoughts", "week": 0}]}')).toThrow(/"week" must be a whole number/);
    expect(load('{"a": [')).toThrow(/TREATMENT_MODULES is not valid JSON/);
    expect(load('/nowhere/modules.json')).toThrow(/does not exist/);
  });
});
