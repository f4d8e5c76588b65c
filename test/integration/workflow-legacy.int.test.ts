/**
 * Instances whose stored state bpmn-engine wrote (every instance started before Sanad's own
 * interpreter) keep running on bpmn-engine until they end, through the same routes, outbox and
 * scheduler as every other instance, while new instances start on the interpreter. The query
 * of docs/WORKFLOW.md ("Two runners") counts the instances still on bpmn-engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { runStep } from '../../src/server/workflow/engine';
import { advanceLegacy } from '../../src/server/workflow/engine-legacy';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

const DAY = 86_400_000;
let t: TestApp;
const { notify, signedOutcome } = trialDriver(() => t);
let now = Date.parse('2027-05-03T09:00:00Z');
const clock = { now: () => new Date(now) };
type Person = Awaited<ReturnType<TestApp['user']>>;
let interviewer: Person;

/** The instances still in bpmn-engine's format (docs/WORKFLOW.md "Two runners"). */
const LEGACY_STATES = `select count(*)::int as n from app_private.workflow_engine_states where state->>'engine' is distinct from 'sanad'`;

beforeAll(async () => {
  t = await startTestApp({}, {}, { workflowClock: clock });
  interviewer = await t.user({ flags: ['interviewer'] });
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;

async function newCase(): Promise<string> {
  const patient = await t.user({ flags: ['patient'] });
  await addMember(pool(), patient.caseId!, interviewer.username, ['interviewer']);
  return patient.caseId!;
}

/** Starts the trial of a case on bpmn-engine, as the server did before the interpreter. */
async function startOnBpmnEngine(caseId: string): Promise<string> {
  const host = t.sanad.workflow.host;
  return withOwner(pool(), async (sql) => {
    const def = (await host.latestDefinition(sql, 'trial'))!;
    const variables = { caseId: { value: caseId, type: 'String' as const } };
    const { rows } = await sql.query<{ id: string }>(
      `insert into app_public.workflow_instances (definition_key, definition_version, business_key, case_id, start_time, variables)
       values ('trial', $1, 'trial', $2, $3, $4) returning id`,
      [def.version, caseId, clock.now(), JSON.stringify(variables)],
    );
    const id = rows[0]!.id;
    const settings = { sql, clock, handlers: host.handlers, maxAttempts: host.maxAttempts, retryBaseMs: host.retryBaseMs };
    const record = { id, caseId, businessKey: 'trial', variables, engineState: null, step: 0, openTasks: [], jobs: [] };
    await runStep(settings, def, record, { kind: 'start' }, advanceLegacy);
    return id;
  });
}

async function instance(caseId: string) {
  const { rows } = await pool().query(
    `select i.id, i.state, c.stage, s.state->>'engine' as engine,
            array(select t.task_definition_key from app_public.workflow_tasks t where t.process_instance_id = i.id and t.end_time is null order by 1) as open_tasks,
            array(select distinct h.activity_id from app_public.workflow_history h where h.process_instance_id = i.id order by 1) as activities
       from app_public.workflow_instances i join app_public.cases c on c.id = i.case_id
       left join app_private.workflow_engine_states s on s.instance_id = i.id
      where i.case_id = $1 and i.business_key = 'trial'`,
    [caseId],
  );
  return rows[0] as { id: string; state: string; stage: string; engine: string | null; open_tasks: string[]; activities: string[] };
}

describe('instances stored by bpmn-engine', () => {
  it('are carried on by bpmn-engine to their end while new instances run on the interpreter', async () => {
    const oldCase = await newCase();
    const oldId = await startOnBpmnEngine(oldCase);
    expect(await instance(oldCase)).toMatchObject({ id: oldId, state: 'ACTIVE', stage: 'screening', engine: null, open_tasks: ['screeningTask'] });
    expect((await pool().query(LEGACY_STATES)).rows[0].n).toBe(1);

    // A new case starts on the interpreter beside it.
    const newCaseId = await newCase();
    await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [newCaseId]);
    await t.sanad.workflow.tick();
    expect(await instance(newCaseId)).toMatchObject({ state: 'ACTIVE', stage: 'screening', engine: 'sanad', open_tasks: ['screeningTask'] });

    // The old instance's reminder timer fires on bpmn-engine; the task stays open.
    now += 8 * DAY;
    await t.sanad.workflow.tick();
    const reminded = await instance(oldCase);
    expect(reminded.activities).toContain('screeningReminderMail');
    expect(reminded).toMatchObject({ engine: null, open_tasks: ['screeningTask'] });

    // Messages from the features and a task completed through the REST route move it on.
    await notify(oldCase, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' } });
    expect(await instance(oldCase)).toMatchObject({ engine: null, stage: 'interview', open_tasks: ['bookTask'] });
    await notify(oldCase, 'interviewBooked', { offerId: { value: 'o1', type: 'String' }, startsAt: { value: new Date(now + DAY).toISOString(), type: 'Date' } });
    expect(await instance(oldCase)).toMatchObject({ engine: null, open_tasks: ['interviewTask'] });
    const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'interviewTask' and end_time is null`, [oldCase]);
    // The old definition still declares the outcome field, yet no person completes the task
    // (issue 27); the signed report's server door moves it on the legacy engine too.
    const submitted = await t.api('POST', `/api/workflow/rest/task/${rows[0].id}/submit-form`, { token: interviewer.token, body: { variables: { outcome: { value: 'rejected', type: 'String' } } } });
    expect(submitted.status).toBe(403);
    await signedOutcome(oldCase, interviewer, 'rejected');
    expect(await instance(oldCase)).toMatchObject({ id: oldId, state: 'COMPLETED', stage: 'rejected', engine: null, open_tasks: [] });

    // Nothing is left on bpmn-engine: the query says the legacy runner could go.
    expect((await pool().query(LEGACY_STATES)).rows[0].n).toBe(0);
    expect(await instance(newCaseId)).toMatchObject({ engine: 'sanad', open_tasks: ['screeningTask'] });
  });
});
