/**
 * Who may move a case (issue 11, db/migrations/0020): every role × every workflow call × own
 * case / other case, allowed or denied. After each refusal the workflow tables of both cases
 * (instances, variables, tasks, jobs, history, engine state) are exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner, withOwnerAs } from '../../src/server/db/transaction';
import { completeTaskAsServer } from '../../src/server/workflow/commands';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

const BASE = '/api/workflow/rest';
type Person = Awaited<ReturnType<TestApp['user']>>;
const ROLES = ['patient', 'therapist', 'interviewer', 'supervisor', 'supporter', 'counselor', 'coordinator', 'outsider'] as const;
type Role = (typeof ROLES)[number];
type Stage = 'none' | 'screening' | 'booking' | 'interview' | 'treatment';

let t: TestApp;
const { notify } = trialDriver(() => t);
const people = {} as Record<Role, Person>;
let caseA: string; // "own": every role but coordinator and outsider is a member of it
let caseB: string; // "other": its own patient and therapist only
let otherStaff: Person;

beforeAll(async () => {
  t = await startTestApp();
  const patientA = await t.user({ flags: ['patient'] });
  const patientB = await t.user({ flags: ['patient'] });
  caseA = patientA.caseId!;
  caseB = patientB.caseId!;
  people.patient = patientA;
  for (const role of ['therapist', 'interviewer', 'supervisor', 'supporter', 'counselor'] as const) {
    const flag = role === 'counselor' ? 'therapist' : role;
    people[role] = await t.user({ flags: [flag] });
    await addMember(t.database.db.pool, caseA, people[role].username, [role]);
  }
  people.coordinator = await t.user({ flags: ['coordinator'] });
  people.outsider = await t.user({ flags: ['therapist'] });
  otherStaff = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, caseB, otherStaff.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;
const host = () => t.sanad.workflow.host;


/** A fresh trial of the case at a stage, driven as the server's features drive it. */
async function prepare(caseId: string, stage: Stage): Promise<void> {
  await withOwner(pool(), async (sql) => {
    const { rows } = await sql.query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
    for (const row of rows) await host().terminateInTx(sql, row.id);
    if (stage === 'none') return;
    await host().startInTx(sql, { key: 'trial', caseId, businessKey: 'trial', variables: {} });
  });
  if (stage === 'none' || stage === 'screening') return;
  await notify(caseId, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' } });
  if (stage === 'booking') return;
  await notify(caseId, 'interviewBooked', {
    offerId: { value: `offer-${caseId}`, type: 'String' },
    startsAt: { value: '2030-01-01T10:00:00Z', type: 'Date' },
  });
  if (stage === 'interview') return;
  // Internal completions (the interview report, the randomization) bypass people's rules.
  await withOwnerAs(pool(), people.coordinator.id, async (sql) => {
    expect(await completeTaskAsServer(sql, host(), { caseId, taskDefinitionKey: 'interviewTask', variables: { outcome: { value: 'ptsd', type: 'String' } } })).toBe(true);
    expect(await completeTaskAsServer(sql, host(), { caseId, taskDefinitionKey: 'randomizeTask', variables: { treatment: { value: 'A', type: 'String' } } })).toBe(true);
  });
  await notify(caseId, 'preMeasurementCompleted', {});
}

/** Everything the workflow holds about both cases. */
async function snapshot(): Promise<unknown> {
  const cases = [caseA, caseB];
  const q = async (text: string) => (await pool().query(text, [cases])).rows;
  return {
    instances: await q(
      `select id, state, end_time, variables, waiting_messages, waiting_signals, waiting_executions from app_public.workflow_instances where case_id = any ($1) order by id`,
    ),
    engine: await q(`select s.instance_id, s.step from app_private.workflow_engine_states s join app_public.workflow_instances i on i.id = s.instance_id where i.case_id = any ($1) order by 1`),
    tasks: await q(`select id, end_time, delete_reason, completed_by from app_public.workflow_tasks where case_id = any ($1) order by id`),
    jobs: await q(`select id, due_date, attempts, failed_at from app_public.workflow_jobs where case_id = any ($1) order by id`),
    history: await q(`select id, end_time from app_public.workflow_history where case_id = any ($1) order by id`),
    stage: await q(`select id, stage from app_public.cases where id = any ($1) order by id`),
  };
}

async function instanceOf(caseId: string): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
  return rows[0].id;
}
async function taskOf(caseId: string, key: string): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = $2 and end_time is null`, [caseId, key]);
  expect(rows[0], `open ${key}`).toBeDefined();
  return rows[0].id;
}
async function jobOf(caseId: string): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_jobs where case_id = $1 order by created limit 1`, [caseId]);
  return rows[0].id;
}

interface Call {
  name: string;
  stage: Stage;
  /** Roles allowed on their own case; coordinators are allowed on every case. */
  allowed: readonly Role[];
  run(person: Person, caseId: string): Promise<{ status: number; body: any }>;
  /** A success answers this status (and, for messages, one correlated instance). */
  success: number;
  /** Whether a success changes nothing (reads), so the case needs no fresh state after it. */
  readOnly?: boolean;
}

const api = (method: string, path: string, person: Person, body?: unknown) => t.api(method, `${BASE}${path}`, { token: person.token, body });
const message = (messageName: string, extra: Record<string, unknown> = {}) => async (person: Person, caseId: string) =>
  api('POST', '/message', person, { messageName, processInstanceId: await instanceOf(caseId), businessKey: 'trial', ...extra });
const complete = (key: string, variables: Record<string, unknown> = {}) => async (person: Person, caseId: string) =>
  api('POST', `/task/${await taskOf(caseId, key)}/complete`, person, { variables });

const CALLS: Call[] = [
  {
    name: 'start the trial',
    stage: 'none',
    allowed: ['coordinator'],
    success: 200,
    run: async (person, caseId) => {
      return api('POST', '/process-definition/key/trial/start', person, { businessKey: 'trial', variables: { caseId: { value: caseId, type: 'String' } } });
    },
  },
  { name: 'delete the instance', stage: 'screening', allowed: ['coordinator'], success: 204, run: async (p, c) => api('DELETE', `/process-instance/${await instanceOf(c)}`, p) },
  {
    name: 'message screeningCompleted',
    stage: 'screening',
    allowed: [],
    success: 200,
    run: message('screeningCompleted', { processVariables: { excluded: { value: false, type: 'Boolean' } } }),
  },
  {
    name: 'message interviewBooked',
    stage: 'screening',
    allowed: [],
    success: 200,
    run: message('interviewBooked', { processVariables: { offerId: { value: 'forged', type: 'String' } } }),
  },
  {
    name: 'message offerCanceled',
    stage: 'interview',
    allowed: ['interviewer', 'coordinator'],
    success: 200,
    run: async (p, c) => message('offerCanceled', { correlationKeys: { offerId: { value: `offer-${c}`, type: 'String' } } })(p, c),
  },
  {
    name: 'message dropout',
    stage: 'treatment',
    allowed: ['therapist', 'supervisor', 'coordinator'],
    success: 200,
    run: message('dropout', { processVariables: { askForPostIfDroppedOut: { value: false, type: 'Boolean' } } }),
  },
  {
    name: 'message dropout with a process setting',
    stage: 'treatment',
    allowed: [],
    success: 200,
    run: message('dropout', { processVariables: { fu1After: { value: 'PT1S', type: 'String' } } }),
  },
  { name: 'message preMeasurementCompleted', stage: 'treatment', allowed: [], success: 200, run: message('preMeasurementCompleted') },
  { name: 'signal', stage: 'screening', allowed: ['coordinator'], success: 204, readOnly: true, run: (p) => api('POST', '/signal', p, { name: 'anySignal' }) },
  // The questionnaires complete it; a coordinator may by hand.
  { name: 'complete the screening task', stage: 'screening', allowed: ['coordinator'], success: 204, run: complete('screeningTask') },
  { name: 'complete the booking task', stage: 'booking', allowed: ['patient', 'coordinator'], success: 204, run: complete('bookTask') },
  {
    name: 'complete a task with treatmentDuration',
    stage: 'booking',
    allowed: [],
    success: 204,
    run: complete('bookTask', { treatmentDuration: { value: 'PT1S', type: 'String' }, fu1After: { value: 'PT1S', type: 'String' } }),
  },
  {
    // Nobody: the outcome is set only by signing the interview report (issue 27).
    name: 'complete the interview task',
    stage: 'interview',
    allowed: [],
    success: 204,
    run: complete('interviewTask', { outcome: { value: 'later', type: 'String' } }),
  },
  { name: 'complete the therapist task', stage: 'treatment', allowed: ['therapist', 'coordinator'], success: 204, run: complete('therapistTreatmentTask') },
  { name: 'complete the patient treatment task', stage: 'treatment', allowed: ['patient', 'coordinator'], success: 204, run: complete('patientTreatmentTask') },
  {
    name: 'signal an execution',
    stage: 'screening',
    allowed: ['coordinator'],
    success: 204,
    run: async (p, c) => {
      const { rows } = await pool().query(`select waiting_executions from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [c]);
      return api('POST', `/execution/${rows[0].waiting_executions[0]}/signal`, p, {});
    },
  },
  {
    name: 'move a job',
    stage: 'screening',
    allowed: ['therapist', 'supervisor', 'coordinator'],
    success: 204,
    run: async (p, c) => api('PUT', `/job/${await jobOf(c)}/duedate`, p, { duedate: '2031-01-01T00:00:00.000+0000' }),
  },
  {
    name: 'retry a job',
    stage: 'screening',
    allowed: ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator'],
    success: 204,
    run: async (p, c) => api('PUT', `/job/${await jobOf(c)}/retries`, p, { retries: 0 }),
  },
  {
    name: 'read process variables',
    stage: 'screening',
    allowed: ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator'],
    success: 200,
    readOnly: true,
    run: async (p, c) => api('GET', `/process-instance/${await instanceOf(c)}/variables`, p),
  },
];

/** Whether a person of this role may make the call on their own case / on the other case. */
function expected(call: Call, role: Role, own: boolean): boolean {
  if (role === 'coordinator') return call.allowed.includes('coordinator');
  return own && role !== 'outsider' && call.allowed.includes(role);
}

describe('workflow authorization: every role × every call × own case / other case', () => {
  for (const call of CALLS) {
    it(call.name, async () => {
      const table: string[] = [];
      for (const own of [true, false]) {
        const caseId = own ? caseA : caseB;
        await prepare(caseA, call.stage);
        await prepare(caseB, call.stage);
        for (const role of ROLES) {
          if (role === 'outsider' && own) continue; // an outsider has no own case
          const allow = expected(call, role, own);
          const before = await snapshot();
          const response = await call.run(people[role], caseId);
          const moved = JSON.stringify(await snapshot()) !== JSON.stringify(before);
          table.push(`${role}/${own ? 'own' : 'other'}: ${response.status}${moved ? ' moved' : ''}`);
          if (allow) {
            expect(response.status, `${call.name}: ${role} on ${own ? 'own' : 'other'} case may (${JSON.stringify(response.body)})`).toBe(call.success);
            if (Array.isArray(response.body)) expect(response.body, `${call.name}: ${role} reaches the instance`).toHaveLength(1);
            if (!call.readOnly) await prepare(caseId, call.stage);
          } else {
            const refused = response.status >= 400 || (response.status === 200 && Array.isArray(response.body) && response.body.length === 0);
            expect(refused, `${call.name}: ${role} on ${own ? 'own' : 'other'} case is refused (${response.status} ${JSON.stringify(response.body)})`).toBe(true);
            if (response.status >= 400) expect(response.body).toEqual({ type: expect.any(String), message: expect.any(String) });
            expect(moved, `${call.name}: a refusal of ${role} changed nothing`).toBe(false);
          }
        }
      }
      expect(table.length).toBe(15);
    });
  }
});

describe('refusals say why', () => {
  it('the server’s messages, undeclared form fields and another role’s task', async () => {
    await prepare(caseA, 'screening');
    const forged = await message('screeningCompleted')(people.patient, caseA);
    expect(forged).toMatchObject({ status: 403, body: { type: 'AuthorizationException', message: expect.stringContaining('questionnaires send this message') } });
    const dropout = await api('POST', '/message', people.patient, { messageName: 'dropout' });
    expect(dropout).toMatchObject({ status: 403, body: { message: expect.stringContaining('therapists and supervisors') } });
    const own = await complete('screeningTask')(people.patient, caseA);
    expect(own).toMatchObject({ status: 403, body: { type: 'AuthorizationException', message: expect.stringContaining('screening questionnaires are complete') } });
    // The task screens' mayComplete says the same.
    const answer = await t.graphql(`{ allWorkflowTasks(condition: { endTime: null }) { nodes { taskDefinitionKey mayComplete } } }`, {}, people.patient.token);
    expect(answer.data.allWorkflowTasks.nodes).toEqual([{ taskDefinitionKey: 'screeningTask', mayComplete: false }]);
    const staff = await t.graphql(`{ allWorkflowTasks(condition: { endTime: null, caseId: "${caseA}" }) { nodes { taskDefinitionKey mayComplete } } }`, {}, people.coordinator.token);
    expect(staff.data.allWorkflowTasks.nodes).toEqual([{ taskDefinitionKey: 'screeningTask', mayComplete: true }]);
    void otherStaff;
  });
});
