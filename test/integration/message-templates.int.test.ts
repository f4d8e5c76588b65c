/**
 * Issue 14, message templates in the case message composer: staff of a case list the MESSAGE
 * templates that fit it and get one filled by the server for the case and themselves (the
 * variant chosen by the patient's language, the case's treatment and both genders, as letters
 * choose theirs); the patient of the case, another patient, staff outside the case and a
 * coordinator who is not a member are refused; bad input is a 4xx; nothing is ever stored.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { CASE_ROLES } from '../../src/domain/roles';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, STAFF_ROLES } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people: Record<string, Person> = {};
let caseA: string, caseB: string;
const pool = () => t.database.db.pool;

const list = (caseId: string, who?: string) => t.api('GET', `/api/cases/${caseId}/message-templates`, who ? { token: people[who]!.token } : {});
const render = (caseId: string, code: string, who?: string) => t.api('GET', `/api/cases/${caseId}/message-templates/${code}`, who ? { token: people[who]!.token } : {});

async function template(code: string, language: string, content: string, extra: { subject?: string; treatment?: string; reader?: string; writer?: string } = {}) {
  await withOwner(pool(), (sql) =>
    sql.query(
      `insert into app_public.content_templates (type, code, language_code, title, subject, content, treatment_code, reader_gender, writer_gender)
       values ('MESSAGE', $1, $2, $3, $4, $5, $6, $7, $8)`,
      [code, language, `${code} ${language}`, extra.subject ?? null, content, extra.treatment ?? null, extra.reader ?? null, extra.writer ?? null],
    ),
  );
}

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t, {
    patient: { alias: 'Rim', gender: 'FEMALE', locale: 'de' },
    ...Object.fromEntries(STAFF_ROLES.map((role) => [role, { alias: `${role} A`, gender: role === 'therapist' ? 'MALE' : 'FEMALE' }])),
    coordinator: { gender: 'MALE' },
    outsider: { gender: 'MALE' },
    otherPatient: { alias: 'سامي', gender: 'MALE', locale: 'ar' },
    otherTherapist: { alias: 'ليلى', gender: 'FEMALE' },
  });
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
  // A fixture of an assignment the trial's randomization step would have made (the step's own door,
  // 0150's _050_in_step, is tested in one-door.int.test.ts).
  await pool().query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
  await pool().query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'cbt', '*', 'blocks')`, [caseA]);

  await template('reminder', 'de', 'Hallo {{patient_alias}}, bis bald. {{therapist_alias}}');
  await template('reminder', 'de', 'Liebe {{patient_alias}}, denken Sie an Ihr Gedankenprotokoll. {{therapist_alias}}', { treatment: 'cbt', reader: 'FEMALE' });
  await template('reminder', 'de', 'Liebe {{patient_alias}}, heute ist der {{date}}. Ihr {{therapist_alias}}', {
    treatment: 'cbt', reader: 'FEMALE', writer: 'MALE', subject: 'Erinnerung für {{patient_alias}}',
  });
  await template('reminder', 'ar', 'مرحبًا {{patient_alias}}، {{therapist_alias}}');
  await template('welcome', 'en', 'Welcome, {{patient_alias}}');
  // A template saved before the placeholder rule (made here with triggers off) never fills with a gap.
  await withOwner(pool(), async (sql) => {
    await sql.query('set local session_replication_role = replica');
    await sql.query(`insert into app_public.content_templates (type, code, language_code, title, content) values ('MESSAGE', 'broken', 'de', 'Kaputt', 'Ihre {{shoe_size}}')`);
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const messageCount = async () => Number((await pool().query('select count(*) from app_public.case_messages')).rows[0].count);

describe('message templates in the composer', () => {
  it('lists the codes that have a variant in the patient\'s language', async () => {
    const answer = await list(caseA, 'therapist');
    expect(answer.status).toBe(200);
    expect(answer.body.language).toBe('de');
    expect(answer.body.templates.map((x: { code: string }) => x.code).sort()).toEqual(['broken', 'crisis_help', 'reminder']); // crisis_help ships in every locale (0121)
    const arabic = await list(caseB, 'otherTherapist');
    expect(arabic.body.language).toBe('ar');
    expect(arabic.body.templates.filter((x: { code: string }) => x.code !== 'crisis_help')).toEqual([{ code: 'reminder', title: 'reminder ar' }]);
  });

  it('fills the most specific variant for the case and the writer on the server', async () => {
    const answer = await render(caseA, 'reminder', 'therapist');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body.language).toBe('de');
    expect(answer.body.subject).toBe('Erinnerung für Rim');
    expect(answer.body.body).toMatch(/^Liebe Rim, heute ist der \d{1,2}\. \S+ \d{4}\. Ihr therapist A$/);
    // A woman writing gets the variant without the writer's gender.
    const supporter = await render(caseA, 'reminder', 'supporter');
    expect(supporter.body).toMatchObject({ subject: null, body: 'Liebe Rim, denken Sie an Ihr Gedankenprotokoll. supporter A' });
    // Another case: its patient's language (Arabic), no treatment, so the general variant.
    const arabic = await render(caseB, 'reminder', 'otherTherapist');
    expect(arabic.body).toMatchObject({ language: 'ar', body: 'مرحبًا سامي، ليلى' });
  });

  const EVERYONE = ['patient', ...STAFF_ROLES, 'outsider', 'coordinator', 'otherPatient', 'otherTherapist'];
  it('lets only the care team of the case list and render; everyone else gets 403 and nothing is stored', async () => {
    const before = await messageCount();
    for (const who of EVERYONE) {
      for (const [caseId, label] of [[caseA, 'A'], [caseB, 'B']] as const) {
        const allowed = caseId === caseA ? CASE_ROLES.includes(who as never) && who !== 'patient' : who === 'otherTherapist';
        const code = 'reminder';
        const [listed, rendered] = [await list(caseId, who), await render(caseId, code, who)];
        expect(listed.status, `list ${who} ${label}`).toBe(allowed ? 200 : 403);
        expect(rendered.status, `render ${who} ${label}`).toBe(allowed ? 200 : 403);
        if (!allowed) {
          expect(rendered.body.error).toBe('not_case_staff');
          expect(JSON.stringify(rendered.body)).not.toMatch(/Rim|سامي/);
        }
      }
    }
    expect(await messageCount()).toBe(before);
  });

  it('answers bad input with a 4xx a person can act on', async () => {
    expect((await render(caseA, 'reminder')).status).toBe(401);
    expect((await list(caseA)).status).toBe(401);
    const badCase = await render('not-a-uuid', 'reminder', 'therapist');
    expect([badCase.status, badCase.body.error]).toEqual([400, 'invalid_case_id']);
    const badCode = await render(caseA, '1%20drop', 'therapist');
    expect([badCode.status, badCode.body.error]).toEqual([400, 'invalid_template_code']);
    const unknown = await render(caseA, 'welcome', 'therapist');
    expect([unknown.status, unknown.body.error]).toEqual([404, 'message_template_not_found']);
    expect(unknown.body.message).toMatch(/"welcome" in the patient's language \(de\)/);
    const broken = await render(caseA, 'broken', 'therapist');
    expect([broken.status, broken.body.error]).toEqual([400, 'template_unfillable']);
    expect(broken.body.message).toMatch(/\{\{shoe_size\}\}/);
    const unknownCase = await render('00000000-0000-4000-8000-000000000000', 'reminder', 'therapist');
    expect(unknownCase.status).toBe(403);
    // A case without a patient yet: nothing to offer, nothing to fill.
    const { rows } = await pool().query<{ id: string }>(`insert into app_public.cases (title) values ('no patient yet') returning id`);
    await addMember(pool(), rows[0]!.id, people.therapist!.username, ['therapist']);
    expect((await list(rows[0]!.id, 'therapist')).body).toEqual({ language: null, templates: [] });
    const empty = await render(rows[0]!.id, 'reminder', 'therapist');
    expect([empty.status, empty.body.message]).toEqual([404, 'This case has no patient yet, so no message template can be filled.']);
  });
});
