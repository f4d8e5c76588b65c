/**
 * The CONSORT-EHEALTH pack (issue 33): usage per participant, usage and attrition per arm, and
 * the content versions each participant was sent. Every per-arm number reconciles with the
 * per-participant file and the CONSORT flow; coordinators only; each file is an audited read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, a: Person, b: Person, therapist: Person, interviewer: Person;
const pool = () => t.database.db.pool;

async function get(path: string, token?: string) {
  const response = await fetch(t.url + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = (await response.text()).replace('\uFEFF', '');
  return { status: response.status, headers: response.headers, text, rows: () => csvObjects(text), json: () => JSON.parse(text) as { error: string; message: string } };
}

async function message(caseId: string, senderId: string, toPatients: boolean) {
  await pool().query(`insert into app_public.case_messages (case_id, sender_id, body, to_patients, to_therapists, sent_at) values ($1, $2, 'hello', $3, not $3, now())`, [caseId, senderId, toPatients]);
}

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  therapist = await t.user({ flags: ['therapist'] });
  a = await t.user({ flags: ['patient'], gender: 'FEMALE' });
  b = await t.user({ flags: ['patient'], gender: 'MALE' });
  const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }], ticketsPerStratum: 20 } });
  expect(allocation.status).toBe(201);
  for (const p of [a, b]) {
    await addMember(pool(), p.caseId!, interviewer.username, ['interviewer']);
    await addMember(pool(), p.caseId!, therapist.username, ['therapist']);
    await trial.startTrial(p.caseId!);
    await trial.advance(p.caseId!, 'interview');
    await trial.signedOutcome(p.caseId!, interviewer, 'ptsd');
    expect((await t.api('POST', `/api/trial/cases/${p.caseId}/randomize`, { token: coordinator.token })).status).toBe(201);
  }
  // Usage of participant a: two sign-ins, one message each way, one therapist message, a letter read.
  await t.signIn(a.username, a.password);
  await t.signIn(a.username, a.password);
  await message(a.caseId!, a.id, false);
  await message(a.caseId!, therapist.id, true);
  const template = await pool().query<{ id: string }>(`insert into app_public.content_templates (type, code, language_code, title, content) values ('LETTER', 'ehealth-test', 'en', 'Week 1', 'Text one') returning id`);
  const templateId = template.rows[0]!.id;
  const first = await pool().query<{ id: string }>(`insert into app_public.letters (case_id, sender_id, template_id, body, published_at) values ($1, $2, $3, 'Text one', now()) returning id`, [a.caseId, therapist.id, templateId]);
  await pool().query(`insert into app_public.letter_reads (letter_id, reader_id, case_id) values ($1, $2, $3)`, [first.rows[0]!.id, a.id, a.caseId]);
  await pool().query(`update app_public.content_templates set content = 'Text two' where id = $1`, [templateId]);
  await pool().query(`insert into app_public.letters (case_id, sender_id, template_id, body, published_at) values ($1, $2, $3, 'Text two', now())`, [b.caseId, therapist.id, templateId]);
});

afterAll(async () => {
  await t?.close();
});

describe('CONSORT-EHEALTH pack', () => {
  it('usage per participant counts what each randomized participant did after randomization', async () => {
    const file = await get('/api/trial/usage.csv', coordinator.token);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-disposition')).toMatch(/sanad-usage-\d{4}-\d{2}-\d{2}\.csv/);
    const rows = file.rows();
    expect(rows.map((r) => r.case_id).sort()).toEqual([a.caseId, b.caseId].sort());
    const ua = rows.find((r) => r.case_id === a.caseId)!;
    expect(ua).toMatchObject({ sign_ins: '2', letters_sent: '1', letters_read: '1', messages_from_participant: '1', messages_from_therapists: '1', days_in_treatment: '0' });
    // Messages to the participant include the platform's own (from_system); counted as the inbox shows them.
    const toA = await pool().query(`select count(*)::int as n from app_public.case_messages where case_id = $1 and to_patients and sent_at is not null and sender_id is distinct from $2`, [a.caseId, a.id]);
    expect(Number(ua.messages_to_participant)).toBe(toA.rows[0].n);
    expect(toA.rows[0].n).toBeGreaterThanOrEqual(1);
    expect(['cbt', 'ipt']).toContain(ua.treatment);
    // b did nothing after randomization: no activity, days in treatment empty (not 0).
    expect(rows.find((r) => r.case_id === b.caseId)).toMatchObject({ sign_ins: '0', letters_sent: '1', letters_read: '0', last_activity_at: '', days_in_treatment: '' });
  });

  it('usage and attrition per arm reconcile with the participant file and the CONSORT flow', async () => {
    const usage = (await get('/api/trial/usage.csv', coordinator.token)).rows();
    const arms = (await get('/api/trial/usage-by-arm.csv', coordinator.token)).rows();
    const consort = (await t.api('GET', '/api/trial/consort', { token: coordinator.token })).body as { arms: { arm: string; randomized: number; analysed: number }[] };
    for (const arm of arms) {
      const mine = usage.filter((r) => r.treatment === arm.arm);
      const flow = consort.arms.find((f) => f.arm === arm.arm)!;
      expect(Number(arm.randomized)).toBe(flow.randomized);
      expect(Number(arm.randomized)).toBe(mine.length);
      expect(Number(arm.analysed)).toBe(flow.analysed);
      for (const [column, source] of [['sign_ins', 'sign_ins'], ['letters_read', 'letters_read'], ['messages_from_participants', 'messages_from_participant'], ['messages_from_therapists', 'messages_from_therapists']] as const) {
        expect(Number(arm[column]), column).toBe(mine.reduce((n, r) => n + Number(r[source]), 0));
      }
    }
    expect(arms.reduce((n, r) => n + Number(r.randomized), 0)).toBe(2);
  });

  it('the manifest names the template version each participant was sent and when it was read', async () => {
    const rows = (await get('/api/trial/exposure.csv', coordinator.token)).rows();
    expect(rows.find((r) => r.case_id === a.caseId)).toMatchObject({ kind: 'letter', template_version: '1', read_at: expect.stringMatching(/Z$/) });
    expect(rows.find((r) => r.case_id === b.caseId)).toMatchObject({ kind: 'letter', template_version: '2', read_at: '' });
    expect((await get('/api/trial/exposure.csv', coordinator.token)).text).not.toContain('Text one');
  });

  it('is for coordinators only, and each download is logged as a read of its cases', async () => {
    for (const path of ['/api/trial/usage.csv', '/api/trial/usage-by-arm.csv', '/api/trial/exposure.csv']) {
      expect((await get(path)).status).toBe(401);
      for (const person of [a, therapist, interviewer]) {
        const refused = await get(path, person.token);
        expect(refused.status, `${path} ${person.username}`).toBe(403);
        expect(refused.json().message).toMatch(/coordinator/i);
      }
    }
    const logged = await pool().query(`select count(*)::int as n from app_public.access_log where $1 = any (case_ids) and reader_id = $2 and api = 'export'`, [a.caseId, coordinator.id]);
    expect(logged.rows[0].n).toBeGreaterThan(0);
  });
});
