/**
 * `npm run demo`: every demo account finds something real on its home and, where its role has
 * one, in its task list; the patients' trials stand at different stages; a second seed changes
 * nothing. The seed drives the app through its own routes, as the CLI does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNTS, DEMO_ARMS, DEMO_PASSWORD, DEMO_STAGES, seedDemo, seedDemoActivity, type SeededAccount } from '../../src/server/admin/demo';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
let seeded: SeededAccount[];
const tokens = new Map<string, string>();

async function token(username: string): Promise<string> {
  if (!tokens.has(username)) {
    const response = await t.api('POST', '/api/auth/tokens', { body: { username, password: DEMO_PASSWORD } });
    expect(response.status).toBe(201);
    tokens.set(username, response.body.encoded as string);
  }
  return tokens.get(username)!;
}

async function gql(username: string, query: string, variables: Record<string, unknown> = {}) {
  const body = (await t.graphql(query, variables, await token(username))) as { data: Record<string, any>; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data;
}

const app = () => ({ inject: (request: never) => t.sanad.app.inject(request), tick: () => t.sanad.workflow.tick() });

beforeAll(async () => {
  t = await startTestApp();
  seeded = await seedDemo(t.database.db.pool);
  await seedDemoActivity(app(), t.database.db.pool, seeded);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('npm run demo', () => {
  it('moves the patients to different stages of the trial', async () => {
    const patients = seeded.filter((s) => s.flags.includes('patient'));
    const { rows } = await t.database.db.pool.query<{ id: string; stage: string }>('select id, stage from app_public.cases where id = any($1)', [patients.map((p) => p.caseId)]);
    const stages = patients.map((p) => rows.find((r) => r.id === p.caseId)?.stage);
    expect(stages).toEqual([...DEMO_STAGES]);
  });

  it('configures the allocation, so the treated patient was randomized from the task to a drawn arm', async () => {
    const allocation = await t.api('GET', '/api/trial/allocation', { token: await token('demo-coordinator') });
    expect(allocation.status).toBe(200);
    expect(allocation.body.allocation).toMatchObject({ method: 'blocks', arms: DEMO_ARMS.map((code) => ({ code, ratio: 1 })) });
    const patients = seeded.filter((s) => s.flags.includes('patient'));
    const { rows } = await t.database.db.pool.query<{ case_id: string; treatment: string }>('select case_id, treatment from app_public.treatment_assignments where case_id = any($1)', [patients.map((p) => p.caseId)]);
    const treated = patients[DEMO_STAGES.indexOf('treatment')]!;
    expect(rows).toEqual([{ case_id: treated.caseId, treatment: expect.stringMatching(new RegExp(`^(${DEMO_ARMS.join('|')})$`)) }]);
  });

  it('takes the treated patient through the real doors: a signed report decided the interview, the randomization step drew the arm', async () => {
    const treated = seeded.filter((s) => s.flags.includes('patient'))[DEMO_STAGES.indexOf('treatment')]!;
    const pool = t.database.db.pool;
    const reports = await pool.query('select id, state, trial_outcome, finalized_by from app_public.interview_reports where case_id = $1', [treated.caseId]);
    const interviewer = seeded.find((s) => s.username === 'demo-interviewer')!;
    expect(reports.rows).toEqual([{ id: expect.any(String), state: 'final', trial_outcome: 'ptsd', finalized_by: interviewer.id }]);
    const { rows } = await pool.query(`select variables from app_public.workflow_instances where case_id = $1 and business_key = 'trial'`, [treated.caseId]);
    expect(rows[0].variables.interviewReportId.value).toBe(reports.rows[0].id);
    const tasks = await pool.query(`select task_definition_key, end_time is null as open from app_public.workflow_tasks where case_id = $1 and task_definition_key in ('interviewTask', 'randomizeTask')`, [treated.caseId]);
    expect(tasks.rows.filter((r) => r.open)).toEqual([]);
    expect(tasks.rows.map((r) => r.task_definition_key).sort()).toEqual(['interviewTask', 'randomizeTask']);
  });

  it('gives every staff account and the counselor their cases, with messages, on their home', async () => {
    for (const account of DEMO_ACCOUNTS.filter((a) => !a.flags.includes('patient') && !a.flags.includes('coordinator'))) {
      const data = await gql(account.username, 'query { currentUser { caseMembersByUserIdList { caseId case: caseByCaseId { sentMessagesList { id } } } } }');
      const cases = data.currentUser.caseMembersByUserIdList as { case: { sentMessagesList: unknown[] } }[];
      expect(cases.length, account.username).toBeGreaterThanOrEqual(3);
      expect(cases.every((c) => c.case.sentMessagesList.length > 0), account.username).toBe(true);
    }
    const coordinator = await gql('demo-coordinator', 'query { caseList(first: 100) { totalCount } }');
    expect(coordinator.caseList.totalCount).toBeGreaterThanOrEqual(3);
  });

  it('gives every patient messages, and each what their stage asks of them', async () => {
    for (const username of ['demo-patient1', 'demo-patient2', 'demo-patient3']) {
      const messages = await t.api('GET', '/api/my_messages', { token: await token(username) });
      expect(messages.body.length, username).toBeGreaterThan(0);
    }
    const due = async (username: string) => ((await gql(username, 'query { myDueTasksList { taskDefinitionKey } }')).myDueTasksList as { taskDefinitionKey: string }[]).map((x) => x.taskDefinitionKey);
    expect(await due('demo-patient1')).toContain('screeningTask');
    expect(await due('demo-patient3')).toContain('preTask');
    const patient2 = seeded.find((s) => s.username === 'demo-patient2')!;
    const bookings = await gql('demo-patient2', 'query($caseId: UUID!) { queryBookingInfoByCaseIdList(caseId: $caseId) { id } }', { caseId: patient2.caseId });
    expect(bookings.queryBookingInfoByCaseIdList).toHaveLength(1);
  });

  it('fills the task lists of the interviewer and the coordinator, and the scores of the treated patient', async () => {
    const open = async (username: string) => (await gql(username, 'query { openWorkflowTasks(first: 50) { totalCount } }')).openWorkflowTasks.totalCount as number;
    expect(await open('demo-interviewer')).toBeGreaterThan(0);
    expect(await open('demo-coordinator')).toBeGreaterThan(0);
    const patient3 = seeded.find((s) => s.username === 'demo-patient3')!;
    const scores = await gql('demo-therapist', 'query($id: UUID!) { caseById(id: $id) { caseScoresList { instrument total } } }', { id: patient3.caseId });
    expect(scores.caseById.caseScoresList.length).toBeGreaterThanOrEqual(2);
  });

  it('changes nothing when seeded again', async () => {
    const count = async () => (await t.database.db.pool.query('select (select count(*) from app_public.case_messages) + (select count(*) from app_public.workflow_instances) + (select count(*) from app_public.treatment_assignments) as n')).rows[0].n;
    const before = await count();
    const again = await seedDemo(t.database.db.pool);
    expect(await seedDemoActivity(app(), t.database.db.pool, again)).toEqual([]);
    expect(await count()).toBe(before);
  });
});

describe('npm run demo leaves every feature with data (issue 27 item 1)', () => {
  const treated = () => seeded.filter((s) => s.flags.includes('patient'))[DEMO_STAGES.indexOf('treatment')]!;
  const one = async (text: string, values: unknown[] = []) => (await t.database.db.pool.query(text, values)).rows;

  it('leaves a signed report, a letter template and a sent letter from it, written by the therapist', async () => {
    const caseId = treated().caseId;
    expect(await one(`select state from app_public.interview_reports where case_id = $1`, [caseId])).toEqual([{ state: 'final' }]);
    const therapist = seeded.find((s) => s.username === 'demo-therapist')!;
    const coordinator = seeded.find((s) => s.username === 'demo-coordinator')!;
    const letters = await one(
      `select l.sender_id, l.published_at is not null as sent, t.editor_id, l.body from app_public.letters l join app_public.content_templates t on t.id = l.template_id where l.case_id = $1`,
      [caseId],
    );
    expect(letters).toEqual([{ sender_id: therapist.id, sent: true, editor_id: coordinator.id, body: expect.stringMatching(/^Dear /) }]);
    // the server filled the placeholders: the door the letter screen uses
    expect(letters[0].body).not.toMatch(/\{\{/);
  });

  it('leaves crisis contacts, a worksheet of the arm sent by the patient with the therapist’s feedback, a suicide-risk call and an invoice item', async () => {
    const caseId = treated().caseId;
    expect((await one(`select 1 from app_public.content_templates where type = 'MESSAGE' and code = 'crisis_help'`)).length).toBe(3);
    const patient = treated();
    const [arm] = await one('select treatment from app_public.treatment_assignments where case_id = $1', [caseId]);
    const sheets = await one('select worksheet from app_public.arm_worksheets where arm = $1 order by week', [arm.treatment]);
    const sheet = sheets[0].worksheet as string;
    expect(await one(`select submitter_id, published_at is not null as sent from app_public.${sheet} where case_id = $1`, [caseId])).toEqual([{ submitter_id: patient.id, sent: true }]);
    const therapist = seeded.find((s) => s.username === 'demo-therapist')!;
    expect(await one(`select worksheet, author_id, published_at is not null as sent from app_public.worksheet_feedback where case_id = $1`, [caseId])).toEqual([
      { worksheet: sheet, author_id: therapist.id, sent: true },
    ]);
    expect(await one(`select user_id_caller, risk_of_suicide from app_public.case_suicide_calls where case_id = $1`, [caseId])).toEqual([{ user_id_caller: therapist.id, risk_of_suicide: 'low' }]);
    const interviewer = seeded.find((s) => s.username === 'demo-interviewer')!;
    expect(await one(`select user_id, invoice_type, has_taken_place from app_public.invoice_items where case_id = $1`, [caseId])).toEqual([
      { user_id: interviewer.id, invoice_type: 'interview', has_taken_place: true },
    ]);
  });

  it('went through the doors: every record was written as its person (the audit log names them), none by the owner', async () => {
    const caseId = treated().caseId;
    const rows = await one(
      `select table_name, count(*) filter (where actor_id is null)::int as ownerless
         from app_public.audit_log where case_id = $1 and table_name in ('letters', 'worksheet_feedback', 'case_suicide_calls', 'interview_reports')
        group by table_name order by table_name`,
      [caseId],
    );
    expect(rows.map((r) => r.table_name)).toEqual(['case_suicide_calls', 'interview_reports', 'letters', 'worksheet_feedback']);
    expect(rows.every((r) => r.ownerless === 0), JSON.stringify(rows)).toBe(true);
  });
});
