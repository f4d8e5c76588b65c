/**
 * The reads behind the task screens (db/migrations/0014): openWorkflowTasks filters, sorts and
 * pages under row-level security, myDueTasks lists what is each person's own to do, mayComplete
 * says what submit-form will allow, and the incremental task-log query of spec §7 parses.
 * Processes start as registration starts them (a queued request the scheduler runs).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeTaskLog, taskLogQuery, type TaskLogEntry } from '../../src/domain/workflow-reads';
import { shortId } from '../../src/domain/short-id';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

const DAY = 86_400_000;
let t: TestApp;
// The workflow clock sets due dates; the database's now() decides what is overdue.
let now = Date.now() - 30 * DAY;
const clock = { now: () => new Date(now) };
const trial = trialDriver(() => t);
let coordinator: Person, therapist: Person, interviewer: Person, outsiderTherapist: Person;
let oldCase: { patient: Person; caseId: string };
let newCase: { patient: Person; caseId: string };

const pool = () => t.database.db.pool;

function newTrialCase(): Promise<{ patient: Person; caseId: string }> {
  return trial.newTrialCase([
    { person: therapist, roles: ['therapist'] },
    { person: interviewer, roles: ['interviewer'] },
  ]);
}

const TASKS = `query($dueBefore: Datetime, $overdue: Boolean, $groupName: String, $caseSearch: String, $sort: WorkflowTaskSort, $first: Int, $offset: Int) {
  openWorkflowTasks(dueBefore: $dueBefore, overdue: $overdue, groupName: $groupName, caseSearch: $caseSearch, sort: $sort, first: $first, offset: $offset) {
    totalCount nodes { id caseId taskDefinitionKey due priority created mayComplete caseByCaseId { shortId } }
  }
}`;

async function openTasks(token: string, variables: Record<string, unknown> = {}) {
  const body = await t.graphql(TASKS, variables, token);
  expect(body.errors).toBeUndefined();
  return body.data.openWorkflowTasks as { totalCount: number; nodes: { id: string; caseId: string; taskDefinitionKey: string; due: string; priority: number; created: string; mayComplete: boolean }[] };
}

async function dueTasks(token: string) {
  const body = await t.graphql(`{ myDueTasksList { id caseId taskDefinitionKey mayComplete } }`, {}, token);
  expect(body.errors).toBeUndefined();
  return body.data.myDueTasksList as { id: string; caseId: string; taskDefinitionKey: string; mayComplete: boolean }[];
}

beforeAll(async () => {
  t = await startTestApp({}, {}, { workflowClock: clock });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  outsiderTherapist = await t.user({ flags: ['therapist'] });
  // One case started a month ago (its screening task is overdue), one today.
  oldCase = await newTrialCase();
  now = Date.now();
  newCase = await newTrialCase();
  // The new case moves on to the interview: its interviewer has a task.
  await trial.advance(newCase.caseId, 'interview', { offerId: 'o1', bookingId: 'b1', startsAt: new Date(now + 3 * DAY) });
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('openWorkflowTasks', () => {
  it('shows staff the open tasks of their cases, coordinators all, outsiders none', async () => {
    const mine = [oldCase.caseId, newCase.caseId];
    const all = await openTasks(coordinator.token);
    expect(all.nodes.filter((n) => mine.includes(n.caseId)).map((n) => n.taskDefinitionKey).sort()).toEqual(['interviewTask', 'screeningTask']);
    const staff = await openTasks(therapist.token);
    expect(staff.nodes.every((n) => mine.includes(n.caseId))).toBe(true);
    expect(staff.totalCount).toBe(2);
    expect((await openTasks(outsiderTherapist.token)).totalCount).toBe(0);
    // A patient sees only the patients' tasks of their own case (the route is for staff anyway).
    const patientView = await openTasks(newCase.patient.token);
    expect(patientView.totalCount).toBe(0);
    expect((await openTasks(oldCase.patient.token)).nodes.map((n) => n.taskDefinitionKey)).toEqual(['screeningTask']);
    // Signed out: GraphQL gives nothing away.
    const anonymous = await t.graphql(TASKS, {}, '');
    expect(anonymous.data?.openWorkflowTasks?.nodes ?? []).toEqual([]);
  });

  it('filters by overdue, due window, group and short id', async () => {
    const overdue = await openTasks(therapist.token, { overdue: true });
    expect(overdue.nodes.map((n) => [n.caseId, n.taskDefinitionKey])).toEqual([[oldCase.caseId, 'screeningTask']]);
    const dueSoon = await openTasks(therapist.token, { dueBefore: new Date(Date.now() + 1 * DAY).toISOString() });
    expect(dueSoon.nodes.map((n) => n.taskDefinitionKey)).toEqual(['screeningTask']);
    const dueWeek = await openTasks(therapist.token, { dueBefore: new Date(Date.now() + 8 * DAY).toISOString() });
    expect(dueWeek.totalCount).toBe(2);
    const interviewers = await openTasks(therapist.token, { groupName: 'interviewers' });
    expect(interviewers.nodes.map((n) => n.taskDefinitionKey)).toEqual(['interviewTask']);
    const short = shortId(newCase.caseId);
    for (const search of [short, short.replace('…', '...'), ` ${newCase.caseId} `]) {
      const found = await openTasks(therapist.token, { caseSearch: search });
      expect(found.nodes.map((n) => n.caseId), search).toEqual([newCase.caseId]);
    }
    // A part of a short id, in any letter case, finds the case. With random ids another case may
    // share four characters, so every case found must hold them in its short id or start with them.
    const part = short.slice(0, 4).toUpperCase();
    const byPart = await openTasks(therapist.token, { caseSearch: part });
    expect(byPart.nodes.map((n) => n.caseId), part).toContain(newCase.caseId);
    for (const node of byPart.nodes) {
      const matches = shortId(node.caseId).toUpperCase().includes(part) || node.caseId.toUpperCase().startsWith(part);
      expect(matches, `${node.caseId} for ${part}`).toBe(true);
    }
    expect((await openTasks(therapist.token, { caseSearch: '%' })).totalCount).toBe(0);
  });

  it('sorts by due date, priority or creation and pages', async () => {
    const byDue = await openTasks(therapist.token, { sort: 'DUE' });
    expect(byDue.nodes.map((n) => n.taskDefinitionKey)).toEqual(['screeningTask', 'interviewTask']);
    const byCreated = await openTasks(therapist.token, { sort: 'CREATED' });
    expect(byCreated.nodes.map((n) => n.taskDefinitionKey)).toEqual(['interviewTask', 'screeningTask']);
    await pool().query(`update app_public.workflow_tasks set priority = 90 where case_id = $1 and end_time is null`, [oldCase.caseId]);
    const byPriority = await openTasks(therapist.token, { sort: 'PRIORITY' });
    expect(byPriority.nodes.map((n) => n.priority)).toEqual([90, 50]);
    const second = await openTasks(therapist.token, { sort: 'DUE', first: 1, offset: 1 });
    expect(second.totalCount).toBe(2);
    expect(second.nodes.map((n) => n.taskDefinitionKey)).toEqual(['interviewTask']);
    const bad = await t.graphql(TASKS, { sort: 'NAME' }, therapist.token);
    expect(bad.errors?.[0]?.message).toMatch(/WorkflowTaskSort/);
  });
});

describe('mayComplete and myDueTasks', () => {
  it('say what submit-form allows, per role', async () => {
    const [screening] = (await openTasks(coordinator.token, { caseSearch: oldCase.caseId })).nodes;
    expect(screening!.mayComplete).toBe(true); // coordinators may complete any task
    expect((await openTasks(therapist.token, { caseSearch: oldCase.caseId })).nodes[0]!.mayComplete).toBe(false);
    // The screening task is completed by the questionnaires, not by the patient's hand (0020).
    expect((await openTasks(oldCase.patient.token)).nodes[0]!.mayComplete).toBe(false);
    const interview = (await openTasks(interviewer.token, { groupName: 'interviewers' })).nodes[0]!;
    expect(interview.mayComplete).toBe(true);
    expect((await openTasks(therapist.token, { groupName: 'interviewers' })).nodes[0]!.mayComplete).toBe(false);
  });

  it('lists each person’s own open tasks, not the coordinator’s right to all', async () => {
    expect((await dueTasks(oldCase.patient.token)).map((x) => x.taskDefinitionKey)).toEqual(['screeningTask']);
    expect(await dueTasks(newCase.patient.token)).toEqual([]);
    expect((await dueTasks(interviewer.token)).map((x) => [x.caseId, x.taskDefinitionKey])).toEqual([[newCase.caseId, 'interviewTask']]);
    expect(await dueTasks(therapist.token)).toEqual([]);
    expect((await dueTasks(coordinator.token)).filter((x) => [oldCase.caseId, newCase.caseId].includes(x.caseId))).toEqual([]);
  });

  it('a completed task leaves both lists', async () => {
    const [task] = await dueTasks(interviewer.token);
    // The interview task closes when the report is signed (issue 27: the server's door).
    await trial.signedOutcome(newCase.caseId, interviewer, 'ptsd');
    expect((await dueTasks(interviewer.token)).map((x) => x.id)).not.toContain(task!.id);
    expect((await openTasks(therapist.token)).nodes.map((n) => n.id)).not.toContain(task!.id);
    // The accepted patient's randomization is now due for coordinators.
    expect((await dueTasks(coordinator.token)).filter((x) => x.caseId === newCase.caseId).map((x) => x.taskDefinitionKey)).toEqual(['randomizeTask']);
  });
});

describe('the incremental task log of spec §7', () => {
  it('the later query returns open tasks and those ended since the latest known end', async () => {
    const first = await t.api('GET', `/api/my_task_log?${taskLogQuery(null)}`, { token: therapist.token });
    expect(first.status).toBe(200);
    const known = mergeTaskLog(null, first.body as TaskLogEntry[]);
    expect(known.some((e) => e.end_time)).toBe(true);
    const later = await t.api('GET', `/api/my_task_log?${taskLogQuery(known)}`, { token: therapist.token });
    expect(later.status).toBe(200);
    const rows = later.body as TaskLogEntry[];
    const latest = Math.max(...known.filter((e) => e.end_time).map((e) => Date.parse(e.end_time!)));
    expect(rows.every((r) => r.end_time === null || Date.parse(r.end_time) >= latest)).toBe(true);
    // The latest ended task comes again (at or after), the open ones too.
    expect(rows.filter((r) => r.end_time).length).toBeGreaterThanOrEqual(1);
    expect(rows.filter((r) => !r.end_time).length).toBe(known.filter((e) => !e.end_time).length);
    expect(mergeTaskLog(known, rows).map((e) => e.id).sort()).toEqual(known.map((e) => e.id).sort());
  });
});

describe('process variables', () => {
  it('are for the care team and coordinators only, through REST; GraphQL does not show them', async () => {
    const { rows } = await pool().query(`select id from app_public.workflow_instances where case_id = $1`, [newCase.caseId]);
    const instanceId = rows[0].id as string;
    const path = `/api/workflow/rest/process-instance/${instanceId}/variables`;
    const staff = await t.api('GET', path, { token: interviewer.token });
    expect(staff.status).toBe(200);
    expect(staff.body.caseId).toEqual({ value: newCase.caseId, type: 'String' });
    expect(staff.body.outcome).toEqual({ value: 'ptsd', type: 'String' });
    expect((await t.api('GET', path, { token: coordinator.token })).status).toBe(200);
    const patientRest = await t.api('GET', path, { token: newCase.patient.token });
    expect(patientRest.status).toBe(403);
    // The patient still sees the process itself, but not its variables.
    const processes = await t.graphql(`{ allWorkflowInstancesList { id state businessKey } }`, {}, newCase.patient.token);
    expect(processes.data.allWorkflowInstancesList.map((p: { id: string }) => p.id)).toEqual([instanceId]);
    const variables = await t.graphql(`{ allWorkflowInstancesList { variables } }`, {}, newCase.patient.token);
    expect(variables.errors?.[0]?.message).toMatch(/variables/);
    expect(variables.data ?? null).toBeNull();
    // SQL as the request role: the column is out of reach.
    const client = await pool().connect();
    try {
      await client.query('begin');
      await client.query('set local role sanad_user');
      await expect(client.query('select variables from app_public.workflow_instances limit 1')).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
