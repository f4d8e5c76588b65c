/**
 * The Camunda 7 calls a task-list client makes against /api/workflow/rest: the task query and
 * count, one task's form variables, completing it, process instances, process definitions and
 * their XML, and the history of tasks and instances. Each answer has Camunda's field names,
 * date format and error bodies, and holds only the caller's cases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

const BASE = '/api/workflow/rest';
const CAMUNDA_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+0000$/;
type Person = Awaited<ReturnType<TestApp['user']>>;
let t: TestApp;
const { notify, signedOutcome } = trialDriver(() => t);
let now = Date.parse('2027-09-01T08:00:00Z');
const clock = { now: () => new Date(now) };
let coordinator: Person, therapist: Person, interviewer: Person, patientA: Person, patientB: Person, outsider: Person;
let caseA: string, caseB: string;

beforeAll(async () => {
  t = await startTestApp({}, {}, { workflowClock: clock });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  outsider = await t.user({ flags: ['therapist'] });
  patientA = await t.user({ flags: ['patient'] });
  patientB = await t.user({ flags: ['patient'] });
  caseA = patientA.caseId!;
  caseB = patientB.caseId!;
  await addMember(t.database.db.pool, caseA, therapist.username, ['therapist']);
  await addMember(t.database.db.pool, caseA, interviewer.username, ['interviewer']);
  for (const caseId of [caseA, caseB]) await t.database.db.pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
  await t.sanad.workflow.tick();
  // Case A reaches the interview: the screening and the booking report through the outbox.
  await notify(caseA, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' } });
  now += 60_000;
  await notify(caseA, 'interviewBooked', { offerId: { value: 'o-1', type: 'String' }, startsAt: { value: '2027-09-05T10:00:00Z', type: 'Date' } });
});
afterAll(async () => {
  await t?.close();
});

const get = (path: string, person: Person) => t.api('GET', `${BASE}${path}`, { token: person.token });
async function instanceOf(caseId: string): Promise<string> {
  const { rows } = await t.database.db.pool.query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
  return rows[0].id;
}

const TASK_KEYS = [
  'id', 'name', 'assignee', 'owner', 'created', 'lastUpdated', 'due', 'followUp', 'delegationState', 'description', 'executionId',
  'parentTaskId', 'priority', 'processDefinitionId', 'processInstanceId', 'caseDefinitionId', 'caseInstanceId', 'caseExecutionId',
  'taskDefinitionKey', 'suspended', 'formKey', 'camundaFormRef', 'tenantId', 'taskState', 'caseId', 'candidateGroups',
].sort();

describe('GET /task and /task/count', () => {
  it('answers Camunda tasks of the caller’s cases only', async () => {
    const staff = await get('/task', therapist);
    expect(staff.status).toBe(200);
    expect(staff.body.map((x: { taskDefinitionKey: string }) => x.taskDefinitionKey)).toEqual(['interviewTask']);
    const task = staff.body[0];
    expect(Object.keys(task).sort()).toEqual(TASK_KEYS);
    expect(task).toMatchObject({
      name: 'Record the interview outcome',
      assignee: null,
      priority: 50,
      processInstanceId: await instanceOf(caseA),
      processDefinitionId: expect.stringMatching(/^trial:\d+$/),
      suspended: false,
      tenantId: null,
      caseId: caseA,
      candidateGroups: ['interviewers'],
    });
    expect(task.created).toMatch(CAMUNDA_DATE);
    expect(task.due).toBe('2027-09-05T10:00:00.000+0000');
    // Coordinators see both cases; an outsider and the other patient none of case A's.
    const all = await get('/task?sortBy=created&sortOrder=asc', coordinator);
    expect(all.body.map((x: { caseId: string }) => x.caseId).sort()).toEqual([caseA, caseB].sort());
    expect((await get('/task', outsider)).body).toEqual([]);
    expect((await get('/task', patientB)).body.map((x: { caseId: string }) => x.caseId)).toEqual([caseB]);
    expect((await get('/task', patientA)).body).toEqual([]); // the interviewers' task is not the patient's
    expect((await get('/task/count', coordinator)).body).toEqual({ count: 2 });
    expect((await get('/task/count', outsider)).body).toEqual({ count: 0 });
  });

  it('filters as Camunda does: instance, business key, definition key, group, assignee, due range, paging', async () => {
    const ids = async (query: string) => (await get(`/task?${query}`, coordinator)).body.map((x: { taskDefinitionKey: string }) => x.taskDefinitionKey).sort();
    expect(await ids(`processInstanceId=${await instanceOf(caseA)}`)).toEqual(['interviewTask']);
    expect(await ids('processInstanceBusinessKey=trial')).toEqual(['interviewTask', 'screeningTask']);
    expect(await ids('processInstanceBusinessKey=other')).toEqual([]);
    expect(await ids('taskDefinitionKey=screeningTask')).toEqual(['screeningTask']);
    expect(await ids('taskDefinitionKeyIn=screeningTask,interviewTask')).toEqual(['interviewTask', 'screeningTask']);
    expect(await ids('candidateGroup=interviewers')).toEqual(['interviewTask']);
    expect(await ids('candidateGroup=therapists')).toEqual([]);
    expect(await ids(`assignee=${therapist.id}`)).toEqual([]);
    expect(await ids('unassigned=true')).toEqual(['interviewTask', 'screeningTask']);
    expect(await ids('processDefinitionKey=trial&nameLike=Record%25')).toEqual(['interviewTask']);
    // Due dates with any offset: the interview is due 2027-09-05T10:00Z = 12:00+0200.
    expect(await ids('dueBefore=2027-09-05T12:30:00.000%2B0200')).toEqual(['interviewTask']);
    expect(await ids('dueAfter=2027-09-05T12:30:00.000%2B0200')).toEqual(['screeningTask']);
    expect(await ids('dueAfter=2027-09-01T00:00:00Z&dueBefore=2027-09-06T00:00:00Z')).toEqual(['interviewTask']);
    expect(await ids(`caseId=${caseB}`)).toEqual(['screeningTask']);
    const sorted = await get('/task?sortBy=dueDate&sortOrder=desc', coordinator);
    expect(sorted.body.map((x: { taskDefinitionKey: string }) => x.taskDefinitionKey)).toEqual(['screeningTask', 'interviewTask']);
    const page = await get('/task?sortBy=dueDate&sortOrder=desc&firstResult=1&maxResults=1', coordinator);
    expect(page.body.map((x: { taskDefinitionKey: string }) => x.taskDefinitionKey)).toEqual(['interviewTask']);
    expect((await get('/task/count?candidateGroup=interviewers', coordinator)).body).toEqual({ count: 1 });
  });

  it('refuses bad parameters with Camunda’s 400', async () => {
    for (const query of ['sortBy=dueDate', 'sortBy=bogus&sortOrder=asc', 'sortBy=created&sortOrder=up', 'dueBefore=tomorrow', 'dueBefore=2027-09-05T10:00:00',
      'maxResults=5000', 'firstResult=-1', 'unassigned=yes', 'priority=high',
      // A NUL byte PostgreSQL cannot store in text (found by the fuzz test): the request's fault, not a 500.
      'processInstanceId=%00947', 'processInstanceBusinessKey=a%00b']) {
      const response = await get(`/task?${query}`, coordinator);
      expect(response.status, query).toBe(400);
      // Camunda's shape; the refusal's code may ride along (issue 27), never a database text.
      expect(response.body).toMatchObject({ type: 'InvalidRequestException', message: expect.any(String) });
      expect(Object.keys(response.body).every((key) => ['type', 'message', 'code'].includes(key))).toBe(true);
    }
    const missing = await get('/task?sortOrder=asc', coordinator);
    expect(missing.body.message).toBe('Only a single sorting parameter specified. sortBy and sortOrder required');
    expect((await t.api('GET', `${BASE}/task`)).status).toBe(401);
  });
});

describe('one task: form variables and completion', () => {
  it('GET /task/{id}/form-variables answers the declared fields, to those who see the task', async () => {
    const [task] = (await get('/task?taskDefinitionKey=interviewTask', interviewer)).body;
    const response = await get(`/task/${task.id}/form-variables`, interviewer);
    expect(response.status).toBe(200);
    // The outcome is no form field any more: only a signed report sets it (issue 27).
    expect(response.body).toEqual({});
    expect((await get(`/task/${task.id}/form-variables?variableNames=other`, interviewer)).body).toEqual({});
    const hidden = await get(`/task/${task.id}/form-variables`, outsider);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ type: 'RestException', message: `No matching task with id ${task.id}` });
    expect((await get('/task/not-a-task/form-variables', interviewer)).status).toBe(404);
  });

  it('POST /task/{id}/complete: declared fields only, 204; with variables in return 200', async () => {
    const [task] = (await get('/task?taskDefinitionKey=interviewTask', interviewer)).body;
    const count = async () => (await t.database.db.pool.query('select count(*)::int as n from app_public.workflow_tasks where end_time is null')).rows[0].n;
    const before = await count();
    const undeclared = await t.api('POST', `${BASE}/task/${task.id}/complete`, {
      token: interviewer.token,
      body: { variables: { outcome: { value: 'ptsd', type: 'String' }, fu1After: { value: 'PT1S', type: 'String' } } },
    });
    // A task no person completes is refused before its form is read (403, not 400).
    expect(undeclared.status).toBe(403);
    expect(undeclared.body.type).toBe('AuthorizationException');
    const wrong = await t.api('POST', `${BASE}/task/${task.id}/complete`, { token: therapist.token, body: { variables: { outcome: { value: 'ptsd', type: 'String' } } } });
    expect(wrong.status).toBe(403);
    expect(wrong.body.type).toBe('AuthorizationException');
    expect(await count()).toBe(before);
    // No person completes the interview task (issue 27): the signed report does, as the server.
    const byPerson = await t.api('POST', `${BASE}/task/${task.id}/complete`, { token: interviewer.token, body: {} });
    expect(byPerson.status).toBe(403);
    expect(byPerson.body.type).toBe('AuthorizationException');
    expect(await count()).toBe(before);
    await signedOutcome(caseA, interviewer, 'ptsd');
    const again = await t.api('POST', `${BASE}/task/${task.id}/complete`, { token: interviewer.token, body: {} });
    expect(again.status).toBe(404);
    expect(again.body.type).toBe('RestException');
    // The randomization task draws the arm from the trial's concealed allocation (issue 15).
    const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] } });
    expect(allocation.status).toBe(201);
    const [randomize] = (await get('/task?taskDefinitionKey=randomizeTask', coordinator)).body;
    const returned = await t.api('POST', `${BASE}/task/${randomize.id}/complete`, {
      token: coordinator.token,
      body: { variables: {}, withVariablesInReturn: true },
    });
    expect(returned.status).toBe(200);
    expect(['a', 'b']).toContain(returned.body.treatment?.value);
    expect(returned.body.outcome).toEqual({ value: 'ptsd', type: 'String' });
  });
});

describe('process instances and definitions', () => {
  it('GET /process-instance and /{id}: running instances of the caller’s cases', async () => {
    const mine = await get('/process-instance', therapist);
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([
      { links: [], id: await instanceOf(caseA), definitionId: expect.stringMatching(/^trial:\d+$/), businessKey: 'trial', caseInstanceId: null, ended: false, suspended: false, tenantId: null, caseId: caseA },
    ]);
    expect((await get('/process-instance?businessKey=trial&processDefinitionKey=trial', coordinator)).body).toHaveLength(2);
    expect((await get('/process-instance?businessKey=nope', coordinator)).body).toEqual([]);
    expect((await get('/process-instance/count', coordinator)).body).toEqual({ count: 2 });
    expect((await get('/process-instance/count', outsider)).body).toEqual({ count: 0 });
    const one = await get(`/process-instance/${await instanceOf(caseA)}`, patientA);
    expect(one.status).toBe(200);
    expect(one.body.id).toBe(await instanceOf(caseA));
    const other = await get(`/process-instance/${await instanceOf(caseB)}`, therapist);
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ type: 'RestException', message: expect.stringContaining('does not exist') });
    expect((await get('/process-instance?sortBy=startTime&sortOrder=asc', coordinator)).status).toBe(400);
  });

  it('GET /process-definition, /key/{key} and /xml', async () => {
    const list = await get('/process-definition', patientA);
    expect(list.status).toBe(200);
    const trial = list.body.find((d: { key: string }) => d.key === 'trial');
    expect(trial).toEqual({
      id: expect.stringMatching(/^trial:\d+$/),
      key: 'trial',
      category: 'https://sanad.example.org/workflows',
      description: null,
      name: 'Trial',
      version: expect.any(Number),
      resource: 'trial.bpmn',
      deploymentId: null,
      diagram: null,
      suspended: false,
      tenantId: null,
      versionTag: null,
      historyTimeToLive: null,
      startableInTasklist: true,
    });
    expect((await get('/process-definition?key=trial&latestVersion=true', patientA)).body).toEqual([trial]);
    expect((await get('/process-definition?key=nope', patientA)).body).toEqual([]);
    expect((await get('/process-definition/count?key=trial', patientA)).body).toEqual({ count: 1 });
    expect((await get('/process-definition/key/trial', coordinator)).body).toEqual(trial);
    const xml = await get('/process-definition/key/trial/xml', coordinator);
    expect(xml.body.id).toBe(trial.id);
    expect(xml.body.bpmn20Xml).toMatch(/^<\?xml/);
    const unknown = await get('/process-definition/key/nope', coordinator);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ type: 'RestException', message: 'No matching process definition with key: nope and no tenant-id' });
    expect((await get('/process-definition/key/nope/xml', coordinator)).status).toBe(404);
  });
});

describe('history', () => {
  it('GET /history/task: open and finished tasks of the caller’s cases, with Camunda’s filters', async () => {
    const response = await get('/history/task?sortBy=startTime&sortOrder=asc', therapist);
    expect(response.status).toBe(200);
    const keys = response.body.map((x: { taskDefinitionKey: string }) => x.taskDefinitionKey);
    expect([...keys].sort()).toEqual(['bookTask', 'interviewTask', 'preTask', 'randomizeTask', 'screeningTask']);
    expect(response.body.every((x: { caseId: string }) => x.caseId === caseA)).toBe(true);
    const screening = response.body.find((x: { taskDefinitionKey: string }) => x.taskDefinitionKey === 'screeningTask');
    expect(screening).toMatchObject({ deleteReason: 'completed', processDefinitionKey: 'trial', taskState: 'Completed', endTime: expect.stringMatching(CAMUNDA_DATE) });
    expect(typeof screening.duration).toBe('number');
    expect(Object.keys(screening)).toEqual(expect.arrayContaining(['activityInstanceId', 'rootProcessInstanceId', 'removalTime', 'followUp', 'parentTaskId']));
    const finished = await get('/history/task?finished=true&taskDefinitionKey=bookTask', therapist);
    expect(finished.body).toHaveLength(1);
    expect(finished.body[0].deleteReason).toBe('deleted'); // ended by the interviewBooked boundary event
    expect((await get('/history/task/count?unfinished=true', therapist)).body).toEqual({ count: 1 });
    expect((await get('/history/task', outsider)).body).toEqual([]);
    expect((await get('/history/task?taskDueDateBefore=soon', therapist)).status).toBe(400);
  });

  it('GET /history/process-instance: running and finished instances, state and finished filters', async () => {
    const instanceB = await instanceOf(caseB);
    await withOwner(t.database.db.pool, (sql) => t.sanad.workflow.host.terminateInTx(sql, instanceB));
    const all = await get('/history/process-instance', coordinator);
    const b = all.body.find((x: { caseId: string }) => x.caseId === caseB);
    expect(b).toMatchObject({ state: 'EXTERNALLY_TERMINATED', processDefinitionKey: 'trial', processDefinitionName: 'Trial', businessKey: 'trial', endTime: expect.stringMatching(CAMUNDA_DATE) });
    expect(typeof b.durationInMillis).toBe('number');
    expect((await get('/history/process-instance?finished=true', coordinator)).body.map((x: { caseId: string }) => x.caseId)).toContain(caseB);
    expect((await get('/history/process-instance?state=ACTIVE', therapist)).body.map((x: { caseId: string }) => x.caseId)).toEqual([caseA]);
    expect((await get('/history/process-instance', therapist)).body.map((x: { caseId: string }) => x.caseId)).toEqual([caseA]);
    expect((await get('/history/process-instance/count?finished=true', patientB)).body).toEqual({ count: 1 });
    expect((await get('/history/process-instance', outsider)).body).toEqual([]);
    // The finished instance is history: no longer a runtime process instance.
    expect((await get(`/process-instance?caseId=${caseB}`, coordinator)).body).toEqual([]);
  });
});
