/**
 * Issue 30 in a real browser: the coordinator's access history on the case (German, desk) and
 * the patient's "who opened your record" on the profile (Arabic, phone, right to left), each
 * after staff read the case; screenshots of both.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, therapist: Person, patient: Person;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin', alias: 'Lena Koordination' });
  patient = await t.user({ flags: ['patient'], alias: 'Salma', locale: 'ar', timeZone: 'Asia/Baghdad' });
  therapist = await t.user({ flags: ['therapist'], alias: 'د. كريم' });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  // The therapist reads the case: a staff read the log keeps.
  const read = await t.graphql(`query($id: UUID!) { caseById(id: $id) { id stage } }`, { id: patient.caseId }, therapist.token);
  expect(read.errors).toBeUndefined();
});

afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await t?.close();
});

describe('access history', () => {
  it('the coordinator opens who read the case (German, desk)', async () => {
    const watched = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    const summary = page.getByText(de.integrity.access.caseTitle);
    await summary.click();
    await page.getByText('د. كريم').first().waitFor();
    await expect(page.getByText(de.integrity.kinds.case, { exact: false }).first().isVisible()).resolves.toBe(true);
    await screenshot(page, 'integrity-case-access-de');
    expect(watched.consoleErrors).toEqual([]);
  });

  it('the patient sees who on the care team opened their record (Arabic, phone)', async () => {
    const watched = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/profile`);
    await page.getByRole('heading', { name: ar.integrity.access.patientTitle }).waitFor();
    await page.getByText('د. كريم').first().waitFor();
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expectNoOverflow(page, 'the profile');
    const text = await page.locator('main').innerText();
    expect(text).not.toContain(therapist.id);
    await screenshot(page, 'integrity-patient-readers-ar');
    expect(watched.consoleErrors).toEqual([]);
  });
});
