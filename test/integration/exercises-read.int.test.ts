/**
 * The exercises of a case as each person reads them (issue 14 item 2): the same reads the
 * screens make (/all-exercises for the patient, the case page's exercises section for staff):
 * the worksheet collections, the feedback and the worksheet tasks of the treatment modules.
 * The patient sees their drafts; the care team sees sent entries and the assigned worksheets
 * but never a draft; staff outside the case, another patient and coordinators read no entries.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { assignmentStatus, staffWorksheetState, worksheetState, WORKSHEETS, type WorksheetCode } from '../../src/domain/worksheets';
import { startTestApp, type TestApp } from '../helpers/app';

const MODULES = { a: [{ worksheet: 'cbt_thoughts', week: 1 }, { worksheet: 'cbt_reframings', week: 2 }] };
const SHEETS: WorksheetCode[] = ['cbt_thoughts', 'cbt_reframings'];
const TASKS = `query WorksheetTasks($caseId: UUID!) {
  allWorkflowTasksList(condition: { caseId: $caseId, taskDefinitionKey: "worksheetTask" }, orderBy: [DUE_ASC]) {
    id due endTime deleteReason workflowInstanceByProcessInstanceId { definitionKey businessKey }
  }
}`;

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
const people: Record<string, Person> = {};
let caseId: string;
let sentId: string;
const pool = () => t.database.db.pool;
const UPSERT = { Prefer: 'resolution=merge-duplicates, return=representation' };

function entry(code: WorksheetCode, send: boolean): Record<string, unknown> {
  const row: Record<string, unknown> = { id: randomUUID(), case_id: caseId, ...(send ? { published_at: new Date().toISOString() } : {}) };
  for (const field of WORKSHEETS[code].fields) row[field.name] = field.kind === 'scale' ? 5 : field.kind === 'choices' ? ['labeling'] : `${field.name} (invented)`;
  return row;
}

beforeAll(async () => {
  t = await startTestApp({ TREATMENT_MODULES: JSON.stringify(MODULES) });
  people.patient = await t.user({ flags: ['patient'] });
  caseId = people.patient.caseId!;
  for (const role of ['therapist', 'supervisor'] as const) {
    people[role] = await t.user({ flags: [role] });
    await addMember(pool(), caseId, people[role]!.username, [role]);
  }
  people.outsider = await t.user({ flags: ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor'] });
  people.otherPatient = await t.user({ flags: ['patient'] });
  people.coordinator = await t.user({ flags: ['coordinator'] });
  // A fixture of an assignment the trial's randomization step would have made (the step's own door,
  // 0150's _050_in_step, is tested in one-door.int.test.ts).
  await pool().query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
  await pool().query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'a', '*', 'blocks')`, [caseId]);
  await t.sanad.workflow.tick();
  await t.sanad.workflow.tick();

  const post = (code: WorksheetCode, body: unknown, who: string) => t.api('POST', `/api/${code}`, { body, token: people[who]!.token, headers: UPSERT });
  expect((await post('cbt_thoughts', entry('cbt_thoughts', false), 'patient')).status).toBe(201);
  const sent = entry('cbt_reframings', true);
  sentId = sent.id as string;
  expect((await post('cbt_reframings', sent, 'patient')).status).toBe(201);
  await t.sanad.workflow.tick();
  const feedback = await t.api('POST', '/api/worksheet_feedback', {
    body: { id: randomUUID(), case_id: caseId, worksheet: 'cbt_reframings', worksheet_id: sentId, body: 'Gut gemacht (erfunden)', format: 'plain', published_at: new Date().toISOString() },
    token: people.therapist!.token,
    headers: UPSERT,
  });
  expect(feedback.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** What the screen reads as this person: entries per worksheet, sent feedback ids, tasks. */
async function readAs(who: string) {
  const token = people[who]!.token;
  const entries: Record<string, { id: string; published_at: string | null }[]> = {};
  for (const code of SHEETS) {
    const answer = await t.api('GET', `/api/${code}?case_id=eq.${caseId}`, { token });
    expect(answer.status).toBe(200);
    entries[code] = answer.body;
  }
  const feedback = await t.api('GET', `/api/worksheet_feedback?case_id=eq.${caseId}`, { token });
  expect(feedback.status).toBe(200);
  const answered = new Set((feedback.body as { worksheet_id: string; published_at: string | null }[]).filter((f) => f.published_at).map((f) => f.worksheet_id));
  const tasks = await t.graphql(TASKS, { caseId }, token);
  expect(tasks.errors).toBeUndefined();
  const withFeedback = (code: string) => entries[code]!.map((e) => ({ published_at: e.published_at, has_feedback: answered.has(e.id) }));
  return {
    entries,
    patientStates: Object.fromEntries(SHEETS.map((code) => [code, worksheetState(withFeedback(code))])),
    staffStates: Object.fromEntries(SHEETS.map((code) => [code, staffWorksheetState(withFeedback(code))])),
    tasks: (tasks.data.allWorkflowTasksList as { due: string; endTime: string | null; deleteReason: string | null; workflowInstanceByProcessInstanceId: { businessKey: string } }[]).map(
      (task) => [task.workflowInstanceByProcessInstanceId.businessKey, assignmentStatus(task, new Date())],
    ),
  };
}

describe('reading the exercises of a case', () => {
  it('the patient sees their draft, the sent entry with its feedback, and the assigned worksheets', async () => {
    const seen = await readAs('patient');
    expect(seen.patientStates).toEqual({ cbt_thoughts: 'draft', cbt_reframings: 'feedback' });
    expect(seen.tasks).toEqual([['cbt_thoughts', 'due'], ['cbt_reframings', 'done']]);
  });

  it.each(['therapist', 'supervisor'])('the %s of the case sees sent entries and the assignments, never the draft', async (who) => {
    const seen = await readAs(who);
    expect(seen.entries.cbt_thoughts).toEqual([]);
    expect(seen.entries.cbt_reframings!.map((e) => e.id)).toEqual([sentId]);
    expect(seen.staffStates).toEqual({ cbt_thoughts: 'notSent', cbt_reframings: 'feedbackGiven' });
    expect(seen.tasks).toEqual([['cbt_thoughts', 'due'], ['cbt_reframings', 'done']]);
  });

  it.each(['outsider', 'otherPatient'])('%s reads no entry, no feedback and no task of the case', async (who) => {
    const seen = await readAs(who);
    expect(seen.entries).toEqual({ cbt_thoughts: [], cbt_reframings: [] });
    expect(seen.staffStates).toEqual({ cbt_thoughts: 'notSent', cbt_reframings: 'notSent' });
    expect(seen.tasks).toEqual([]);
  });

  it('a coordinator who is not a member reads no entry (the workflow tasks they manage stay visible)', async () => {
    const seen = await readAs('coordinator');
    expect(seen.entries).toEqual({ cbt_thoughts: [], cbt_reframings: [] });
    expect(seen.tasks).toHaveLength(2);
  });
});
