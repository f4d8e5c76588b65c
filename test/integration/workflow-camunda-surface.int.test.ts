/**
 * The Camunda 7 surface real clients use (issue 29, db/migrations/0280): the shape of every new
 * endpoint (field names from Camunda's OpenAPI document), the /engine/default aliases and POST
 * query forms, bad input as Camunda's 4xx {type, message}, and who may change what: every role ×
 * every new state-changing call × own case / other case, where a refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

const BASE = '/api/workflow/rest';
type Person = Awaited<ReturnType<TestApp['user']>>;
const ROLES = ['patient', 'therapist', 'interviewer', 'supervisor', 'supporter', 'counselor', 'coordinator', 'outsider'] as const;
type Role = (typeof ROLES)[number];
type Stage = 'booking' | 'claimed' | 'form' | 'external' | 'locked';

let t: TestApp;
const { notify } = trialDriver(() => t);
const people = {} as Record<Role, Person>;
let patientB: Person;
let caseA: string;
let caseB: string;

beforeAll(async () => {
  t = await startTestApp();
  const patientA = await t.user({ flags: ['patient'] });
  patientB = await t.user({ flags: ['patient'] });
  caseA = patientA.caseId!;
  caseB = patientB.caseId!;
  people.patient = patientA;
  for (const role of ['therapist', 'interviewer', 'supervisor', 'supporter', 'counselor'] as const) {
    people[role] = await t.user({ flags: [role === 'counselor' ? 'therapist' : role] });
    await addMember(t.database.db.pool, caseA, people[role].username, [role]);
  }
  people.coordinator = await t.user({ flags: ['coordinator'] });
  people.outsider = await t.user({ flags: ['therapist'] });
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;
const host = () => t.sanad.workflow.host;
const api = (method: string, path: string, person: Person | null, body?: unknown) =>
  t.api(method, `${BASE}${path}`, { ...(person ? { token: person.token } : {}), body });
const patientOf = (caseId: string) => (caseId === caseA ? people.patient : patientB);

/** A fresh trial of the case at a stage. 'external': setStage runs as an external task. */
async function prepare(caseId: string, stage: Stage): Promise<void> {
  await withOwner(pool(), async (sql) => {
    const { rows } = await sql.query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
    for (const row of rows) await host().terminateInTx(sql, row.id);
    const external = stage === 'external' || stage === 'locked';
    if (external) await sql.query(`insert into app_private.workflow_external_topics (topic) values ('setStage') on conflict do nothing`);
    await host().startInTx(sql, { key: 'trial', caseId, businessKey: 'trial', variables: {} });
    await sql.query(`delete from app_private.workflow_external_topics where topic = 'setStage'`);
    if (stage === 'locked') {
      await sql.query(
        `update app_public.workflow_jobs set worker_id = 'worker-1', lock_expiration = now() + interval '1 hour' where case_id = $1 and kind = 'external'`,
        [caseId],
      );
    }
  });
  if (stage === 'external' || stage === 'locked') return;
  await notify(caseId, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' } });
  if (stage === 'claimed') {
    await pool().query(`update app_public.workflow_tasks set assignee = $2 where case_id = $1 and task_definition_key = 'bookTask' and end_time is null`, [
      caseId,
      patientOf(caseId).id,
    ]);
  }
  if (stage === 'form') {
    // A task that declares a form field (the trial's own forms all belong to tasks with a completion hook).
    await pool().query(
      `update app_public.workflow_tasks set form_fields = '[{"id": "note", "label": "Note", "type": "string"}]'
        where case_id = $1 and task_definition_key = 'bookTask' and end_time is null`,
      [caseId],
    );
  }
}

/** Everything the workflow holds about both cases. */
async function snapshot(): Promise<unknown> {
  const q = async (text: string) => (await pool().query(text, [[caseA, caseB]])).rows;
  return {
    instances: await q(`select id, state, variables, waiting_messages, waiting_executions from app_public.workflow_instances where case_id = any ($1) order by id`),
    engine: await q(`select s.instance_id, s.step from app_private.workflow_engine_states s join app_public.workflow_instances i on i.id = s.instance_id where i.case_id = any ($1) order by 1`),
    tasks: await q(`select id, assignee, end_time, form_fields from app_public.workflow_tasks where case_id = any ($1) order by id`),
    jobs: await q(
      `select id, kind, due_date, attempts, failed_at, last_error, worker_id, lock_expiration, retries from app_public.workflow_jobs where case_id = any ($1) order by id`,
    ),
    completions: await q(`select c.job_id from app_private.workflow_external_completions c join app_public.workflow_jobs j on j.id = c.job_id where j.case_id = any ($1)`),
  };
}

async function taskOf(caseId: string, key = 'bookTask'): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = $2 and end_time is null`, [caseId, key]);
  return rows[0].id;
}
async function externalOf(caseId: string): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_jobs where case_id = $1 and kind = 'external'`, [caseId]);
  return rows[0].id;
}

interface Call {
  name: string;
  stage: Stage;
  /** Roles allowed on their own case; coordinators are allowed on every case. */
  allowed: readonly Role[];
  run(person: Person, caseId: string): Promise<{ status: number; body: any }>;
}

const CALLS: Call[] = [
  { name: 'claim a task', stage: 'booking', allowed: ['patient', 'coordinator'], run: async (p, c) => api('POST', `/task/${await taskOf(c)}/claim`, p, { userId: p.id }) },
  { name: 'unclaim a task', stage: 'claimed', allowed: ['patient', 'coordinator'], run: async (p, c) => api('POST', `/task/${await taskOf(c)}/unclaim`, p) },
  {
    name: 'set task variables',
    stage: 'form',
    allowed: ['patient', 'coordinator'],
    run: async (p, c) => api('POST', `/task/${await taskOf(c)}/variables`, p, { modifications: { note: { value: 'later', type: 'String' } } }),
  },
  {
    name: 'set one task variable',
    stage: 'form',
    allowed: ['patient', 'coordinator'],
    run: async (p, c) => api('PUT', `/task/${await taskOf(c)}/variables/note`, p, { value: 'later', type: 'String' }),
  },
  {
    name: 'complete an external task',
    stage: 'locked',
    allowed: ['coordinator'],
    run: async (p, c) => api('POST', `/external-task/${await externalOf(c)}/complete`, p, { workerId: 'worker-1', variables: {} }),
  },
  {
    name: 'report an external task failure',
    stage: 'locked',
    allowed: ['coordinator'],
    run: async (p, c) => api('POST', `/external-task/${await externalOf(c)}/failure`, p, { workerId: 'worker-1', errorMessage: 'down', retries: 2, retryTimeout: 1000 }),
  },
  {
    name: 'extend an external task lock',
    stage: 'locked',
    allowed: ['coordinator'],
    run: async (p, c) => api('POST', `/external-task/${await externalOf(c)}/extendLock`, p, { workerId: 'worker-1', newDuration: 60000 }),
  },
  { name: 'unlock an external task', stage: 'locked', allowed: ['coordinator'], run: async (p, c) => api('POST', `/external-task/${await externalOf(c)}/unlock`, p) },
];

function expected(call: Call, role: Role, own: boolean): boolean {
  if (role === 'coordinator') return call.allowed.includes('coordinator');
  return own && role !== 'outsider' && call.allowed.includes(role);
}

describe('new Camunda calls: every role × own case / other case; a refusal changes nothing', () => {
  for (const call of CALLS) {
    it(call.name, async () => {
      for (const own of [true, false]) {
        const caseId = own ? caseA : caseB;
        await prepare(caseA, call.stage);
        await prepare(caseB, call.stage);
        for (const role of ROLES) {
          if (role === 'outsider' && own) continue;
          // The "patient" of the other case is that case's own patient for unclaim (the assignee there).
          const allow = expected(call, role, own);
          const before = await snapshot();
          const response = await call.run(people[role], caseId);
          const moved = JSON.stringify(await snapshot()) !== JSON.stringify(before);
          const who = `${call.name}: ${role} on ${own ? 'own' : 'other'} case`;
          if (allow) {
            expect(response.status, `${who} may (${JSON.stringify(response.body)})`).toBe(204);
            expect(moved, `${who} changed the case`).toBe(true);
            await prepare(caseId, call.stage);
          } else {
            expect(response.status, `${who} is refused (${JSON.stringify(response.body)})`).toBeGreaterThanOrEqual(400);
            expect(response.status).toBeLessThan(500);
            expect(response.body).toMatchObject({ type: expect.any(String), message: expect.any(String) });
            expect(moved, `${who}: the refusal changed nothing`).toBe(false);
          }
        }
      }
    });
  }

  it('fetchAndLock locks only what the caller may run; others lock nothing', async () => {
    await prepare(caseA, 'external');
    await prepare(caseB, 'external');
    const fetch = (p: Person) => api('POST', '/external-task/fetchAndLock', p, { workerId: 'w', maxTasks: 10, topics: [{ topicName: 'setStage', lockDuration: 10000 }] });
    for (const role of ROLES.filter((r) => r !== 'coordinator')) {
      const before = await snapshot();
      const answer = await fetch(people[role]);
      expect(answer, role).toMatchObject({ status: 200, body: [] });
      expect(JSON.stringify(await snapshot()), `${role}: nothing locked`).toBe(JSON.stringify(before));
    }
    const answer = await fetch(people.coordinator);
    expect(answer.status).toBe(200);
    expect(answer.body.map((task: { caseId: string }) => task.caseId).sort()).toEqual([caseA, caseB].sort());
    // Locked: a second worker gets nothing.
    expect((await fetch(people.coordinator)).body).toEqual([]);
  });
});

describe('an external task from fetch to the next step', () => {
  it('a worker fetches, completes with variables, and the scheduler runs the step', async () => {
    await prepare(caseA, 'external');
    const coordinator = people.coordinator;
    const fetched = await api('POST', '/engine/default/external-task/fetchAndLock', coordinator, {
      workerId: 'worker-9',
      maxTasks: 1,
      asyncResponseTimeout: 1000,
      topics: [{ topicName: 'setStage', lockDuration: 60000, variables: ['caseId'], businessKey: 'trial' }],
    });
    expect(fetched.status).toBe(200);
    const [task] = fetched.body;
    expect(Object.keys(task).sort()).toEqual(
      [
        'activityId', 'activityInstanceId', 'errorMessage', 'errorDetails', 'executionId', 'id', 'lockExpirationTime', 'createTime',
        'processDefinitionId', 'processDefinitionKey', 'processDefinitionVersionTag', 'processInstanceId', 'tenantId', 'retries',
        'suspended', 'workerId', 'priority', 'topicName', 'businessKey', 'variables', 'extensionProperties', 'caseId',
      ].sort(),
    );
    expect(task).toMatchObject({ activityId: 'screeningStage', topicName: 'setStage', workerId: 'worker-9', businessKey: 'trial', processDefinitionKey: 'trial' });
    expect(task.variables).toEqual({ caseId: { value: caseA, type: 'String' } });
    expect(task.lockExpirationTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/);

    // Another worker may not complete it; a worker may not set the server's variables.
    expect(await api('POST', `/external-task/${task.id}/complete`, coordinator, { workerId: 'other' })).toMatchObject({
      status: 400,
      body: { type: 'BadUserRequestException' },
    });
    expect(await api('POST', `/external-task/${task.id}/complete`, coordinator, { workerId: 'worker-9', variables: { caseId: { value: caseB, type: 'String' } } })).toMatchObject({
      status: 400,
      body: { type: 'InvalidRequestException' },
    });
    expect(await api('POST', `/external-task/${task.id}/bpmnError`, coordinator, { workerId: 'worker-9', errorCode: 'x' })).toMatchObject({ status: 400 });

    const done = await api('POST', `/external-task/${task.id}/complete`, coordinator, { workerId: 'worker-9', variables: { checkedBy: { value: 'worker-9', type: 'String' } } });
    expect(done.status).toBe(204);
    // Completed: no longer fetchable, and once the scheduler ran, the screening task is open.
    expect(await api('POST', `/external-task/${task.id}/complete`, coordinator, { workerId: 'worker-9' })).toMatchObject({ status: 404 });
    await t.sanad.workflow.tick();
    expect(await taskOf(caseA, 'screeningTask')).toBeDefined();
    const variables = await api('GET', `/process-instance/${task.processInstanceId}/variables`, coordinator);
    expect(variables.body.checkedBy).toEqual({ value: 'worker-9', type: 'String' });
    const jobs = await pool().query(`select count(*)::int as n from app_public.workflow_jobs where case_id = $1 and kind = 'external'`, [caseA]);
    expect(jobs.rows[0].n).toBe(0);
  });

  it('a failure with no retries left is an incident, and retrying makes it fetchable again', async () => {
    await prepare(caseA, 'locked');
    const coordinator = people.coordinator;
    const id = await externalOf(caseA);
    expect((await api('POST', `/external-task/${id}/failure`, coordinator, { workerId: 'worker-1', errorMessage: 'gave up', retries: 0 })).status).toBe(204);
    const incidents = await api('GET', `/incident?processInstanceId=`, coordinator);
    expect(incidents.status).toBe(200);
    const mine = (await api('GET', `/incident?caseId=${caseA}`, coordinator)).body;
    expect(mine).toHaveLength(1);
    expect(Object.keys(mine[0]).sort()).toEqual(
      [
        'id', 'processDefinitionId', 'processInstanceId', 'executionId', 'incidentTimestamp', 'incidentType', 'activityId', 'failedActivityId',
        'causeIncidentId', 'rootCauseIncidentId', 'configuration', 'tenantId', 'incidentMessage', 'jobDefinitionId', 'annotation', 'caseId',
      ].sort(),
    );
    expect(mine[0]).toMatchObject({ incidentType: 'failedExternalTask', incidentMessage: 'gave up', activityId: 'screeningStage' });
    expect((await api('GET', `/incident/count?caseId=${caseA}`, coordinator)).body).toEqual({ count: 1 });
    // The patient sees no incident of their case (staff and coordinators only).
    expect((await api('GET', `/incident`, people.patient)).body).toEqual([]);
    expect((await api('PUT', `/job/${id}/retries`, coordinator, { retries: 1 })).status).toBe(204);
    const again = await api('POST', '/external-task/fetchAndLock', coordinator, { workerId: 'w2', maxTasks: 5, topics: [{ topicName: 'setStage', lockDuration: 1000, processDefinitionKey: 'trial' }] });
    expect(again.body.map((task: { id: string }) => task.id)).toContain(id);
    // An external task has no due date to move.
    expect(await api('PUT', `/job/${id}/duedate`, coordinator, { duedate: '2031-01-01T00:00:00.000+0000' })).toMatchObject({ status: 400 });
  });

  it('fetchAndLock refuses what a worker cannot mean', async () => {
    const c = people.coordinator;
    const cases: unknown[] = [
      null,
      { maxTasks: 1, topics: [] },
      { workerId: 'w', topics: [] },
      { workerId: 'w', maxTasks: -1, topics: [] },
      { workerId: 'w', maxTasks: 1, topics: [{ topicName: 'x' }] },
      { workerId: 'w', maxTasks: 1, topics: [{ topicName: 'x', lockDuration: 10, tenantIdIn: ['t'] }] },
      { workerId: 'w', maxTasks: 1, asyncResponseTimeout: 1_800_001, topics: [] },
    ];
    for (const body of cases) {
      const answer = await api('POST', '/external-task/fetchAndLock', c, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'InvalidRequestException', message: expect.any(String) });
    }
    expect((await api('POST', '/external-task/fetchAndLock', null, { workerId: 'w', maxTasks: 1, topics: [] })).status).toBe(401);
    expect((await api('POST', '/external-task/not-an-id/complete', c, { workerId: 'w' })).status).toBe(404);
  });
});

describe('tasklist calls', () => {
  it('claim, read variables, unclaim: Camunda shapes and refusals', async () => {
    await prepare(caseA, 'form');
    const patient = people.patient;
    const id = await taskOf(caseA);
    expect(await api('POST', `/task/${id}/claim`, patient, {})).toMatchObject({ status: 400, body: { type: 'InvalidRequestException' } });
    expect(await api('POST', `/task/${id}/claim`, patient, { userId: people.coordinator.id })).toMatchObject({ status: 403, body: { type: 'AuthorizationException' } });
    expect((await api('POST', `/task/${id}/claim`, patient, { userId: patient.username })).status).toBe(204);
    expect((await api('GET', `/task/${id}`, patient)).body).toMatchObject({ assignee: patient.id, taskState: 'Assigned' });
    // Claimed by the patient: the coordinator cannot claim it over them (Camunda's exception).
    expect(await api('POST', `/task/${id}/claim`, people.coordinator, { userId: people.coordinator.id })).toMatchObject({
      status: 400,
      body: { type: 'TaskAlreadyClaimedException' },
    });
    // Variables: the patient sees the task's form fields only; staff see the process variables.
    expect((await api('POST', `/task/${id}/variables`, patient, { modifications: { note: { value: 'soon', type: 'String' } } })).status).toBe(204);
    expect((await api('GET', `/task/${id}/variables`, patient)).body).toEqual({ note: { value: 'soon', type: 'String' } });
    expect((await api('GET', `/task/${id}/variables/note`, patient)).body).toEqual({ value: 'soon', type: 'String', valueInfo: {} });
    const staff = (await api('GET', `/task/${id}/variables`, people.therapist)).body;
    expect(staff.caseId).toEqual({ value: caseA, type: 'String' });
    expect(staff.note).toEqual({ value: 'soon', type: 'String' });
    // Undeclared, wrongly typed, deletions: 400, nothing written.
    for (const body of [
      { modifications: { treatmentDuration: { value: 'PT1S', type: 'String' } } },
      { modifications: { note: { value: 3, type: 'Integer' } } },
      { modifications: {}, deletions: ['note'] },
      { modifications: { note: { value: 'x', type: 'Nonsense' } } },
    ]) {
      const answer = await api('POST', `/task/${id}/variables`, patient, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'InvalidRequestException', message: expect.any(String) });
    }
    expect((await api('GET', `/task/${id}/variables/note`, patient)).body.value).toBe('soon');
    expect((await api('POST', `/task/${id}/unclaim`, patient)).status).toBe(204);
    expect((await api('GET', `/task/${id}`, patient)).body.assignee).toBeNull();
    expect((await api('POST', `/task/00000000-0000-0000-0000-000000000000/claim`, patient, { userId: patient.id })).status).toBe(404);
  });
});

describe('reads in Camunda shapes', () => {
  it('engine, version, engine-scoped aliases and POST queries', async () => {
    await prepare(caseA, 'booking');
    const c = people.coordinator;
    expect((await api('GET', '/engine', c)).body).toEqual([{ name: 'default' }]);
    expect((await api('GET', '/version', c)).body).toEqual({ version: expect.stringMatching(/^7\.\d+\.\d+$/) });
    const viaAlias = await api('GET', `/engine/default/task?caseId=${caseA}`, c);
    const direct = await api('GET', `/task?caseId=${caseA}`, c);
    expect(viaAlias.body).toEqual(direct.body);
    const posted = await api('POST', '/task', c, { caseId: caseA, taskDefinitionKeyIn: ['bookTask', 'x'], sorting: [{ sortBy: 'created', sortOrder: 'asc' }] });
    expect(posted.status).toBe(200);
    expect(posted.body.map((task: { taskDefinitionKey: string }) => task.taskDefinitionKey)).toEqual(['bookTask']);
    expect((await api('POST', '/task/count', c, { caseId: caseA })).body).toEqual({ count: 1 });
    expect((await api('POST', '/process-instance', c, { businessKey: 'trial', caseId: caseA })).body).toHaveLength(1);
    expect((await api('POST', '/history/task/count', c, { caseId: caseA })).body.count).toBeGreaterThanOrEqual(2);
    // The patient's POST query sees only their own case.
    expect((await api('POST', '/task', people.patient, {})).body.every((task: { caseId: string }) => task.caseId === caseA)).toBe(true);
    expect((await api('POST', '/task', people.outsider, {})).body).toEqual([]);
    // Bad queries: 400 in Camunda's form.
    for (const [path, body] of [
      ['/task', { sorting: [{ sortBy: 'nonsense', sortOrder: 'asc' }] }],
      ['/task', { processVariables: [{ name: 'x', operator: 'eq', value: 1 }] }],
      ['/task', { dueBefore: 'tomorrow' }],
      ['/job', { dueDates: ['soon_2026-01-01T00:00:00.000+0000'] }],
    ] as const) {
      const answer = await api('POST', path, c, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body).toMatchObject({ type: 'InvalidRequestException', message: expect.any(String) });
    }
    expect((await api('GET', '/engine/other/task', c)).status).toBe(404);
  });

  it('history activity and variable instances, jobs, deployments and definition XML', async () => {
    await prepare(caseA, 'booking');
    const c = people.coordinator;
    const { rows } = await pool().query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseA]);
    const activities = await api('GET', `/history/activity-instance?processInstanceId=${rows[0].id}&sortBy=startTime&sortOrder=asc`, c);
    expect(activities.status).toBe(200);
    expect(Object.keys(activities.body[0]).sort()).toEqual(
      [
        'id', 'parentActivityInstanceId', 'activityId', 'activityName', 'activityType', 'processDefinitionKey', 'processDefinitionId',
        'processInstanceId', 'executionId', 'taskId', 'assignee', 'calledProcessInstanceId', 'calledCaseInstanceId', 'startTime', 'endTime',
        'durationInMillis', 'canceled', 'completeScope', 'tenantId', 'removalTime', 'rootProcessInstanceId', 'caseId',
      ].sort(),
    );
    const book = activities.body.find((a: { activityId: string }) => a.activityId === 'bookTask');
    expect(book).toMatchObject({ activityType: 'userTask', endTime: null, taskId: await taskOf(caseA) });
    expect((await api('POST', '/history/activity-instance/count', c, { caseId: caseA, activityType: 'userTask' })).body.count).toBeGreaterThanOrEqual(2);

    const variables = await api('GET', `/history/variable-instance?processInstanceIdIn=${rows[0].id}&variableName=caseId`, c);
    expect(variables.body).toHaveLength(1);
    expect(variables.body[0]).toMatchObject({ name: 'caseId', type: 'String', value: caseA, state: 'CREATED', processDefinitionKey: 'trial' });
    // Variables are for who may read them: the patient gets none, staff of the case get theirs.
    expect((await api('GET', `/history/variable-instance`, people.patient)).body).toEqual([]);
    expect((await api('GET', `/history/variable-instance/count?caseId=${caseA}`, people.therapist)).body.count).toBeGreaterThan(0);
    expect((await api('GET', `/history/variable-instance/count?caseId=${caseA}`, people.outsider)).body).toEqual({ count: 0 });

    const jobs = await api('GET', `/job?caseId=${caseA}&timers=true`, c);
    expect(jobs.body.length).toBeGreaterThan(0);
    expect(Object.keys(jobs.body[0]).sort()).toEqual(
      [
        'id', 'jobDefinitionId', 'dueDate', 'processInstanceId', 'executionId', 'processDefinitionId', 'processDefinitionKey', 'retries',
        'exceptionMessage', 'failedActivityId', 'suspended', 'priority', 'tenantId', 'createTime', 'batchId', 'caseId',
      ].sort(),
    );
    expect((await api('POST', '/job/count', c, { caseId: caseA, timers: true })).body.count).toBe(jobs.body.length);
    expect((await api('GET', `/job?caseId=${caseA}`, people.outsider)).body).toEqual([]);

    const deployments = await api('GET', '/deployment?sortBy=name&sortOrder=asc', people.patient);
    expect(deployments.body.length).toBeGreaterThan(0);
    expect(Object.keys(deployments.body[0]).sort()).toEqual(['links', 'id', 'name', 'source', 'tenantId', 'deploymentTime'].sort());
    const trial = deployments.body.find((d: { name: string }) => d.name === 'trial.bpmn');
    const xml = await api('GET', `/process-definition/${encodeURIComponent(trial.id)}/xml`, people.patient);
    expect(xml.body).toMatchObject({ id: trial.id, bpmn20Xml: expect.stringContaining('<definitions') });
    expect((await api('GET', '/process-definition/trial:999/xml', c)).status).toBe(404);
    expect((await api('GET', '/deployment', null)).status).toBe(401);
  });
});
