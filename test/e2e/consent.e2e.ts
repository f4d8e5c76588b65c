/**
 * Issue 31 items 1 and 3 in a real browser: a coordinator in German at desktop width sees the
 * consent document's versions and coverage and withdraws a participant from contact through
 * the confirmation with a reason; a patient in Arabic on a 360 px phone is asked to consent
 * again after a major amendment, agrees, and finds what they agreed to on the profile; the
 * registration form shows the current document.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, openSignedInPage, screenshot, signElectronically } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person;
let patient: Person;

const TEXTS: Record<string, [string, string]> = {
  ar: ['الموافقة على المشاركة في الدراسة', 'أوافق على المشاركة في هذه الدراسة. يمكنني الانسحاب في أي وقت دون ذكر الأسباب.\nتُحفظ بياناتي بأسماء مستعارة.'],
  de: ['Einwilligung zur Studienteilnahme', 'Ich willige ein, an dieser Studie teilzunehmen. Ich kann jederzeit ohne Angabe von Gründen widerrufen.\nMeine Daten werden pseudonymisiert gespeichert.'],
  en: ['Consent to take part in the study', 'I agree to take part in this study. I may withdraw at any time without giving reasons.\nMy data is stored under a pseudonym.'],
};

async function publish(major: boolean, mark: string): Promise<string> {
  const made = await t.api('POST', '/api/consent/versions', { token: coordinator.token });
  for (const [language, [title, body]] of Object.entries(TEXTS)) {
    await t.api('PUT', `/api/consent/versions/${made.body.id}/texts/${language}`, { token: coordinator.token, body: { title: `${title}${mark}`, body } });
  }
  const published = await t.api('POST', `/api/consent/versions/${made.body.id}/publish`, { token: coordinator.token, body: { major, reason: major ? 'Neue Datennutzung' : 'Erste Fassung' } });
  expect(published.status).toBe(200);
  return made.body.id as string;
}

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Amman', alias: 'ريم' });
  const v1 = await publish(false, '');
  await withOwner(t.database.db.pool, (sql) => sql.query(`select app_hidden.record_consent($1, $2, $3, 'ar', 'email_link', true)`, [patient.caseId, patient.id, v1]));
  await publish(true, ' (2)');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('consent and withdrawal screens', () => {
  it('the coordinator sees versions and coverage, and withdraws a participant from contact with a reason (de, desktop)', async () => {
    const { page } = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    await page.goto(`${t.url}/admin/cases`);
    const heading = page.getByRole('heading', { level: 2, name: de.consent.editorTitle });
    await heading.waitFor();
    await heading.scrollIntoViewIfNeeded();
    await page.getByText(de.consent.coverageTitle).waitFor();
    await expectAccessible(page, 'consent panel de');
    await screenshot(page, 'consent-admin-de');

    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    const panel = page.getByRole('heading', { level: 2, name: de.withdrawal.title });
    await panel.waitFor();
    await panel.scrollIntoViewIfNeeded();
    await screenshot(page, 'withdrawal-panel-de');
    await page.getByRole('button', { name: de.withdrawal.levels.stop_contact }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByLabel(de.withdrawal.reason).fill('Per Telefon am 28.11. gebeten, nicht mehr kontaktiert zu werden');
    await screenshot(page, 'withdrawal-confirm-de');
    await dialog.getByRole('button', { name: de.withdrawal.levels.stop_contact }).click();
    // Issue 30: the withdrawal is signed electronically; its manifest shows with it.
    await page.locator('dialog.signing').getByText(de.signing.meanings.withdrawal).waitFor();
    await signElectronically(page);
    await page.getByText('Per Telefon am 28.11.').waitFor();
    await page.locator('.signature-manifests').getByText(de.signing.meanings.withdrawal, { exact: false }).waitFor();
    await screenshot(page, 'withdrawal-done-de');
    expect(await withOwner(t.database.db.pool, async (sql) => (await sql.query('select level from app_public.case_withdrawals where case_id = $1', [patient.caseId])).rows)).toEqual([{ level: 'stop_contact' }]);
  });

  it('the patient is asked again after the major amendment, agrees, and sees the record (ar, 360 px)', async () => {
    const { page } = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { level: 2, name: ar.consent.reconsentTitle }).waitFor();
    await expectNoOverflow(page, 'reconsent ar');
    await expectAccessible(page, 'reconsent ar');
    await screenshot(page, 'reconsent-ar-360');
    await page.getByLabel(ar.consent.typedUsername).fill('somebody else');
    await page.getByRole('button', { name: ar.consent.agree }).click();
    await page.getByText(ar.refusals.identity_not_confirmed).waitFor();
    await page.getByLabel(ar.consent.typedUsername).fill(patient.username);
    await page.getByRole('button', { name: ar.consent.agree }).click();
    await page.getByText(ar.consent.agreed).waitFor();
    await page.goto(`${t.url}/profile`);
    const mine = page.getByRole('heading', { level: 2, name: ar.consent.myConsents });
    await mine.waitFor();
    await mine.scrollIntoViewIfNeeded();
    await expectNoOverflow(page, 'profile consents ar');
    await screenshot(page, 'my-consents-ar-360');
  });

  it('the registration form shows the current document (ar, 360 px)', async () => {
    const { page } = await openPage(browser, { locale: 'ar', width: 360, height: 740 });
    await page.goto(`${t.url}/register`);
    const legend = page.getByRole('group', { name: ar.consent.registrationHeading });
    await legend.waitFor();
    await legend.scrollIntoViewIfNeeded();
    await expectNoOverflow(page, 'register ar');
    await screenshot(page, 'register-consent-ar-360');
  });
});
