/**
 * The closed safety loop (issue 26, item 1) over real HTTP and a real database: the risk task
 * carries its patient, answer and calls; a call is recorded from the task and linked to it;
 * "I am on it" per role; the task closes only with a call or a documented reason, on every path,
 * per role, and a refusal changes nothing; the escalation chain (coordinators, then the on-call
 * address) under a test clock; the coordinators' response-time report and its figures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';

const MINUTE = 60_000;
let t: TestApp;
let now = Date.now();
const clock = { now: () => new Date(now) };
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, therapist: Person, supervisor: Person, supporter: Person, counselor: Person, interviewer: Person, outsider: Person;
const ON_CALL = 'oncall@clinic.example';
const PHQ9 = { item1: 1, item2: 1, item3: 2, item4: 2, item5: 1, item6: 1, item7: 0, item8: 1, item10: 'somewhat' };
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const pool = () => t.database.db.pool;

interface RiskCase {
  patient: Person;
  caseId: string;
  taskId: string;
  signalId: string;
}

/** A case with the full staff, whose patient answers PHQ-9 item 9 with 2: one open risk task. */
async function riskCase(): Promise<RiskCase> {
  const patient = await t.user({ flags: ['patient'], alias: 'Amal' });
  const caseId = patient.caseId!;
  for (const [person, role] of [
    [therapist, 'therapist'],
    [supervisor, 'supervisor'],
    [supporter, 'supporter'],
    [counselor, 'counselor'],
    [interviewer, 'interviewer'],
  ] as const) {
    await addMember(pool(), caseId, person.username, [role] as never);
  }
  const answered = await t.api('POST', '/api/phq9', { token: patient.token, headers: UPSERT, body: { case_id: caseId, time_of_measurement: 'pre', ...PHQ9, item9: 2 } });
  expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300);
  await t.sanad.workflow.tick();
  const { rows } = await pool().query(
    `select t.id as task_id, s.id as signal_id from app_public.workflow_tasks t, app_public.safety_signals s
      where t.case_id = $1 and t.task_definition_key = 'safetySignalTask' and t.end_time is null and s.case_id = $1`,
    [caseId],
  );
  expect(rows).toHaveLength(1);
  return { patient, caseId, taskId: rows[0].task_id, signalId: rows[0].signal_id };
}

async function signal(id: string) {
  return (await pool().query('select * from app_public.safety_signals where id = $1', [id])).rows[0];
}

async function taskOpen(id: string): Promise<boolean> {
  return (await pool().query('select end_time from app_public.workflow_tasks where id = $1', [id])).rows[0].end_time === null;
}

const submit = (taskId: string, token: string, variables: Record<string, unknown> = {}) =>
  t.api('POST', `/api/workflow/rest/task/${taskId}/submit-form`, { token, body: { variables } });
const reason = (text: string) => ({ closingReason: { value: text, type: 'String' } });

const ACK = `mutation($id: UUID!) { acknowledgeSafetySignal(input: { signalId: $id }) { safetySignal { id acknowledgedAt acknowledgedBy } } }`;
const CALL = `mutation($input: CreateCaseSuicideCallInput!) { createCaseSuicideCall(input: $input) { caseSuicideCall { id safetySignalId } } }`;
const TASK = `query($id: UUID!) {
  workflowTaskById(id: $id) {
    id taskDefinitionKey
    caseByCaseId { id shortId patient { alias username } }
    safetySignal { id source details raisedAt acknowledgedAt firstCallAt caseSuicideCallsBySafetySignalId { nodes { id } } }
    suicideCall { id riskOfSuicide userByUserIdCaller { username } }
  }
}`;

beforeAll(async () => {
  t = await startTestApp({ SAFETY_ACK_DUE: 'PT1H', SAFETY_ON_CALL_AFTER: 'PT30M', SAFETY_ON_CALL_EMAIL: ON_CALL }, {}, { workflowClock: clock });
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  supervisor = await t.user({ flags: ['supervisor'] });
  supporter = await t.user({ flags: ['supporter'] });
  counselor = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  outsider = await t.user({ flags: ['therapist'] });
  const other = await t.user({ flags: ['patient'] });
  await addMember(pool(), other.caseId!, outsider.username, ['therapist']);
  await pool().query(`update app_public.users set locale = 'en' where not is_patient_account`);
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe('the risk task carries the patient, the answer and the calls', () => {
  it('staff of the case read the answer, the patient and the linked call through the task; others read nothing', async () => {
    const risk = await riskCase();
    const seen = await t.graphql(TASK, { id: risk.taskId }, therapist.token);
    expect(seen.errors).toBeUndefined();
    const task = seen.data.workflowTaskById;
    expect(task.caseByCaseId.patient.alias).toBe('Amal');
    expect(task.safetySignal).toMatchObject({ id: risk.signalId, source: 'phq9', acknowledgedAt: null, firstCallAt: null });
    expect(task.safetySignal.details).toMatchObject({ item9: 2, timeOfMeasurement: 'pre', flags: ['suicide_item'] });
    expect(task.suicideCall).toBeNull();
    // A call recorded from the task names it, and takes the task on.
    const call = await t.graphql(CALL, { input: { caseSuicideCall: { caseId: risk.caseId, safetySignalId: risk.signalId, patientReached: true, riskOfSuicide: 'low' } } }, therapist.token);
    expect(call.errors).toBeUndefined();
    const after = (await t.graphql(TASK, { id: risk.taskId }, therapist.token)).data.workflowTaskById.safetySignal;
    expect(after.caseSuicideCallsBySafetySignalId.nodes.map((n: { id: string }) => n.id)).toEqual([call.data.createCaseSuicideCall.caseSuicideCall.id]);
    expect(after.firstCallAt).not.toBeNull();
    expect((await signal(risk.signalId)).acknowledged_by).toBe(therapist.id);
    // The patient and a therapist of another case: no task, no signal.
    for (const person of [risk.patient, outsider]) {
      const other = await t.graphql(TASK, { id: risk.taskId }, person.token);
      expect(other.data?.workflowTaskById ?? null).toBeNull();
    }
  });

  it("a call cannot name another case's risk answer, and the patient cannot record one; nothing is stored", async () => {
    const a = await riskCase();
    const b = await riskCase();
    const count = async () => (await pool().query('select count(*)::int as n from app_public.case_suicide_calls where safety_signal_id in ($1, $2)', [a.signalId, b.signalId])).rows[0].n;
    const crossed = await t.graphql(CALL, { input: { caseSuicideCall: { caseId: a.caseId, safetySignalId: b.signalId } } }, coordinator.token);
    expect(crossed.errors?.[0]?.extensions?.code).toBe('SIGNAL_OF_ANOTHER_CASE');
    const byPatient = await t.graphql(CALL, { input: { caseSuicideCall: { caseId: a.caseId, safetySignalId: a.signalId } } }, a.patient.token);
    expect(byPatient.errors).toBeDefined();
    expect(await count()).toBe(0);
    expect((await signal(a.signalId)).acknowledged_at).toBeNull();
  });

  it("the coordinators' review task reads its call in words (risk, caller), not an id", async () => {
    const risk = await riskCase();
    const created = await t.graphql(CALL, { input: { caseSuicideCall: { caseId: risk.caseId, riskOfSuicide: 'high', informCoordinator: true } } }, therapist.token);
    expect(created.errors).toBeUndefined();
    await t.sanad.workflow.tick();
    const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'reviewSuicideCall'`, [risk.caseId]);
    const review = (await t.graphql(TASK, { id: rows[0].id }, coordinator.token)).data.workflowTaskById;
    expect(review.suicideCall).toMatchObject({ riskOfSuicide: 'high', userByUserIdCaller: { username: therapist.username } });
    expect(review.safetySignal).toBeNull();
  });
});

describe('"I am on it": who may take a risk task on', () => {
  it('the responsible group and coordinators may; other roles, the patient and other cases are refused with nothing changed', async () => {
    const risk = await riskCase();
    const refused: [string, Person, string][] = [
      ['supervisor', supervisor, 'SAFETY_TASK_NOT_YOURS'],
      ['supporter', supporter, 'SAFETY_TASK_NOT_YOURS'],
      ['counselor', counselor, 'SAFETY_TASK_NOT_YOURS'],
      ['interviewer', interviewer, 'SAFETY_TASK_NOT_YOURS'],
      ['patient', risk.patient, 'NOT_INVOLVED'],
      ['therapist of another case', outsider, 'NOT_INVOLVED'],
    ];
    for (const [name, person, code] of refused) {
      const result = await t.graphql(ACK, { id: risk.signalId }, person.token);
      expect(result.errors?.[0]?.extensions?.code, name).toBe(code);
      expect((await signal(risk.signalId)).acknowledged_at, name).toBeNull();
    }
    const own = await t.graphql(ACK, { id: risk.signalId }, therapist.token);
    expect(own.errors).toBeUndefined();
    expect(own.data.acknowledgeSafetySignal.safetySignal.acknowledgedBy).toBe(therapist.id);
    const first = (await signal(risk.signalId)).acknowledged_at;
    // A coordinator may too; the first person and time are kept.
    const again = await t.graphql(ACK, { id: risk.signalId }, coordinator.token);
    expect(again.errors).toBeUndefined();
    expect(await signal(risk.signalId)).toMatchObject({ acknowledged_by: therapist.id, acknowledged_at: first });
    const byCoordinator = await riskCase();
    expect((await t.graphql(ACK, { id: byCoordinator.signalId }, coordinator.token)).data.acknowledgeSafetySignal.safetySignal.acknowledgedBy).toBe(coordinator.id);
  });
});

describe('closing the risk task', () => {
  it('is refused without a call or a reason (REST submit-form), and the refusal changes nothing', async () => {
    const risk = await riskCase();
    for (const variables of [{}, reason('   ')]) {
      const refused = await submit(risk.taskId, therapist.token, variables);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('SAFETY_TASK_NEEDS_CALL_OR_REASON');
      expect(refused.body.message).toMatch(/recorded call or a documented reason/);
    }
    expect(await taskOpen(risk.taskId)).toBe(true);
    expect(await signal(risk.signalId)).toMatchObject({ resolved_at: null, closing_reason: null });
    // Not through /complete either (same command), nor by a server path that ends the task itself.
    expect((await t.api('POST', `/api/workflow/rest/task/${risk.taskId}/complete`, { token: coordinator.token, body: {} })).status).toBe(400);
    const client = await pool().connect();
    try {
      await client.query('begin');
      await expect(client.query(`update app_public.workflow_tasks set end_time = now(), delete_reason = 'completed' where id = $1`, [risk.taskId])).rejects.toThrow(
        /recorded call or a documented reason/,
      );
    } finally {
      await client.query('rollback');
      client.release();
    }
    expect(await taskOpen(risk.taskId)).toBe(true);
  });

  it('who may close: the responsible group and coordinators, own case only; refusals change nothing', async () => {
    const risk = await riskCase();
    const refused: [string, Person][] = [
      ['supervisor', supervisor],
      ['supporter', supporter],
      ['counselor', counselor],
      ['interviewer', interviewer],
      ['patient', risk.patient],
      ['therapist of another case', outsider],
    ];
    for (const [name, person] of refused) {
      const result = await submit(risk.taskId, person.token, reason('Spoke to the patient in the clinic'));
      expect([403, 404], name).toContain(result.status);
      expect(await taskOpen(risk.taskId), name).toBe(true);
      expect(await signal(risk.signalId), name).toMatchObject({ resolved_at: null, closing_reason: null });
    }
    // The therapist of the case with a documented reason.
    const closed = await submit(risk.taskId, therapist.token, reason('Seen in person at the clinic today; crisis plan agreed.'));
    expect(closed.status).toBe(204);
    expect(await taskOpen(risk.taskId)).toBe(false);
    expect(await signal(risk.signalId)).toMatchObject({ resolved_by: therapist.id, closing_reason: 'Seen in person at the clinic today; crisis plan agreed.' });
    // A coordinator with a recorded call (made from the case, after the signal, not linked).
    const second = await riskCase();
    expect((await t.graphql(CALL, { input: { caseSuicideCall: { caseId: second.caseId, patientReached: true } } }, therapist.token)).errors).toBeUndefined();
    expect((await submit(second.taskId, coordinator.token)).status).toBe(204);
    expect(await signal(second.signalId)).toMatchObject({ resolved_by: coordinator.id, closing_reason: null });
  });
});

describe('the escalation chain (test clock)', () => {
  const mails = (to: string, subject: RegExp) => t.smtp.mails.filter((m) => m.to.includes(to.toLowerCase()) && subject.test(m.subject)).length;

  it('nobody on it after SAFETY_ACK_DUE: the coordinators; SAFETY_ON_CALL_AFTER later: the on-call address; taken on: nobody', async () => {
    const saved = now;
    try {
      const risk = await riskCase();
      const taken = await riskCase();
      // Only these two cases' timers may come due here.
      await pool().query(`update app_public.workflow_jobs set due_date = due_date + interval '100 years' where case_id not in ($1, $2)`, [risk.caseId, taken.caseId]);
      expect((await t.graphql(ACK, { id: taken.signalId }, therapist.token)).errors).toBeUndefined();
      t.smtp.clear();
      now += 59 * MINUTE;
      await t.sanad.workflow.tick();
      expect(mails(coordinator.email, /nobody has taken on/)).toBe(0);
      expect((await signal(risk.signalId)).escalated_to_coordinators_at).toBeNull();

      now += 2 * MINUTE;
      await t.sanad.workflow.tick();
      await t.smtp.waitFor(coordinator.email, /nobody has taken on/);
      expect(mails(coordinator.email, /nobody has taken on/)).toBe(1);
      expect((await signal(risk.signalId)).escalated_to_coordinators_at?.getTime()).toBe(now);
      expect(mails(ON_CALL, /./)).toBe(0);
      // The task stays open for its people.
      expect(await taskOpen(risk.taskId)).toBe(true);

      now += 31 * MINUTE;
      await t.sanad.workflow.tick();
      await t.smtp.waitFor(ON_CALL, /./);
      expect(mails(ON_CALL, /./)).toBe(1);
      // In the clinic's first language (LOCALES), the address has no profile.
      expect(t.smtp.mails.find((m) => m.to.includes(ON_CALL))!.subject).toMatch(/سند/);
      expect((await signal(risk.signalId)).escalated_to_on_call_at?.getTime()).toBe(now);
      // Mails carry nothing of the case.
      const mail = t.smtp.mails.find((m) => m.to.includes(ON_CALL))!;
      expect(mail.text).not.toContain(risk.caseId);
      expect(mail.text).not.toContain('Amal');
      // The task that was taken on escalated to nobody.
      expect(await signal(taken.signalId)).toMatchObject({ escalated_to_coordinators_at: null, escalated_to_on_call_at: null });
      expect(mails(coordinator.email, /nobody has taken on/)).toBe(1);
    } finally {
      now = saved;
    }
  });
});

describe('the safety banner: open risk tasks a person can act on', () => {
  const BANNER = `{ myOpenRiskTasksList { id caseId caseByCaseId { shortId patient { alias } } safetySignal { acknowledgedAt } } }`;

  it('the therapist of the case and every coordinator see it; other roles, the patient and other cases do not; it goes when the task closes', async () => {
    const risk = await riskCase();
    const sees = async (person: Person) => {
      const result = await t.graphql(BANNER, {}, person.token);
      expect(result.errors).toBeUndefined();
      return (result.data.myOpenRiskTasksList as { id: string }[]).some((x) => x.id === risk.taskId);
    };
    expect(await sees(therapist)).toBe(true);
    expect(await sees(coordinator)).toBe(true);
    for (const person of [supervisor, supporter, counselor, interviewer, outsider, risk.patient]) expect(await sees(person), person.username).toBe(false);
    const row = (await t.graphql(BANNER, {}, therapist.token)).data.myOpenRiskTasksList.find((x: { id: string }) => x.id === risk.taskId);
    expect(row.caseByCaseId.patient.alias).toBe('Amal');
    expect((await submit(risk.taskId, therapist.token, reason('Seen at the clinic'))).status).toBe(204);
    expect(await sees(therapist)).toBe(false);
    expect(await sees(coordinator)).toBe(false);
  });
});

describe("the coordinators' response-time report", () => {
  const REPORT = `query($from: Datetime) { safetyResponseTimesList(raisedFrom: $from) { id caseId raisedAt acknowledgedAt firstCallAt resolvedAt closingReason caseByCaseId { shortId } } }`;

  it('coordinators only; the rows carry the stored times and the figures reconcile with them', async () => {
    const from = new Date(Date.UTC(2031, 0, 1));
    const at = (minutes: number) => new Date(from.getTime() + minutes * MINUTE);
    // Three risk answers with known times, moved into a period of their own.
    const a = await riskCase();
    const b = await riskCase();
    const c = await riskCase();
    const set = (id: string, raised: number, ack: number | null) =>
      pool().query('update app_public.safety_signals set raised_at = $2, acknowledged_at = $3 where id = $1', [id, at(raised), ack === null ? null : at(ack)]);
    await set(a.signalId, 0, 12);
    await set(b.signalId, 60, 100);
    await set(c.signalId, 120, null);
    const call = async (risk: RiskCase, minute: number) => {
      const made = await t.graphql(CALL, { input: { caseSuicideCall: { caseId: risk.caseId, safetySignalId: risk.signalId, callDate: at(minute).toISOString() } } }, therapist.token);
      expect(made.errors).toBeUndefined();
    };
    await call(a, 30);
    await call(b, 160);
    // Recording the call took nothing away from the stored acknowledgement times.
    expect((await signal(a.signalId)).acknowledged_at.getTime()).toBe(at(12).getTime());
    expect((await submit(a.taskId, therapist.token)).status).toBe(204);

    for (const person of [therapist, supervisor, outsider, a.patient]) {
      const result = await t.graphql(REPORT, { from: from.toISOString() }, person.token);
      expect(result.errors, person.username).toBeUndefined();
      expect(result.data.safetyResponseTimesList, person.username).toEqual([]);
    }
    const rows = (await t.graphql(REPORT, { from: from.toISOString() }, coordinator.token)).data.safetyResponseTimesList as {
      id: string; caseId: string; raisedAt: string; acknowledgedAt: string | null; firstCallAt: string | null; resolvedAt: string | null; closingReason: string | null; caseByCaseId: { shortId: string };
    }[];
    expect(rows.map((r) => r.id)).toEqual([a.signalId, b.signalId, c.signalId]);
    const { summarizeResponses } = await import('../../src/domain/safety-report');
    const summary = summarizeResponses(
      rows.map((r) => ({ caseId: r.caseId, shortId: r.caseByCaseId.shortId, raisedAt: r.raisedAt, acknowledgedAt: r.acknowledgedAt, firstCallAt: r.firstCallAt, resolvedAt: r.resolvedAt, closedWithReason: Boolean(r.closingReason) })),
    );
    expect(summary.overall).toEqual({
      count: 3,
      open: 2,
      notAcknowledged: 1,
      withoutCall: 1,
      acknowledgement: { median: 26, max: 40 },
      call: { median: 65, max: 100 },
    });
    expect(summary.cases.map((x) => x.figures.call.max)).toEqual([30, 100, null]);
  });
});
