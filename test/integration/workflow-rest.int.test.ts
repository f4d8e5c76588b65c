/**
 * The Camunda REST subset at /api/workflow/rest: success and error shapes of every call,
 * authorization per role, bad input that changes nothing, the reads, the task summary on cases,
 * and handler retries with backoff.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

const BASE = '/api/workflow/rest';
let t: TestApp;
let now = Date.parse('2027-06-01T08:00:00Z');
const clock = { now: () => new Date(now) };
let failNext = 0;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, therapist: Person, interviewer: Person, patient: Person, otherPatient: Person, outsider: Person;
let caseId: string;

beforeAll(async () => {
  t = await startTestApp({ WORKFLOW_MAX_ATTEMPTS: '3', WORKFLOW_RETRY_SECONDS: '60' }, {}, {
    workflowClock: clock,
    // A handler that fails on demand, to test retries (used by the setStage topic below).
    workflowHandlers: {
      setStage: async (ctx) => {
        if (failNext > 0) {
          failNext -= 1;
          throw new Error('the mail server is down');
        }
        await ctx.sql.query('update app_public.cases set stage = $2 where id = $1', [ctx.caseId, ctx.inputs.stage]);
      },
    },
  });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  outsider = await t.user({ flags: ['therapist'] });
  patient = await t.user({ flags: ['patient'] });
  otherPatient = await t.user({ flags: ['patient'] });
  caseId = patient.caseId!;
  await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);
  await addMember(t.database.db.pool, caseId, interviewer.username, ['interviewer']);
});
afterAll(async () => {
  await t?.close();
});

const pool = () => t.database.db.pool;
const start = (token: string, body: unknown, key = 'trial') => t.api('POST', `${BASE}/process-definition/key/${key}/start`, { token, body });
const caseVar = (id: string) => ({ caseId: { value: id, type: 'String' } });

async function running(id: string) {
  const { rows } = await pool().query(`select id, state from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [id]);
  return rows;
}
async function terminateAll() {
  const { rows } = await pool().query(`select id from app_public.workflow_instances where state = 'ACTIVE'`);
  await withOwner(pool(), async (sql) => {
    for (const row of rows) await t.sanad.workflow.host.terminateInTx(sql, row.id);
  });
}
async function openTask(id: string, key: string) {
  const { rows } = await pool().query(
    'select id, process_instance_id from app_public.workflow_tasks where case_id = $1 and task_definition_key = $2 and end_time is null',
    [id, key],
  );
  return rows[0] as { id: string; process_instance_id: string };
}
async function counts() {
  const { rows } = await pool().query(
    `select (select count(*) from app_public.workflow_instances) as instances, (select count(*) from app_public.workflow_tasks where end_time is null) as open_tasks,
            (select count(*) from app_public.workflow_jobs) as jobs, (select coalesce(sum(length(variables::text)), 0) from app_public.workflow_instances) as vars`,
  );
  return rows[0];
}

describe('POST /process-definition/key/{key}/start', () => {
  beforeEach(terminateAll);

  it('a coordinator starts a process of a case: 200 with the instance, caseId is a String variable', async () => {
    const response = await start(coordinator.token, { businessKey: 'trial', variables: { ...caseVar(caseId), note: { value: 'x', type: 'String' } } });
    expect(response.status).toBe(200);
    const { rows } = await pool().query(`select id, variables, business_key from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
    expect(response.body).toEqual({
      links: [{ method: 'GET', href: expect.stringMatching(new RegExp(`/api/workflow/rest/process-instance/${rows[0].id}$`)), rel: 'self' }],
      id: rows[0].id,
      definitionId: expect.stringMatching(/^trial:\d+$/),
      businessKey: 'trial',
      caseInstanceId: null,
      ended: false,
      suspended: false,
      tenantId: null,
      caseId,
    });
    expect(rows[0].business_key).toBe('trial');
    expect(rows[0].variables.caseId).toEqual({ value: caseId, type: 'String' });
    expect(await openTask(caseId, 'screeningTask')).toBeDefined();
  });

  it('refuses an unknown key, a missing caseId, bad variables and start instructions, changing nothing', async () => {
    const before = await counts();
    const unknown = await start(therapist.token, { variables: caseVar(caseId) }, 'nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ type: 'RestException', message: 'No matching process definition with key: nope' });
    const noCase = await start(therapist.token, { variables: {} });
    expect(noCase.status).toBe(400);
    expect(noCase.body.type).toBe('InvalidRequestException');
    for (const variables of [
      { ...caseVar(caseId), n: { value: 'abc', type: 'Integer' } },
      { ...caseVar(caseId), n: { value: 1, type: 'Banana' } },
      { ...caseVar(caseId), n: 5 },
      { ...caseVar(caseId), 'bad name': { value: 1, type: 'Integer' } },
      [],
    ]) {
      const bad = await start(therapist.token, { variables });
      expect(bad.status, JSON.stringify(variables)).toBe(400);
      expect(bad.body.type).toBe('InvalidRequestException');
      expect(typeof bad.body.message).toBe('string');
    }
    const instructions = await start(therapist.token, { variables: caseVar(caseId), startInstructions: [{ type: 'startBeforeActivity', activityId: 'x' }] });
    expect(instructions.status).toBe(400);
    const malformed = await t.api('POST', `${BASE}/process-definition/key/trial/start`, { token: therapist.token, rawBody: '{"variables":' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.type).toBe('InvalidRequestException');
    expect(await counts()).toEqual(before);
  });

  it('only coordinators start by hand; a second trial is refused', async () => {
    expect((await start(outsider.token, { variables: caseVar(caseId) })).body.type).toBe('AuthorizationException');
    expect((await start(otherPatient.token, { variables: caseVar(caseId) })).status).toBe(403);
    const own = await start(patient.token, { businessKey: 'trial', variables: caseVar(caseId) });
    expect(own.status).toBe(403);
    expect(own.body.message).toContain('coordinators');
    expect((await start(therapist.token, { businessKey: 'trial', variables: caseVar(caseId) })).status).toBe(403);
    expect(await running(caseId)).toHaveLength(0);
    expect((await start(coordinator.token, { businessKey: 'trial', variables: caseVar(caseId) })).status).toBe(200);
    const again = await start(coordinator.token, { businessKey: 'trial', variables: caseVar(caseId) });
    expect(again.status).toBe(400);
    expect(again.body.type).toBe('InvalidRequestException');
    expect(await running(caseId)).toHaveLength(1);
    const anonymous = await start('', { variables: caseVar(caseId) });
    expect(anonymous.status).toBe(401);
  });
});

describe('tasks, messages, signals, jobs and instances', () => {
  beforeEach(async () => {
    await terminateAll();
    expect((await start(coordinator.token, { businessKey: 'trial', variables: caseVar(caseId) })).status).toBe(200);
  });

  it('submit-form: the candidate group completes, others get 403, other cases 404, bad values 400', async () => {
    // The screening task is the questionnaires' to complete, not the patient's by hand.
    const screening = await openTask(caseId, 'screeningTask');
    const byHand = await t.api('POST', `${BASE}/task/${screening.id}/submit-form`, { token: patient.token, body: {} });
    expect(byHand.status).toBe(403);
    expect(byHand.body.message).toContain('screening questionnaires');
    await pool().query(`select app_hidden.notify_workflow($1, 'screeningCompleted', '{"excluded":{"value":false,"type":"Boolean"}}')`, [caseId]);
    await t.sanad.workflow.tick();
    const task = await openTask(caseId, 'bookTask');
    const other = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: otherPatient.token, body: {} });
    expect(other.status).toBe(404);
    expect(other.body.type).toBe('RestException');
    const wrongGroup = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: therapist.token, body: {} });
    expect(wrongGroup.status).toBe(403);
    expect(wrongGroup.body.type).toBe('AuthorizationException');
    const malformed = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: patient.token, body: { variables: { x: { value: 'y', type: 'Boolean' } } } });
    expect(malformed.status).toBe(400);
    const undeclared = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: patient.token, body: { variables: { treatmentDuration: { value: 'PT1S', type: 'String' } } } });
    expect(undeclared.status).toBe(400);
    expect(undeclared.body).toEqual({ type: 'InvalidRequestException', message: expect.stringContaining("'treatmentDuration' cannot be set") });
    expect((await openTask(caseId, 'bookTask')).id).toBe(task.id);
    const unknown = await t.api('POST', `${BASE}/task/00000000-0000-4000-8000-000000000000/submit-form`, { token: patient.token, body: {} });
    expect(unknown.status).toBe(404);

    const done = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: patient.token, body: {} });
    expect(done.status).toBe(204);
    const twice = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: patient.token, body: {} });
    expect(twice.status).toBe(404);
    const log = await t.api('GET', `/api/my_task_log?id=eq.${task.id}`, { token: patient.token });
    expect(log.body[0].end_time).not.toBeNull();
    expect(log.body[0].delete_reason).toBe('completed');
  });

  it('no person completes the outcome task, not even a coordinator: the signed report does (issue 27)', async () => {
    await pool().query(`select app_hidden.notify_workflow($1, 'screeningCompleted', '{"excluded":{"value":false,"type":"Boolean"}}')`, [caseId]);
    await pool().query(`select app_hidden.notify_workflow($1, 'interviewBooked', '{"offerId":{"value":"o1","type":"String"}}')`, [caseId]);
    await t.sanad.workflow.tick();
    const task = await openTask(caseId, 'interviewTask');
    const before = (await pool().query('select stage from app_public.cases where id = $1', [caseId])).rows[0].stage;
    const bad = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: interviewer.token, body: { variables: { outcome: { value: 'maybe', type: 'String' } } } });
    expect(bad.status).toBe(403);
    expect(bad.body.message).toContain('signing the interview report');
    const byPatient = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: patient.token, body: {} });
    expect(byPatient.status).toBe(404); // patients do not see interviewers' tasks
    const byCoordinator = await t.api('POST', `${BASE}/task/${task.id}/submit-form`, { token: coordinator.token, body: { variables: { outcome: { value: 'counseling', type: 'String' } } } });
    expect(byCoordinator.status).toBe(403);
    await t.sanad.workflow.tick();
    const { rows } = await pool().query('select stage from app_public.cases where id = $1', [caseId]);
    expect(rows[0].stage).toBe(before);
    expect((await openTask(caseId, 'interviewTask')).id).toBe(task.id);
  });

  it('process variables: staff read them over REST; patients neither there nor in GraphQL', async () => {
    const [instance] = await running(caseId);
    const staff = await t.api('GET', `${BASE}/process-instance/${instance.id}/variables`, { token: therapist.token });
    expect(staff.status).toBe(200);
    expect(staff.body.caseId).toEqual({ value: caseId, type: 'String' });
    expect((await t.api('GET', `${BASE}/process-instance/${instance.id}/variables`, { token: patient.token })).status).toBe(403);
    expect((await t.api('GET', `${BASE}/process-instance/${instance.id}/variables`, { token: outsider.token })).status).toBe(404);
    const graphql = await t.graphql(`{ allWorkflowInstances { nodes { id variables } } }`, {}, patient.token);
    expect(graphql.errors?.length ?? 0).toBeGreaterThan(0);
    const allowed = await t.graphql(`{ allWorkflowInstances { nodes { id state } } }`, {}, patient.token);
    expect(allowed.data.allWorkflowInstances.nodes.map((n: { id: string }) => n.id)).toContain(instance.id);
  });

  it('GET /task/{id} answers the Camunda task shape to those who see it', async () => {
    const task = await openTask(caseId, 'screeningTask');
    const response = await t.api('GET', `${BASE}/task/${task.id}`, { token: therapist.token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: task.id, name: 'Fill in the screening questionnaires', taskDefinitionKey: 'screeningTask', caseId, candidateGroups: ['patients'] });
    expect((await t.api('GET', `${BASE}/task/${task.id}`, { token: outsider.token })).status).toBe(404);
  });

  it('message: defaults all and resultEnabled; no waiting process is not an error; malformed input is 400', async () => {
    const none = await t.api('POST', `${BASE}/message`, { token: therapist.token, body: { messageName: 'dropout' } });
    expect(none.status).toBe(200);
    expect(none.body).toEqual([]);
    // The server's own messages are refused to everyone, coordinators included.
    const forged = await t.api('POST', `${BASE}/message`, {
      token: coordinator.token,
      body: { messageName: 'screeningCompleted', businessKey: 'trial', processVariables: { excluded: { value: false, type: 'Boolean' } } },
    });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ type: 'AuthorizationException', message: expect.stringContaining('questionnaires') });
    expect(await openTask(caseId, 'screeningTask')).toBeDefined();
    const quiet = await t.api('POST', `${BASE}/message`, { token: therapist.token, body: { messageName: 'dropout', resultEnabled: false } });
    expect(quiet.status).toBe(204);
    const single = await t.api('POST', `${BASE}/message`, { token: therapist.token, body: { messageName: 'dropout', all: false } });
    expect(single.status).toBe(400);
    expect(single.body.type).toBe('MismatchingMessageCorrelationException');
    expect((await t.api('POST', `${BASE}/message`, { token: therapist.token, body: {} })).status).toBe(400);
    expect((await t.api('POST', `${BASE}/message`, { token: therapist.token, body: { messageName: 'x', correlationKeys: { a: 1 } } })).status).toBe(400);
  });

  it('message: an outsider reaches no process of the case', async () => {
    // A therapist may send dropout, but only to the cases they treat: none here.
    const response = await t.api('POST', `${BASE}/message`, { token: outsider.token, body: { messageName: 'dropout', businessKey: 'trial' } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([]);
    const patientDropout = await t.api('POST', `${BASE}/message`, { token: patient.token, body: { messageName: 'dropout' } });
    expect(patientDropout.status).toBe(403);
    expect(patientDropout.body.type).toBe('AuthorizationException');
    // An interviewer cancelling an offer that nobody booked reaches nothing and is no error.
    const unbooked = await t.api('POST', `${BASE}/message`, {
      token: (await t.user({ flags: ['interviewer'] })).token,
      body: { messageName: 'offerCanceled', correlationKeys: { offerId: { value: 'o-9', type: 'String' } } },
    });
    expect(unbooked.status).toBe(200);
    expect(unbooked.body).toEqual([]);
    expect(await openTask(caseId, 'screeningTask')).toBeDefined();
  });

  it('signal: coordinators only; 204, or 200 with results; a name is required', async () => {
    expect((await t.api('POST', `${BASE}/signal`, { token: therapist.token, body: { name: 'nobodyWaits' } })).status).toBe(403);
    expect((await t.api('POST', `${BASE}/signal`, { token: coordinator.token, body: { name: 'nobodyWaits' } })).status).toBe(204);
    const results = await t.api('POST', `${BASE}/signal`, { token: coordinator.token, body: { name: 'nobodyWaits', resultEnabled: true } });
    expect(results.status).toBe(200);
    expect(results.body).toEqual([]);
    const missing = await t.api('POST', `${BASE}/signal`, { token: therapist.token, body: { variables: {} } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ type: 'InvalidRequestException', message: 'No signal name given' });
  });

  it('execution signal: unknown execution 404; only coordinators may signal', async () => {
    const unknown = await t.api('POST', `${BASE}/execution/nope_123/signal`, { token: coordinator.token, body: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.type).toBe('RestException');
    // The interview wait: book by hand, then the catch event waits for interviewBooked.
    await pool().query(`select app_hidden.notify_workflow($1, 'screeningCompleted', '{"excluded":{"value":false,"type":"Boolean"}}')`, [caseId]);
    await t.sanad.workflow.tick();
    expect((await t.api('POST', `${BASE}/task/${(await openTask(caseId, 'bookTask')).id}/submit-form`, { token: patient.token, body: {} })).status).toBe(204);
    const { rows } = await pool().query(`select waiting_executions from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
    const execution = (rows[0].waiting_executions as string[]).find((e) => e.startsWith('bookedWait'))!;
    expect(execution).toBeDefined();
    expect((await t.api('POST', `${BASE}/execution/${execution}/signal`, { token: patient.token, body: {} })).status).toBe(403);
    expect((await t.api('POST', `${BASE}/execution/${execution}/signal`, { token: therapist.token, body: {} })).status).toBe(403);
    expect((await t.api('POST', `${BASE}/execution/${execution}/signal`, { token: coordinator.token, body: { variables: { startsAt: { value: '2027-06-03T10:00:00.000+0000', type: 'Date' } } } })).status).toBe(204);
    expect(await openTask(caseId, 'interviewTask')).toBeDefined();
  });

  it('PUT /job/{id}/duedate moves a timer; any ISO offset; other formats are 400; patients 403', async () => {
    const { rows } = await pool().query(`select id, due_date from app_public.workflow_jobs where case_id = $1 and activity_id = 'screeningReminder'`, [caseId]);
    const job = rows[0];
    expect(job.due_date.toISOString()).toBe(new Date(now + 7 * 86_400_000).toISOString());
    for (const duedate of ['2027-06-02', '2027-06-02T10:00:00', '2027-02-30T10:00:00.000+0000', 'tomorrow', 12, null]) {
      const bad = await t.api('PUT', `${BASE}/job/${job.id}/duedate`, { token: therapist.token, body: { duedate } });
      expect(bad.status, String(duedate)).toBe(400);
      expect(bad.body.type).toBe('InvalidRequestException');
    }
    expect((await t.api('PUT', `${BASE}/job/${job.id}/duedate`, { token: patient.token, body: { duedate: '2027-06-02T10:00:00.000+0000' } })).status).toBe(403);
    expect((await t.api('PUT', `${BASE}/job/${job.id}/duedate`, { token: outsider.token, body: { duedate: '2027-06-02T10:00:00.000+0000' } })).status).toBe(404);
    const unchanged = await pool().query('select due_date from app_public.workflow_jobs where id = $1', [job.id]);
    expect(unchanged.rows[0].due_date.toISOString()).toBe(job.due_date.toISOString());

    // Other offsets mean the same instant: +0200, +02:00 and Z.
    for (const duedate of ['2027-06-02T12:00:00.000+0200', '2027-06-02T12:00:00+02:00', '2027-06-02T10:00:00Z']) {
      expect((await t.api('PUT', `${BASE}/job/${job.id}/duedate`, { token: therapist.token, body: { duedate } })).status).toBe(204);
      const stored = await pool().query('select due_date from app_public.workflow_jobs where id = $1', [job.id]);
      expect(stored.rows[0].due_date.toISOString()).toBe('2027-06-02T10:00:00.000Z');
    }
    const moved = await t.api('PUT', `${BASE}/job/${job.id}/duedate`, { token: therapist.token, body: { duedate: '2027-06-02T10:00:00.000+0000' } });
    expect(moved.status).toBe(204);
    // The moved timer fires at its new time: the reminder mail goes out a day later, once.
    const before = t.smtp.mails.length;
    now += 86_400_000 + 3 * 3_600_000;
    await t.sanad.workflow.tick();
    await t.smtp.waitFor(patient.email, /reminder|Erinnerung|تذكير/i);
    expect(t.smtp.mails.length).toBe(before + 1);
    await t.sanad.workflow.tick();
    expect(t.smtp.mails.length).toBe(before + 1);
    expect((await pool().query('select 1 from app_public.workflow_jobs where id = $1', [job.id])).rowCount).toBe(0);
  });

  it('DELETE /process-instance/{id}: coordinators only; state EXTERNALLY_TERMINATED; bad flags 400', async () => {
    const [instance] = await running(caseId);
    expect((await t.api('DELETE', `${BASE}/process-instance/${instance.id}`, { token: therapist.token })).status).toBe(403);
    expect((await t.api('DELETE', `${BASE}/process-instance/${instance.id}?skipCustomListeners=maybe`, { token: coordinator.token })).status).toBe(400);
    expect((await t.api('DELETE', `${BASE}/process-instance/${instance.id}`, { token: coordinator.token })).status).toBe(204);
    const processes = await t.api('GET', `/api/my_running_processes?id=eq.${instance.id}`, { token: patient.token });
    expect(processes.body[0]).toMatchObject({ id: instance.id, business_key: 'trial', state: 'EXTERNALLY_TERMINATED', pending_timers: 0 });
    expect(processes.body[0].end_time).not.toBeNull();
    expect(await openTask(caseId, 'screeningTask')).toBeUndefined();
    const again = await t.api('DELETE', `${BASE}/process-instance/${instance.id}`, { token: coordinator.token });
    expect(again.status).toBe(404);
    expect(again.body.type).toBe('RestException');
  });
});

describe('reads and the task summary', () => {
  beforeAll(async () => {
    await terminateAll();
    await start(coordinator.token, { businessKey: 'trial', variables: caseVar(caseId) });
  });

  it('my_task_log answers the calls of spec §7', async () => {
    const first = await t.api('GET', '/api/my_task_log?or=(end_time.is.null,end_time.gte.2000-01-01T00:00:00Z)&order=end_time.desc.nullsfirst&limit=2000', { token: therapist.token });
    expect(first.status).toBe(200);
    expect(first.body[0].end_time).toBeNull();
    const open = await t.api('GET', '/api/my_task_log?end_time=is.null', { token: patient.token });
    expect(open.body.map((r: { task_definition_key: string }) => r.task_definition_key)).toEqual(['screeningTask']);
    const outsiderView = await t.api('GET', '/api/my_task_log', { token: outsider.token });
    expect(outsiderView.body).toEqual([]);
  });

  it('my_running_processes, my_dates and my_process_log are filtered to the person’s cases', async () => {
    const mine = await t.api('GET', '/api/my_running_processes?state=eq.ACTIVE', { token: patient.token });
    expect(mine.body).toHaveLength(1);
    expect(mine.body[0].pending_timers).toBe(1);
    expect((await t.api('GET', '/api/my_running_processes', { token: otherPatient.token })).body).toEqual([]);
    const dates = await t.api('GET', '/api/my_dates', { token: patient.token });
    expect(dates.body.map((d: { name: string }) => d.name)).toEqual(['screeningReminder']);
    expect((await t.api('GET', '/api/my_dates', { token: outsider.token })).body).toEqual([]);
    const log = await t.api('GET', '/api/my_process_log?activity_id=eq.start', { token: therapist.token });
    expect(log.body.length).toBeGreaterThanOrEqual(1);
  });

  it('PagedCases carries the task summary for staff, nothing for patients', async () => {
    const query = `{ pagedCases(first: 50) { nodes { id nextWaitingDate patients: taskSummary(groupName: "patients") { countOfOpen latestDue countOfOverdue nextTime }
                     therapists: taskSummary(groupName: "therapists") { countOfOpen countOfOverdue } } } }`;
    const staff = await t.graphql(query, {}, therapist.token);
    expect(staff.errors).toBeUndefined();
    const row = staff.data.pagedCases.nodes.find((n: { id: string }) => n.id === caseId);
    expect(row.patients.countOfOpen).toBe(1);
    expect(row.patients.countOfOverdue).toBeNull();
    expect(row.therapists).toMatchObject({ countOfOpen: 0, countOfOverdue: 0 });
    expect(row.nextWaitingDate).not.toBeNull();
    const own = await t.graphql(query, {}, patient.token);
    const ownRow = own.data.pagedCases.nodes.find((n: { id: string }) => n.id === caseId);
    expect(ownRow.patients.countOfOpen).toBe(0);
  });
});

describe('handler retries', () => {
  it('a failing handler is retried with backoff, then marked failed and shown to coordinators; retries resume it', async () => {
    await terminateAll();
    failNext = 10;
    expect((await start(coordinator.token, { businessKey: 'trial', variables: caseVar(caseId) })).status).toBe(200);
    const job = async () =>
      (await pool().query(`select id, attempts, due_date, failed_at, last_error from app_public.workflow_jobs where case_id = $1 and kind = 'retry'`, [caseId])).rows[0];
    expect(await job()).toMatchObject({ attempts: 1, failed_at: null, last_error: 'the mail server is down' });
    expect((await job()).due_date.toISOString()).toBe(new Date(now + 60_000).toISOString());
    now += 30_000;
    await t.sanad.workflow.tick();
    expect((await job()).attempts).toBe(1);
    now += 30_000;
    await t.sanad.workflow.tick();
    expect((await job()).attempts).toBe(2);
    expect((await job()).due_date.toISOString()).toBe(new Date(now + 120_000).toISOString());
    now += 120_000;
    await t.sanad.workflow.tick();
    const failed = await job();
    expect(failed.attempts).toBe(3);
    expect(failed.failed_at).not.toBeNull();
    // Coordinators and care staff see it; the patient does not.
    const seen = await t.graphql(`{ allWorkflowJobs(condition: { kind: "retry" }) { nodes { id lastError failedAt } } }`, {}, coordinator.token);
    expect(seen.data.allWorkflowJobs.nodes.map((n: { id: string }) => n.id)).toContain(failed.id);
    const hidden = await t.graphql(`{ allWorkflowJobs(condition: { kind: "retry" }) { nodes { id } } }`, {}, patient.token);
    expect(hidden.data.allWorkflowJobs.nodes).toEqual([]);
    // The task list's stuck steps (failedWorkflowJobs): the people who may retry it, nobody else.
    const stuck = async (person: Person) => {
      const answer = await t.graphql(`{ failedWorkflowJobsList { id activityId attempts lastError failedAt caseId } }`, {}, person.token);
      expect(answer.errors).toBeUndefined();
      return answer.data.failedWorkflowJobsList as { id: string; lastError: string; attempts: number; caseId: string }[];
    };
    expect(await stuck(coordinator)).toContainEqual(expect.objectContaining({ id: failed.id, lastError: 'the mail server is down', attempts: 3, caseId }));
    expect((await stuck(therapist)).map((j) => j.id)).toContain(failed.id);
    expect((await stuck(outsider)).map((j) => j.id)).not.toContain(failed.id);
    expect(await stuck(patient)).toEqual([]);
    const refused = await t.api('PUT', `${BASE}/job/${failed.id}/retries`, { token: outsider.token, body: { retries: 1 } });
    expect(refused.status).toBe(404);
    expect((await job()).failed_at).not.toBeNull();
    // A failed job waits until someone sets retries again.
    now += 3_600_000;
    await t.sanad.workflow.tick();
    expect((await job()).attempts).toBe(3);
    failNext = 0;
    expect((await t.api('PUT', `${BASE}/job/${failed.id}/retries`, { token: coordinator.token, body: { retries: 1 } })).status).toBe(204);
    await t.sanad.workflow.tick();
    expect(await job()).toBeUndefined();
    expect(await stuck(coordinator)).toEqual([]);
    expect(await openTask(caseId, 'screeningTask')).toBeDefined();
  });
});
