/**
 * A coordinator downloads research data in a real browser (issue 7, the export): on the staff
 * case list, pick a questionnaire, download its CSV and its codebook; the files arrive through
 * the browser's download with the header first. In English on a desk and in Arabic on a phone,
 * by keyboard, without sideways scrolling or accessibility violations. Staff who are not
 * coordinators are not offered the section.
 */
// Arabic texts isolate their Latin runs (src/domain/bidi.ts), so names are compared the same way.
import { CODEBOOK_COLUMNS } from '../../src/domain/export/dictionary';
import { isolateLatin } from '../../src/domain/bidi';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
const opened: WatchedPage[] = [];

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar' });
  const answers = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`item${i + 1}`, 1]));
  const response = await t.api('POST', '/api/gad7', { body: { case_id: patient.caseId, time_of_measurement: 'pre', ...answers }, token: patient.token, headers: UPSERT });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width: number): Promise<Page> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched.page;
}

/** The text of a finished download, byte-order mark removed. */
async function downloadedText(download: import('playwright-core').Download): Promise<string> {
  const file = await download.path();
  return fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
}

describe('research data on the case list', () => {
  it('lets a coordinator download a questionnaire’s data and codebook', { timeout: 120_000 }, async () => {
    const coordinator = await t.user({ flags: ['coordinator'], locale: 'en' });
    const page = await pageAs(coordinator, 'en', 1200);
    await page.goto(`${t.url}/admin/cases`);
    const section = page.getByRole('region', { name: 'Research data' });
    await section.waitFor();
    await section.getByLabel('Questionnaire').selectOption('gad7');

    const [data] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download data (CSV)' }).click()]);
    expect(data.suggestedFilename()).toMatch(/^sanad-gad7-\d{4}-\d{2}-\d{2}\.csv$/);
    const [header, first] = (await downloadedText(data)).split('\r\n');
    expect(header).toMatch(/^case_id,time_of_measurement,created_at,updated_at,exclude_from_analysis,is_dropout,treatment,complete,total,band,/);
    expect(first).toContain(patient.caseId!);
    await expect.poll(() => section.getByRole('status').innerText()).toContain(data.suggestedFilename());

    const [codebook] = await Promise.all([page.waitForEvent('download'), section.getByRole('button', { name: 'Download codebook (CSV)' }).click()]);
    expect(codebook.suggestedFilename()).toMatch(/^sanad-gad7-codebook-en-/);
    expect((await downloadedText(codebook)).split('\r\n')[0]).toBe(CODEBOOK_COLUMNS.join(','));
    await expectAccessible(page, 'case list with research data');
    await screenshot(page, 'research-export-en');

    // A refused download says why, next to the buttons, and saves nothing.
    await page.route('**/api/export/**', (route) => route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: 'forbidden', message: 'Only coordinators may download research data.' }) }));
    let downloads = 0;
    page.on('download', () => (downloads += 1));
    await section.getByRole('button', { name: 'Download data (CSV)' }).click();
    await expect.poll(() => section.getByRole('alert').innerText()).toBe('Only coordinators may download research data.');
    expect(await section.getByRole('status').innerText()).toBe('');
    expect(downloads).toBe(0);
  });

  it('works by keyboard in Arabic on a phone, right to left', { timeout: 120_000 }, async () => {
    const coordinator = await t.user({ flags: ['coordinator'], locale: 'ar' });
    const page = await pageAs(coordinator, 'ar', 360);
    await page.goto(`${t.url}/admin/cases`);
    const section = page.getByRole('region', { name: 'بيانات البحث' });
    await section.waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    const select = section.getByLabel('الاستبيان');
    expect(await select.locator('option', { hasText: 'GAD-7' }).count()).toBe(1);
    await select.selectOption('gad7');
    await select.focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const codebookButton = section.getByRole('button', { name: isolateLatin('تنزيل دليل الترميز (CSV)') });
    expect(await codebookButton.evaluate((button) => button === document.activeElement)).toBe(true);
    const [codebook] = await Promise.all([page.waitForEvent('download'), page.keyboard.press('Enter')]);
    expect(codebook.suggestedFilename()).toMatch(/^sanad-gad7-codebook-ar-/);
    expect(await downloadedText(codebook)).toContain('اضطراب القلق العام');
    await expectNoOverflow(page, 'case list with research data, Arabic phone');
    await expectAccessible(page, 'case list with research data, Arabic phone');
    await screenshot(page, 'research-export-ar-phone');
  });

  it('is not offered to staff who are not coordinators', { timeout: 60_000 }, async () => {
    const therapist = await t.user({ flags: ['therapist'], locale: 'en' });
    await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
    const page = await pageAs(therapist, 'en', 1200);
    await page.goto(`${t.url}/admin/cases`);
    await page.getByRole('table').waitFor();
    expect(await page.getByRole('region', { name: 'Research data' }).count()).toBe(0);
    // The refused download of the first test logs its 403 as a failed resource; nothing else may.
    expect(opened.flatMap((o) => o.consoleErrors).filter((e) => !/403/.test(e))).toEqual([]);
  });
});
