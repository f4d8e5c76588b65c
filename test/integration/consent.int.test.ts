/**
 * Issue 31 item 1, versioned e-consent: versions per language written by coordinators; consent
 * recorded at registration and when signed in (version, language, UTC time, identity); a major
 * amendment asks exactly the affected participants and gates their data collection until they
 * consent again, a minor one is recorded only; the coverage report; bad input (unknown version,
 * draft, wrong identity, published text) refused with nothing changed; the role matrix of every
 * new action (each role, own and other case).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people = {} as Record<CastMember, Person>;
let caseA: string, caseB: string;
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const ROLES: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];

const owner = async (text: string, values: unknown[] = []) => (await withOwner(t.database.db.pool, (sql) => sql.query(text, values))).rows;
const as = (who: CastMember, method: string, path: string, body?: unknown) => t.api(method, path, { token: people[who].token, ...(body === undefined ? {} : { body }) });

/** Everything the consent tables hold, to show a refusal changed nothing. */
async function snapshot(): Promise<string> {
  const rows = await owner(`select (select count(*) from app_public.consent_versions)::text || '/' ||
      (select count(*) from app_public.consent_texts)::text || '/' || (select count(*) from app_public.case_consents)::text || '/' ||
      (select count(*) from app_public.consent_requests)::text || '/' || coalesce((select string_agg(status || major::text || coalesce(title, '') , ',' order by v.version)
         from app_public.consent_versions v left join app_public.consent_texts x on x.version_id = v.id and x.language_code = 'de'), '') as s`);
  return rows[0].s as string;
}

/** A coordinator writes a new version in all three languages; returns its id. */
async function draftVersion(mark: string): Promise<string> {
  const made = await as('coordinator', 'POST', '/api/consent/versions');
  expect(made.status).toBe(201);
  for (const language of ['ar', 'de', 'en']) {
    const saved = await as('coordinator', 'PUT', `/api/consent/versions/${made.body.id}/texts/${language}`, { title: `${mark} ${language}`, body: `${mark} text ${language}` });
    expect(saved.status).toBe(200);
  }
  return made.body.id as string;
}

const phq9 = (who: CastMember, caseId: string, time = 'pre') =>
  t.api('POST', '/api/phq9', { token: people[who].token, headers: UPSERT, body: { case_id: caseId, time_of_measurement: time, item1: 1 } });

let v1: string;

beforeAll(async () => {
  t = await startTestApp(process.env.DEBUG_LOG ? { LOG_LEVEL: 'error' } : {});
  const cast = await castOfRoles(t, { patient: { locale: 'de' }, otherPatient: { locale: 'ar' } });
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('versioned e-consent', () => {
  it('lets only coordinators write, publish and report; every refusal changes nothing', async () => {
    const before = await snapshot();
    for (const role of ROLES.filter((r) => r !== 'coordinator')) {
      expect((await as(role, 'POST', '/api/consent/versions')).status, role).toBe(403);
      expect((await as(role, 'GET', '/api/consent/coverage')).status, role).toBe(403);
      expect((await as(role, 'GET', '/api/consent/versions')).status, role).toBe(403);
    }
    expect(await snapshot()).toBe(before);
    v1 = await draftVersion('V1');
    const afterDraft = await snapshot();
    for (const role of ROLES.filter((r) => r !== 'coordinator')) {
      expect((await as(role, 'PUT', `/api/consent/versions/${v1}/texts/de`, { title: 'x', body: 'y' })).status, role).toBeGreaterThanOrEqual(403);
      expect((await as(role, 'POST', `/api/consent/versions/${v1}/publish`, { major: false, reason: 'first' })).status, role).toBe(403);
      // Drafts are not readable outside the coordinators.
      expect((await as(role, 'GET', `/api/consent/versions/${v1}/texts`)).status, role).toBe(404);
    }
    expect(await snapshot()).toBe(afterDraft);
    const none = await t.api('GET', '/api/consent/current?language=de');
    expect([none.status, none.body]).toEqual([200, null]);
  });

  it('refuses agreeing to a draft or an unknown version and publishing without a reason', async () => {
    const before = await snapshot();
    const draft = await as('patient', 'POST', '/api/consent/agree', { versionId: v1, language: 'de', typedUsername: people.patient.username });
    expect(draft.status).toBe(409);
    expect(draft.body.error).toBe('consent_version_draft');
    const unknown = await as('patient', 'POST', '/api/consent/agree', { versionId: '00000000-0000-4000-8000-000000000000', language: 'de', typedUsername: people.patient.username });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('consent_version_unknown');
    const noReason = await as('coordinator', 'POST', `/api/consent/versions/${v1}/publish`, { major: false, reason: ' ' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.error).toBe('reason_required');
    expect((await as('coordinator', 'POST', '/api/consent/versions/not-an-id/publish', { major: false, reason: 'x' })).status).toBe(404);
    expect(await snapshot()).toBe(before);
  });

  it('records registration consent per version and language; a bad version refuses the whole registration', async () => {
    const published = await as('coordinator', 'POST', `/api/consent/versions/${v1}/publish`, { major: false, reason: 'First version' });
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({ version: 1, status: 'published', major: false });
    const edit = await as('coordinator', 'PUT', `/api/consent/versions/${v1}/texts/de`, { title: 'changed', body: 'changed' });
    expect(edit.status).toBe(409);
    expect(edit.body.error).toBe('consent_version_published');

    const shown = await t.api('GET', '/api/consent/current?language=ar');
    expect(shown.body).toMatchObject({ versionId: v1, version: 1, language: 'ar', title: 'V1 ar' });

    const register = (username: string, extra: Record<string, unknown>) =>
      t.api('POST', '/api/auth/users/register', {
        body: { user: { username, email: `${username}@example.org`, password: 'a long enough passphrase 1', locale: 'ar', agreedToTerms: true, agreedToPrivacyPolicy: true, confirmedAdult: true, ...extra } },
      });
    const usersBefore = (await owner('select count(*)::int as n from app_public.users'))[0].n;
    const missing = await register('noconsent', {});
    expect(missing.status).toBe(400);
    expect(missing.body.fields.consentVersionId[0].code).toBe('consent_required');
    const unknown = await register('unknownconsent', { consentVersionId: '00000000-0000-4000-8000-000000000000', consentLanguage: 'ar' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.fields.consentVersionId[0].code).toBe('consent_version_unknown');
    expect((await owner('select count(*)::int as n from app_public.users'))[0].n).toBe(usersBefore);

    const ok = await register('rania_consent', { consentVersionId: v1, consentLanguage: 'ar' });
    expect(ok.status).toBe(202);
    const [record] = await owner(
      `select cc.version, cc.language_code, cc.title, cc.identity_method, cc.identity_confirmed_at, cc.agreed_at
         from app_public.case_consents cc join app_public.users u on u.id = cc.user_id where u.username = 'rania_consent'`,
    );
    expect(record).toMatchObject({ version: 1, language_code: 'ar', title: 'V1 ar', identity_method: 'email_link', identity_confirmed_at: null });
    expect(record.agreed_at).toBeInstanceOf(Date);
  });

  it('records a signed-in consent with the typed username; a wrong one changes nothing', async () => {
    const before = await snapshot();
    const wrong = await as('patient', 'POST', '/api/consent/agree', { versionId: v1, language: 'de', typedUsername: 'somebody' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('identity_not_confirmed');
    for (const role of ['therapist', 'coordinator', 'outsider'] as CastMember[]) {
      expect((await as(role, 'POST', '/api/consent/agree', { versionId: v1, language: 'de', typedUsername: people[role].username })).status, role).toBe(403);
    }
    expect(await snapshot()).toBe(before);
    const ok = await as('patient', 'POST', '/api/consent/agree', { versionId: v1, language: 'de', typedUsername: people.patient.username.toUpperCase() });
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({ caseId: caseA, version: 1, language: 'de', title: 'V1 de', identityMethod: 'typed_username' });
    expect(ok.body.agreedAt).toMatch(/Z$/);
    expect(ok.body.identityConfirmedAt).not.toBeNull();
  });

  it('keeps the printable record in the case for the patient, the case staff and coordinators only', async () => {
    const [{ id }] = await owner('select id from app_public.case_consents where case_id = $1', [caseA]);
    for (const role of ROLES) {
      const page = await as(role, 'GET', `/api/consent/records/${id}`);
      const may = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator'].includes(role);
      expect(page.status, role).toBe(may ? 200 : 404);
      if (may) expect(page.body).toContain('V1 text de');
    }
    const page = await as('patient', 'GET', `/api/consent/records/${id}`);
    expect(page.body).toContain('Nachweis der Einwilligung');
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const mine = await as('patient', 'GET', '/api/my_data');
    expect(mine.body.consent_records).toEqual([expect.objectContaining({ id, version: 1, language_code: 'de', title: 'V1 de' })]);
  });

  it('a minor version is recorded only; a major one asks exactly the affected participants and gates their data', async () => {
    const v2 = await draftVersion('V2');
    expect((await as('coordinator', 'POST', `/api/consent/versions/${v2}/publish`, { major: false, reason: 'Typo' })).status).toBe(200);
    expect(await owner('select * from app_public.consent_requests')).toEqual([]);
    expect((await phq9('patient', caseA, 'pre')).status).toBe(201);

    // An excluded participant is no longer collecting data: not asked.
    const excluded = await t.user({ flags: ['patient'] });
    const [{ id: v2Id }] = await owner('select id from app_public.consent_versions where version = 2');
    await owner(`select app_hidden.record_consent($1, $2, $3, 'en', 'typed_username', true)`, [excluded.caseId, excluded.id, v2Id]);
    await owner(`update app_public.cases set stage = 'excluded' where id = $1`, [excluded.caseId]);

    const v3 = await draftVersion('V3');
    const published = await as('coordinator', 'POST', `/api/consent/versions/${v3}/publish`, { major: true, reason: 'New data use' });
    expect(published.body).toMatchObject({ version: 3, major: true });
    const asked = (await owner('select case_id from app_public.consent_requests where answered_at is null order by case_id')).map((r) => r.case_id);
    const registered = (await owner(`select m.case_id from app_public.case_members m join app_public.users u on u.id = m.user_id where u.username = 'rania_consent'`))[0].case_id;
    // Case A and the registered patient agreed to an earlier version; case B never had a versioned consent; the excluded case ended.
    expect(asked).toEqual([caseA, registered].sort());

    const mine = await as('patient', 'GET', '/api/consent/mine?language=de');
    expect(mine.body).toMatchObject({ pending: true, current: { version: 3, language: 'de', title: 'V3 de' } });
    const other = await as('otherPatient', 'GET', '/api/consent/mine?language=ar');
    expect(other.body.pending).toBe(false);

    const count = async () => (await owner('select count(*)::int as n from app_public.phq9 where case_id = $1', [caseA]))[0].n;
    const rowsBefore = await count();
    const gated = await phq9('patient', caseA, 'post');
    expect(gated.status).toBe(400);
    expect(gated.body.error).toBe('consent_required');
    expect(await count()).toBe(rowsBefore);
    // Case B is not affected.
    expect((await phq9('otherPatient', caseB, 'pre')).status).toBe(201);

    // Agreeing to the superseded version is refused; to the current one opens the gate.
    const outdated = await as('patient', 'POST', '/api/consent/agree', { versionId: v1, language: 'de', typedUsername: people.patient.username });
    expect(outdated.body.error).toBe('consent_version_outdated');
    const again = await as('patient', 'POST', '/api/consent/agree', { versionId: v3, language: 'de', typedUsername: people.patient.username });
    expect(again.status).toBe(201);
    expect((await as('patient', 'GET', '/api/consent/mine?language=de')).body.pending).toBe(false);
    expect((await phq9('patient', caseA, 'post')).status).toBe(201);
  });

  it('reports coverage per collection and version to coordinators', async () => {
    const report = await as('coordinator', 'GET', '/api/consent/coverage');
    expect(report.status).toBe(200);
    const phq = report.body.collections.find((c: { collection: string }) => c.collection === 'phq9');
    // Case A: one record under v1 (covered), one after consenting to v3 (covered); case B: flags only.
    expect(phq).toMatchObject({ covered: 2, notCovered: 0, flagsOnly: 1 });
    const v3 = report.body.versions.find((v: { version: number }) => v.version === 3);
    expect(v3).toMatchObject({ major: true, consents: 1, openRequests: 1, answeredRequests: 1, languages: ['ar', 'de', 'en'] });
  });
});
