/**
 * Definition versions: a trial started on the flat trial (the version before the phases became
 * sub-processes, kept in test/fixtures/workflow-v1) keeps running on its own version after the
 * phased trial is deployed, while new cases start on the new version. The stored engine state
 * of a running instance belongs to its version, so a deploy never changes what it waits for.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withOwner } from '../../src/server/db/transaction';
import { deploy, readWorkflowFiles } from '../../src/server/workflow/definitions';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

const DAY = 86_400_000;
let t: TestApp;
let now = Date.parse('2027-03-01T09:00:00Z');
const clock = { now: () => new Date(now) };
let interviewer: Person;
let coordinator: Person;
const driver = trialDriver(() => t);
const { notify, complete } = driver;

beforeAll(async () => {
  t = await startTestApp({ WORKFLOWS_DIR: path.resolve(import.meta.dirname, '../fixtures/workflow-v1') }, {}, { workflowClock: clock });
  interviewer = await t.user({ flags: ['interviewer'] });
  coordinator = await t.user({ flags: ['coordinator'] });
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;

async function newTrialCase(): Promise<string> {
  return (await driver.newTrialCase([{ person: interviewer, roles: ['interviewer'] }])).caseId;
}

async function trial(caseId: string) {
  const { rows } = await pool().query(
    `select i.id, i.definition_version, i.state, c.stage,
            array(select t.task_definition_key from app_public.workflow_tasks t where t.process_instance_id = i.id and t.end_time is null order by 1) as open_tasks,
            array(select distinct h.activity_id from app_public.workflow_history h where h.process_instance_id = i.id order by 1) as activities
       from app_public.workflow_instances i join app_public.cases c on c.id = i.case_id
      where i.case_id = $1 and i.business_key = 'trial'`,
    [caseId],
  );
  return rows[0] as { id: string; definition_version: number; state: string; stage: string; open_tasks: string[]; activities: string[] };
}

describe('a new trial version', () => {
  it('leaves running instances on their version and starts new ones on the newest', async () => {
    const oldCase = await newTrialCase();
    await notify(oldCase, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' } });
    const before = await trial(oldCase);
    expect(before).toMatchObject({ definition_version: 1, stage: 'interview', open_tasks: ['bookTask'] });

    const deployed = await withOwner(pool(), (sql) => deploy(sql, readWorkflowFiles(path.resolve(import.meta.dirname, '../../workflows'))));
    // Other process files (the safety process) deploy beside it; the trial gets its second version.
    expect(deployed.filter((d) => d.key === 'trial')).toEqual([{ key: 'trial', version: 2, created: true }]);

    // The old instance goes on through its own (flat) definition: its booking, interview,
    // randomization and pre steps, and its timers.
    await notify(oldCase, 'interviewBooked', { offerId: { value: 'o1', type: 'String' }, startsAt: { value: new Date(now + DAY).toISOString(), type: 'Date' } });
    expect((await trial(oldCase)).open_tasks).toEqual(['interviewTask']);
    await driver.signedOutcome(oldCase, interviewer, 'ptsd');
    const after = await trial(oldCase);
    expect(after).toMatchObject({ id: before.id, definition_version: 1, state: 'ACTIVE', open_tasks: ['randomizeTask'] });
    // Elements that only the flat version has: no phase sub-processes.
    expect(after.activities).toContain('bookMerge');
    expect(after.activities).not.toContain('booking');

    // A new case starts on version 2, whose phases are sub-processes.
    const newCase = await newTrialCase();
    const fresh = await trial(newCase);
    expect(fresh).toMatchObject({ definition_version: 2, stage: 'screening', open_tasks: ['screeningTask'] });
    expect(fresh.activities).toContain('screening');
    await notify(newCase, 'screeningCompleted', { excluded: { value: true, type: 'Boolean' } });
    expect(await trial(newCase)).toMatchObject({ definition_version: 2, state: 'COMPLETED', stage: 'excluded' });

    // The old instance goes on to its pre questionnaires, whose reminder timer fires there.
    // The randomization draws the arm from the trial's concealed allocation, on the old version too.
    const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] } });
    expect(allocation.status).toBe(201);
    await complete(oldCase, 'randomizeTask', coordinator.token);
    expect(await trial(oldCase)).toMatchObject({ definition_version: 1, stage: 'treatment', open_tasks: ['preTask'] });
    now += 8 * DAY;
    await t.sanad.workflow.tick();
    const reminded = await trial(oldCase);
    expect(reminded.activities).toEqual(expect.arrayContaining(['preMerge', 'preReminderMail']));
    expect(reminded.open_tasks).toEqual(['preTask']);
  });
});
