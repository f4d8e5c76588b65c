/**
 * Issue 30 item 3: electronic signatures. Every signed act (signing and amending the interview
 * report, a coordinator's rule override, randomizing, excluding, closing a safety task,
 * withdrawing a participant and the legal hold) is
 * refused at its one door without a signing token (403 signature_required, nothing changed),
 * the token is obtained only with the right password, is bound to the person, the act and the
 * record and spent once; the signed act leaves a manifest (printed name, UTC time, meaning,
 * SHA-256 of the signed content kept for verification) that no role can change or delete.
 * These tests call the API without the test app's automatic signing (apiClient).
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNATURE_HEADER } from '../../src/domain/signatures';
import { addMember } from '../../src/server/admin/accounts';
import { verifyChains } from '../../src/server/integrity/chains';
import { apiClient, startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
let api: TestApp['api'];
const trial = trialDriver(() => t);
let people: Record<CastMember, Person>;
let caseA: string;
const pool = () => t.database.db.pool;
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const PASSWORD = 'correct horse battery';

const no = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, false]));
const yes = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, true]));
const ACCEPTED = {
  age: 30, sex: 'FEMALE', ...no('suicidality_c', [1, 2, 3, 4, 5, 6]), trauma_criterion_a: true, worst_event_on: '2020-01-01',
  ...yes('ptsd_g', [14, 19, 21, 22, 28, 29, 34, 36, 39, 40]), primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd',
};

beforeAll(async () => {
  t = await startTestApp();
  api = apiClient(t.url);
  ({ people, caseA } = await castOfRoles(t));
  const configured = await t.api('POST', '/api/trial/allocation', { token: people.coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } });
  expect(configured.status).toBe(201);
}, 180_000);
afterAll(async () => {
  await t?.close();
});

async function signingToken(person: Person, act: string, recordId: string, password = PASSWORD) {
  return api('POST', '/api/signing/tokens', { token: person.token, body: { act, recordId, password } });
}
async function tokenFor(person: Person, act: string, recordId: string): Promise<string> {
  const answer = await signingToken(person, act, recordId);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body.token;
}
const signed = (token: string) => ({ [SIGNATURE_HEADER]: token });

async function manifests(recordId: string) {
  return (await pool().query('select s.*, c.content from app_public.signatures s join app_private.signed_contents c on c.signature_id = s.id where record_id = $1 order by at', [recordId])).rows;
}
const exclusions = async (caseId: string) => (await pool().query('select flag, value from app_public.exclusion_changes where case_id = $1 order by changed_at', [caseId])).rows;
const spentTokens = async () => Number((await pool().query('select count(*) from app_private.signing_tokens where used_at is not null')).rows[0].count);

let slots = 0;
async function caseAtInterview() {
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE' });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, people.interviewer.username, ['interviewer']);
  slots += 1;
  const offer = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(now() - make_interval(mins => $2), now() - make_interval(mins => $2 - 60))) returning id`,
    [people.interviewer.id, 100 + 70 * slots],
  );
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, people.interviewer.id],
  );
  const bookingId = booking.rows[0]!.id;
  await trial.startTrial(caseId);
  await trial.advance(caseId, 'interview', { bookingId });
  return { caseId, bookingId };
}
async function draft(bookingId: string, values: Record<string, unknown>): Promise<string> {
  const saved = await api('POST', '/api/interview_reports', { token: people.interviewer.token, body: { booking_id: bookingId, ...values }, headers: UPSERT });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  return saved.body[0].id;
}

describe('re-authentication', () => {
  it('gives a token only for the right password, and says why not', async () => {
    const wrong = await signingToken(people.coordinator, 'exclude', caseA, 'not my password');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe('signing_password_wrong');
    const unknownAct = await api('POST', '/api/signing/tokens', { token: people.coordinator.token, body: { act: 'delete_everything', recordId: caseA, password: PASSWORD } });
    expect(unknownAct.status).toBe(400);
    expect((await api('POST', '/api/signing/tokens', { body: { act: 'exclude', recordId: caseA, password: PASSWORD } })).status).toBe(401);
    const logged = await pool().query(`select detail from app_public.account_log where user_id = $1 and event = 'sign_in_failed'`, [people.coordinator.id]);
    expect(logged.rows.map((r) => r.detail)).toContainEqual({ purpose: 'signature', act: 'exclude', reason: 'password' });
  });
});

describe('exclusion', () => {
  const body = { flag: 'exclude_from_analysis', value: true, reason: 'Withdrew consent for analysis' };
  const exclude = (person: Person, caseId: string, token?: string) =>
    api('POST', `/api/trial/cases/${caseId}/exclusion`, { token: person.token, body, ...(token ? { headers: signed(token) } : {}) });

  it('is refused without a signature, with a wrong one, and changes nothing', async () => {
    const before = await exclusions(caseA);
    const bare = await exclude(people.coordinator, caseA);
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ error: 'signature_required', act: 'exclude', recordId: caseA });
    const otherRecord = await tokenFor(people.coordinator, 'exclude', crypto.randomUUID());
    expect((await exclude(people.coordinator, caseA, otherRecord)).body.error).toBe('signature_invalid');
    const otherAct = await tokenFor(people.coordinator, 'randomize', caseA);
    expect((await exclude(people.coordinator, caseA, otherAct)).body.error).toBe('signature_invalid');
    const someoneElses = await tokenFor(people.therapist, 'exclude', caseA);
    expect((await exclude(people.coordinator, caseA, someoneElses)).body.error).toBe('signature_invalid');
    expect(await exclusions(caseA)).toEqual(before);
    expect(await manifests(caseA)).toEqual([]);
  });

  it('role matrix: only a coordinator excludes, even with a valid signature; a refusal spends no token', async () => {
    for (const member of ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider', 'otherTherapist'] as const) {
      const token = await tokenFor(people[member], 'exclude', caseA);
      const spent = await spentTokens();
      const answer = await exclude(people[member], caseA, token);
      expect(answer.status, member).toBeGreaterThanOrEqual(400);
      expect(answer.status, member).toBeLessThan(500);
      expect(await spentTokens(), member).toBe(spent);
    }
    expect(await manifests(caseA)).toEqual([]);
  });

  it('signed by a coordinator: done once, with a manifest whose hash is that of the kept content', async () => {
    const token = await tokenFor(people.coordinator, 'exclude', caseA);
    const done = await exclude(people.coordinator, caseA, token);
    expect(done.status, JSON.stringify(done.body)).toBe(204);
    expect((await exclude(people.coordinator, caseA, token)).body.error).toBe('signature_invalid');
    const [manifest, ...more] = await manifests(caseA);
    expect(more).toEqual([]);
    expect(manifest).toMatchObject({ signer_id: people.coordinator.id, printed_name: people.coordinator.username, act: 'exclude', meaning: 'exclusion_decision', case_id: caseA, record_kind: 'case' });
    expect(manifest.content_hash).toBe(crypto.createHash('sha256').update(manifest.content, 'utf8').digest('hex'));
    expect(JSON.parse(manifest.content).record.change).toMatchObject(body);
  });
});

describe('the interview report', () => {
  it('signing: refused without a signature (nothing changed), then signed with an eligibility-decision manifest', async () => {
    const { caseId, bookingId } = await caseAtInterview();
    const id = await draft(bookingId, ACCEPTED);
    const bare = await api('POST', `/api/interview_reports/${id}/finalize`, { token: people.interviewer.token, body: {} });
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ error: 'signature_required', act: 'report_sign', recordId: id });
    expect((await pool().query('select state from app_public.interview_reports where id = $1', [id])).rows[0].state).toBe('draft');
    await trial.openTask(caseId, 'interviewTask');
    const token = await tokenFor(people.interviewer, 'report_sign', id);
    const done = await api('POST', `/api/interview_reports/${id}/finalize`, { token: people.interviewer.token, body: {}, headers: signed(token) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const [manifest] = await manifests(id);
    expect(manifest).toMatchObject({ act: 'report_sign', meaning: 'eligibility_decision', record_kind: 'interview_report', signer_id: people.interviewer.id });
    expect(JSON.parse(manifest.content).record).toMatchObject({ id, state: 'final', trial_outcome: 'ptsd' });

    // Amending: a coordinator's correction is signed too.
    const amend = (headers?: Record<string, string>) =>
      api('POST', `/api/interview_reports/${id}/amend`, { token: people.coordinator.token, body: { reason: 'Typo in the age', values: { age: 31 } }, ...(headers ? { headers } : {}) });
    expect((await amend()).body.error).toBe('signature_required');
    expect((await pool().query('select age from app_public.interview_reports where id = $1', [id])).rows[0].age).toBe(30);
    const amended = await amend(signed(await tokenFor(people.coordinator, 'report_amend', id)));
    expect(amended.status, JSON.stringify(amended.body)).toBe(200);
    expect((await manifests(id)).map((m) => [m.act, m.meaning])).toEqual([['report_sign', 'eligibility_decision'], ['report_amend', 'report_correction']]);

    // The manifests are read by the staff of the case and coordinators, not by the patient or others.
    const readers = await api('GET', `/api/signatures?recordId=${id}`, { token: people.coordinator.token });
    expect(readers.body.signatures).toHaveLength(2);
    expect(readers.body.signatures[0]).toMatchObject({ printedName: people.interviewer.username, meaning: 'eligibility_decision' });
    expect(readers.body.signatures[0].at).toMatch(/Z$/);
    expect((await api('GET', `/api/signatures?recordId=${id}`, { token: people.interviewer.token })).body.signatures).toHaveLength(2);
    expect((await api('GET', `/api/signatures?recordId=${id}`, { token: people.otherTherapist.token })).body.signatures).toEqual([]);
  });

  it('a coordinator overriding a rule signs the override as well', async () => {
    const { bookingId } = await caseAtInterview();
    const id = await draft(bookingId, { ...ACCEPTED, age: 17 });
    const token = await tokenFor(people.coordinator, 'report_sign', id);
    const done = await api('POST', `/api/interview_reports/${id}/finalize`, { token: people.coordinator.token, body: { overrideReason: 'Birthday next week' }, headers: signed(token) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const signedActs = await manifests(id);
    expect(signedActs.map((m) => m.meaning)).toEqual(['eligibility_decision', 'rule_override']);
    expect(JSON.parse(signedActs[1].content).record).toMatchObject({ rules: ['minor'], reason: 'Birthday next week' });
  });
});

describe('randomization', () => {
  it('the task and the case page refuse without a signature (nothing drawn) and sign the allocation', async () => {
    const patient = await t.user({ flags: ['patient'] });
    const caseId = patient.caseId!;
    await trial.atRandomization(caseId, people.interviewer);
    const task = await trial.openTask(caseId, 'randomizeTask');
    const bare = await api('POST', `/api/workflow/rest/task/${task.id}/submit-form`, { token: people.coordinator.token, body: { variables: {} } });
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ code: 'signature_required', details: { act: 'randomize', recordId: caseId } });
    const page = await api('POST', `/api/trial/cases/${caseId}/randomize`, { token: people.coordinator.token });
    expect(page.body).toMatchObject({ error: 'signature_required', act: 'randomize', recordId: caseId });
    expect((await pool().query('select 1 from app_public.treatment_assignments where case_id = $1', [caseId])).rowCount).toBe(0);
    // A therapist with a valid signature is still no coordinator.
    const therapistToken = await tokenFor(people.therapist, 'randomize', caseId);
    expect((await api('POST', `/api/trial/cases/${caseId}/randomize`, { token: people.therapist.token, headers: signed(therapistToken) })).status).toBe(403);
    const drawn = await api('POST', `/api/trial/cases/${caseId}/randomize`, { token: people.coordinator.token, headers: signed(await tokenFor(people.coordinator, 'randomize', caseId)) });
    expect(drawn.status, JSON.stringify(drawn.body)).toBe(201);
    const [manifest] = await manifests(caseId);
    expect(manifest).toMatchObject({ act: 'randomize', meaning: 'allocation', signer_id: people.coordinator.id });
    expect(JSON.parse(manifest.content).record.assignment.treatment).toBe(drawn.body.treatment);
  });
});

describe('expiry', () => {
  it('an expired token is refused and nothing changes (the token row moved back in time, as the other token tests do)', async () => {
    const patient = await t.user({ flags: ['patient'] });
    const caseId = patient.caseId!;
    const token = await tokenFor(people.coordinator, 'exclude', caseId);
    await pool().query(`update app_private.signing_tokens set expires_at = now() - interval '1 second' where used_at is null and record_id = $1`, [caseId]);
    const late = await api('POST', `/api/trial/cases/${caseId}/exclusion`, { token: people.coordinator.token, body: { flag: 'exclude_from_analysis', value: true, reason: 'Too late' }, headers: signed(token) });
    expect(late.status).toBe(403);
    expect(late.body.error).toBe('signature_invalid');
    expect(await exclusions(caseId)).toEqual([]);
    expect(await manifests(caseId)).toEqual([]);
  });
});

describe('withdrawal and legal hold', () => {
  const withdraw = (person: Person, caseId: string, token?: string) =>
    api('POST', `/api/withdrawal/cases/${caseId}`, { token: person.token, body: { level: 'stop_contact', reason: 'The participant asked by phone.' }, ...(token ? { headers: signed(token) } : {}) });
  const withdrawals = async (caseId: string) => (await pool().query('select level from app_public.case_withdrawals where case_id = $1', [caseId])).rows;

  it('is refused without or with a foreign signature, and for every role but a coordinator; nothing changes', async () => {
    const bare = await withdraw(people.coordinator, caseA);
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ error: 'signature_required', act: 'withdraw', recordId: caseA });
    expect((await withdraw(people.coordinator, caseA, await tokenFor(people.coordinator, 'exclude', caseA))).body.error).toBe('signature_invalid');
    expect((await withdraw(people.coordinator, caseA, await tokenFor(people.therapist, 'withdraw', caseA))).body.error).toBe('signature_invalid');
    for (const member of ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'outsider', 'otherTherapist'] as const) {
      const token = await tokenFor(people[member], 'withdraw', caseA);
      const spent = await spentTokens();
      const answer = await withdraw(people[member], caseA, token);
      expect(answer.status, member).toBeGreaterThanOrEqual(400);
      expect(answer.status, member).toBeLessThan(500);
      expect(await spentTokens(), member).toBe(spent);
    }
    expect(await withdrawals(caseA)).toEqual([]);
    expect((await manifests(caseA)).filter((m) => m.act === 'withdraw')).toEqual([]);
  });

  it('signed by a coordinator: a withdrawal manifest, which the patient of the case reads and nobody else of other cases', async () => {
    const token = await tokenFor(people.coordinator, 'withdraw', caseA);
    const done = await withdraw(people.coordinator, caseA, token);
    expect(done.status, JSON.stringify(done.body)).toBe(201);
    const manifest = (await manifests(caseA)).find((m) => m.act === 'withdraw');
    expect(manifest).toMatchObject({ meaning: 'withdrawal', signer_id: people.coordinator.id, record_id: caseA });
    expect(JSON.parse(manifest.content).record.withdrawal).toMatchObject({ level: 'stop_contact' });
    const read = (person: Person) => api('GET', `/api/signatures?caseId=${caseA}`, { token: person.token });
    expect((await read(people.patient)).body.signatures.map((m: { act: string }) => m.act)).toEqual(['withdraw']);
    expect((await read(people.therapist)).body.signatures.map((m: { act: string }) => m.act)).toContain('withdraw');
    expect((await read(people.otherPatient)).body.signatures).toEqual([]);
    expect((await read(people.otherTherapist)).body.signatures).toEqual([]);
  });

  it('the legal hold is signed too', async () => {
    const hold = (token?: string) => api('POST', `/api/withdrawal/cases/${caseA}/legal-hold`, { token: people.coordinator.token, body: { hold: true, reason: 'Audit' }, ...(token ? { headers: signed(token) } : {}) });
    expect((await hold()).body.error).toBe('signature_required');
    expect((await pool().query('select 1 from app_public.case_legal_holds where case_id = $1', [caseA])).rowCount).toBe(0);
    expect((await hold(await tokenFor(people.coordinator, 'legal_hold', caseA))).status).toBe(200);
    expect((await manifests(caseA)).filter((m) => m.act === 'legal_hold')).toHaveLength(1);
  });
});

describe('closing a safety task', () => {
  it('is refused without a signature (the task stays open) and signed as a safety review', async () => {
    const patient = await t.user({ flags: ['patient'] });
    const caseId = patient.caseId!;
    await addMember(pool(), caseId, people.therapist.username, ['therapist']);
    const PHQ9 = { item1: 1, item2: 1, item3: 2, item4: 2, item5: 1, item6: 1, item7: 0, item8: 1, item9: 2, item10: 'somewhat' };
    const answered = await t.api('POST', '/api/phq9', { token: patient.token, headers: UPSERT, body: { case_id: caseId, time_of_measurement: 'pre', ...PHQ9 } });
    expect(answered.status, JSON.stringify(answered.body)).toBeLessThan(300);
    await t.sanad.workflow.tick();
    const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'safetySignalTask' and end_time is null`, [caseId]);
    const taskId = rows[0].id as string;
    const variables = { closingReason: { value: 'Reached by the team; no acute risk.', type: 'String' } };
    const close = (token?: string) => api('POST', `/api/workflow/rest/task/${taskId}/submit-form`, { token: people.therapist.token, body: { variables }, ...(token ? { headers: signed(token) } : {}) });
    const bare = await close();
    expect(bare.status).toBe(403);
    expect(bare.body).toMatchObject({ code: 'signature_required', details: { act: 'safety_close', recordId: taskId } });
    expect((await pool().query('select end_time from app_public.workflow_tasks where id = $1', [taskId])).rows[0].end_time).toBeNull();
    const token = await tokenFor(people.therapist, 'safety_close', taskId);
    expect((await close(token)).status).toBe(204);
    expect(await manifests(taskId)).toMatchObject([{ act: 'safety_close', meaning: 'safety_review', record_kind: 'workflow_task' }]);
    expect((await close(token)).status).toBeGreaterThanOrEqual(400);
  });
});

describe('the manifests are append-only and chained', () => {
  it('no role changes or deletes a manifest, at the database', async () => {
    for (const statement of ['update app_public.signatures set printed_name = $1', 'delete from app_public.signatures where printed_name <> $1']) {
      const owner = await pool().connect();
      try {
        await owner.query('begin');
        await expect(owner.query(statement, ['someone else'])).rejects.toThrow(/append-only/);
      } finally {
        await owner.query('rollback');
        owner.release();
      }
    }
    const client = await pool().connect();
    try {
      await client.query('begin');
      await client.query(`set local role sanad_user`);
      await expect(client.query(`insert into app_public.signatures (signer_id, printed_name, act, meaning, case_id, record_kind, record_id, content_hash)
        values ($1, 'x', 'exclude', 'exclusion_decision', $2, 'case', $2, repeat('0', 64))`, [people.coordinator.id, caseA])).rejects.toThrow(/permission denied/);
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('verify-audit checks their chain and names a changed manifest', async () => {
    const verdict = (await verifyChains(pool())).find((v) => v.log === 'signature manifests')!;
    expect(verdict.rows).toBeGreaterThan(0);
    expect(verdict.breaks).toEqual([]);
    // Someone with the database owner's rights bypasses the triggers and changes a meaning.
    const { rows } = await pool().query<{ id: string }>('select id from app_public.signatures order by chain_seq limit 1');
    const client = await pool().connect();
    try {
      await client.query('begin');
      await client.query('set local session_replication_role = replica');
      await client.query(`update app_public.signatures set printed_name = 'Someone Else' where id = $1`, [rows[0]!.id]);
      await client.query('commit');
    } finally {
      client.release();
    }
    const broken = (await verifyChains(pool())).find((v) => v.log === 'signature manifests')!;
    expect(broken.breaks[0]).toMatchObject({ kind: 'changed' });
  });
});
