/**
 * Issue 31 item 2, own-data download: patient A downloads their record as JSON and as the
 * readable page; it holds every record kind (profile, agreements, questionnaires, worksheets,
 * letters, messages, appointments) and nothing of patient B's case nor anything the patient may
 * not read today (scores, messages to staff only, other people's worksheet drafts). Signed out
 * is 401, every other role 403, a bad format 400. The page is in the patient's language and zone.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUMENT_CODES } from '../../src/domain/instruments';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, STAFF_ROLES } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people: Record<string, Person> = {};
let caseA: string, caseB: string;
/** Texts and ids planted in case B (and hidden ones in case A) that must never show up in A's download. */
const FOREIGN: string[] = [];
const ids: Record<string, string> = {};

const asOwner = (text: string, values: unknown[] = []) => withOwner(t.database.db.pool, (sql) => sql.query(text, values));

/** One record of every kind in a case; `mark` makes its texts recognisable. */
async function plant(caseId: string, patientId: string, mark: string, startsAt: string): Promise<Record<string, string>> {
  const made: Record<string, string> = {};
  made.phq9 = randomUUID();
  await asOwner(
    `insert into app_public.phq9 (id, case_id, submitter_id, time_of_measurement, item1, item2, item3, item4, item5, item6, item7, item8, item9, item10, total, band, complete)
     values ($1, $2, $3, 'pre', 1, 2, 1, 0, 0, 1, 0, 0, 0, 'somewhat', 5, 'mild', true)`,
    [made.phq9, caseId, patientId],
  );
  made.worksheet = randomUUID();
  await asOwner(`insert into app_public.cbt_reframings (id, case_id, submitter_id, negative_thought, healthy_thought, published_at) values ($1, $2, $3, $4, $5, now())`, [
    made.worksheet,
    caseId,
    patientId,
    `${mark} negative thought`,
    `${mark} healthy thought`,
  ]);
  made.feedback = randomUUID();
  await asOwner(`insert into app_public.worksheet_feedback (id, case_id, worksheet, worksheet_id, body, published_at) values ($1, $2, 'cbt_reframings', $3, $4, now())`, [
    made.feedback,
    caseId,
    made.worksheet,
    `${mark} feedback body`,
  ]);
  made.letter = randomUUID();
  await asOwner(`insert into app_public.letters (id, case_id, subject, body, language_code, published_at) values ($1, $2, $3, $4, 'de', now())`, [
    made.letter,
    caseId,
    `${mark} letter subject`,
    `${mark} letter body`,
  ]);
  made.message = randomUUID();
  await asOwner(`insert into app_public.case_messages (id, case_id, from_system, subject, body, to_patients, sent_at) values ($1, $2, true, $3, $4, true, now())`, [
    made.message,
    caseId,
    `${mark} message subject`,
    `${mark} message body`,
  ]);
  made.staffMessage = randomUUID();
  await asOwner(`insert into app_public.case_messages (id, case_id, from_system, subject, body, to_therapists, sent_at) values ($1, $2, true, $3, $4, true, now())`, [
    made.staffMessage,
    caseId,
    `${mark} staff only subject`,
    `${mark} staff only body`,
  ]);
  made.offer = randomUUID();
  await asOwner(`insert into app_public.interview_offers (id, interviewer_id, time_slot) values ($1, $2, tstzrange($3::timestamptz, $3::timestamptz + interval '1 hour'))`, [
    made.offer,
    people.interviewer!.id,
    startsAt,
  ]);
  made.booking = randomUUID();
  await asOwner(`insert into app_public.interview_bookings (id, offer_id, case_id, interviewee_id, interviewer_id, booked_by) values ($1, $2, $3, $4, $5, $4)`, [
    made.booking,
    made.offer,
    caseId,
    patientId,
    people.interviewer!.id,
  ]);
  return made;
}

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t, {
    patient: { alias: 'Lena', locale: 'de', timeZone: 'Europe/Berlin' },
    otherPatient: { alias: 'Samira', locale: 'ar', timeZone: 'Asia/Amman' },
  });
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
  Object.assign(ids, await plant(caseA, people.patient!.id, 'AAA', '2026-12-01T09:00:00Z'));
  const b = await plant(caseB, people.otherPatient!.id, 'BBB', '2026-12-02T09:00:00Z');
  FOREIGN.push(caseB, people.otherPatient!.id, 'Samira', 'BBB', ...Object.values(b), ids.staffMessage!, 'staff only');
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const get = (who: string | null, format = 'json') => t.api('GET', `/api/my_data?format=${format}`, who ? { token: people[who]!.token } : {});

describe('own-data download', () => {
  it("holds every record kind of the patient's own case as JSON, scores hidden as on the screens", async () => {
    const answer = await get('patient');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"/);
    const data = answer.body;
    expect(data.profile).toMatchObject({ id: people.patient!.id, alias: 'Lena', locale: 'de', time_zone: 'Europe/Berlin' });
    expect(data.consents).toMatchObject({ agreed_to_terms: true, agreed_to_privacy_policy: true, confirmed_adult: true });
    expect(data.case_ids).toEqual([caseA]);
    expect(data.questionnaires.phq9).toHaveLength(1);
    expect(data.questionnaires.phq9[0]).toMatchObject({ id: ids.phq9, time_of_measurement: 'pre', answers: { item1: 1, item2: 2, item10: 'somewhat' } });
    // Patients never see a score today (the records views empty them); the download neither.
    expect(data.questionnaires.phq9[0].scores).toEqual({ total: null, band: null, subscales: null, complete: null });
    expect(Object.keys(data.questionnaires).every((code) => (INSTRUMENT_CODES as readonly string[]).includes(code))).toBe(true);
    expect(data.worksheets.cbt_reframings.map((w: { id: string }) => w.id)).toEqual([ids.worksheet]);
    expect(data.worksheets.cbt_reframings[0].feedback).toEqual([expect.objectContaining({ id: ids.feedback, body: 'AAA feedback body' })]);
    expect(data.letters.map((l: { id: string }) => l.id)).toEqual([ids.letter]);
    expect(data.messages.map((m: { id: string }) => m.id)).toEqual([ids.message]);
    expect(data.appointments).toEqual([expect.objectContaining({ id: ids.booking, starts_at: '2026-12-01T09:00:00.000Z', ends_at: '2026-12-01T10:00:00.000Z', canceled: false })]);
    const text = JSON.stringify(data);
    for (const foreign of FOREIGN) expect(text, foreign).not.toContain(foreign);
    expect(text).not.toContain('"total":5');
  });

  it("the readable page is in the patient's language and time zone, without ids and without the other case", async () => {
    const answer = await get('patient', 'html');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
    expect(answer.headers.get('content-security-policy')).toContain('sandbox');
    const html = answer.body as string;
    expect(html).toContain('<html lang="de" dir="ltr">');
    for (const heading of ['Meine Daten', 'Mein Konto', 'Einwilligungen', 'Fragebögen', 'Übungen', 'Briefe', 'Nachrichten', 'Termine']) expect(html).toContain(heading);
    expect(html).toContain('Vor der Behandlung');
    expect(html).toContain('AAA healthy thought');
    expect(html).toContain('AAA letter body');
    expect(html).toContain('AAA feedback body');
    expect(html).toContain('AAA message body');
    // 09:00 UTC on 1 December is 10:00 in Berlin.
    expect(html).toContain('01.12.2026, 10:00');
    for (const foreign of FOREIGN) expect(html, foreign).not.toContain(foreign);
    for (const internal of [caseA, people.patient!.id, ...Object.values(ids), 'app_public', 'cbt_reframings', 'phq9', 'time_of_measurement']) expect(html, internal).not.toContain(internal);
  });

  it('the other patient gets their own page, in Arabic and right to left', async () => {
    const answer = await get('otherPatient', 'html');
    expect(answer.status).toBe(200);
    const html = answer.body as string;
    expect(html).toContain('<html lang="ar" dir="rtl">');
    expect(html).toContain('بياناتي');
    expect(html).toContain('BBB letter body');
    expect(html).not.toContain('AAA');
  });

  it('signed out is 401; every other role is 403 with a message; a bad format is 400', async () => {
    expect((await get(null)).status).toBe(401);
    for (const who of [...STAFF_ROLES, 'coordinator', 'outsider', 'otherTherapist']) {
      const answer = await get(who);
      expect(answer.status, who).toBe(403);
      expect(answer.body.error ?? answer.body.code, who).toBe('own_data_patients_only');
      expect(answer.body.message, who).toMatch(/patients/);
    }
    const bad = await get('patient', 'pdf');
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/json or html/);
  });
});
