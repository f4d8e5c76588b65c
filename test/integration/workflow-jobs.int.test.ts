/**
 * The scheduler fires due jobs in batches (host.ts `fireDueJobs`): every due timer fires once,
 * a second round fires nothing, and an instance whose step fails does not hold back the others
 * of its batch (it stays due and the failure is logged). Two server processes on PostgreSQL
 * and a kill in the middle are in workflow-reliability.int.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';

const DAY = 86_400_000;
let t: TestApp;
let now = Date.parse('2027-06-07T09:00:00Z');
const clock = { now: () => new Date(now) };

beforeAll(async () => {
  t = await startTestApp({}, {}, { workflowClock: clock });
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;

async function startTrials(count: number): Promise<string[]> {
  const cases: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const patient = await t.user({ flags: ['patient'] });
    await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);
    cases.push(patient.caseId!);
  }
  await t.sanad.workflow.tick();
  return cases;
}

async function reminders(cases: string[]): Promise<Record<string, number>> {
  const { rows } = await pool().query(
    `select c.id, (select count(*)::int from app_public.workflow_history h where h.case_id = c.id and h.activity_id = 'screeningReminderMail') as n
       from app_public.cases c where c.id = any ($1)`,
    [cases],
  );
  return Object.fromEntries(rows.map((r: { id: string; n: number }) => [r.id, r.n]));
}

describe('due jobs in batches', () => {
  it('fires each due timer once, in batches, and a second round fires nothing', async () => {
    const cases = await startTrials(25);
    now += 8 * DAY;
    const first = await t.sanad.workflow.tick();
    expect(first.jobs).toBe(25);
    expect(Object.values(await reminders(cases))).toEqual(Array(25).fill(1));
    const second = await t.sanad.workflow.tick();
    expect(second.jobs).toBe(0);
    expect(Object.values(await reminders(cases))).toEqual(Array(25).fill(1));
    // Every screening task is still open (the reminder does not interrupt it), and no job is left.
    const { rows } = await pool().query(
      `select (select count(*)::int from app_public.workflow_tasks where case_id = any ($1) and task_definition_key = 'screeningTask' and end_time is null) as open,
              (select count(*)::int from app_public.workflow_jobs where case_id = any ($1)) as jobs`,
      [cases],
    );
    expect(rows[0]).toEqual({ open: 25, jobs: 0 });
  });

  it('a step that fails does not hold back the other jobs of its batch', async () => {
    const cases = await startTrials(4);
    const broken = cases[1]!;
    // A stored state that names an activity its definition does not hold: its step throws.
    await pool().query(
      `update app_private.workflow_engine_states s
          set state = jsonb_set(s.state, '{executions,0,activityId}', '"noSuchActivity"')
         from app_public.workflow_instances i where i.id = s.instance_id and i.case_id = $1`,
      [broken],
    );
    now += 8 * DAY;
    await t.sanad.workflow.tick();
    const fired = await reminders(cases);
    expect(fired).toEqual({ [cases[0]!]: 1, [broken]: 0, [cases[2]!]: 1, [cases[3]!]: 1 });
    // The broken instance's job is still there and due: it is neither lost nor marked done.
    const { rows } = await pool().query(`select count(*)::int as n from app_public.workflow_jobs where case_id = $1 and activity_id = 'screeningReminder'`, [broken]);
    expect(rows[0].n).toBe(1);
  });
});
