/**
 * Issue 14 item 5 in a real browser: a coordinator on a desktop in German adds a small PNG for
 * Arabic readers to /downloads (a file that is no image is refused with a clear message; a
 * deletion asks first); a patient on a phone in Arabic sees it under the information text and
 * downloads it: the same bytes under the same name.
 */
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let coordinator: Person;
const opened: WatchedPage[] = [];

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('/downloads', () => {
  it('a coordinator adds a document in German; a patient downloads it in Arabic on a phone', { timeout: 300_000 }, async () => {
    const desk = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(desk);
    const page = desk.page;
    await page.goto(`${t.url}/downloads`);
    await page.getByRole('heading', { level: 2, name: de.downloads.heading }).waitFor();
    await page.getByText(de.downloads.empty).waitFor();
    const form = page.getByRole('form', { name: de.downloads.uploadHeading });

    // Not an image or PDF, whatever its name says: refused, nothing listed.
    await form.getByLabel(de.downloads.language).selectOption('ar');
    await form.getByLabel(de.downloads.title).fill('دليل الجلسات');
    await form.getByLabel(de.downloads.file).setInputFiles({ name: 'trick.png', mimeType: 'image/png', buffer: Buffer.from('<html><script>alert(1)</script></html>') });
    await form.getByRole('button', { name: de.downloads.upload }).click();
    await page.getByText(de.downloads.errors.file_type_refused).waitFor();

    await form.getByLabel(de.downloads.file).setInputFiles({ name: 'دليل.png', mimeType: 'image/png', buffer: PNG });
    await form.getByRole('button', { name: de.downloads.upload }).click();
    await page.getByText(de.downloads.uploaded).waitFor();
    // A German one too, which this screen (German) lists, and which is then deleted after asking.
    await form.getByLabel(de.downloads.language).selectOption('de');
    await form.getByLabel(de.downloads.title).fill('Merkblatt');
    await form.getByLabel(de.downloads.file).setInputFiles({ name: 'merkblatt.png', mimeType: 'image/png', buffer: PNG });
    await form.getByRole('button', { name: de.downloads.upload }).click();
    await page.getByText('Merkblatt', { exact: true }).waitFor();
    await expectAccessible(page, 'downloads (de, desktop)');
    await screenshot(page, 'downloads-de-desktop');

    const deleteButton = page.getByRole('button', { name: de.downloads.deleteNamed.replace('{{title}}', 'Merkblatt') });
    await deleteButton.click();
    await page.getByRole('dialog').getByRole('button', { name: de.common.cancel }).click();
    await page.getByText('Merkblatt', { exact: true }).waitFor();
    await deleteButton.click();
    await page.getByRole('dialog').getByRole('button', { name: de.downloads.delete }).click();
    await page.getByText(de.downloads.empty).waitFor();
    const rows = (await t.database.db.pool.query('select locale, title, file_name from app_public.download_documents')).rows;
    expect(rows).toEqual([{ locale: 'ar', title: 'دليل الجلسات', file_name: 'دليل.png' }]);

    const phone = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(phone);
    const mobile = phone.page;
    await mobile.goto(`${t.url}/downloads`);
    await mobile.getByRole('heading', { level: 2, name: ar.downloads.heading }).waitFor();
    expect(await mobile.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await mobile.getByText('دليل الجلسات').waitFor();
    expect(await mobile.getByRole('button', { name: ar.downloads.delete }).count()).toBe(0);
    expect(await mobile.getByRole('form', { name: ar.downloads.uploadHeading }).count()).toBe(0);
    await expectNoOverflow(mobile, 'downloads (ar, 360)');
    await expectAccessible(mobile, 'downloads (ar, 360)');
    await screenshot(mobile, 'downloads-ar-360');

    const [download] = await Promise.all([mobile.waitForEvent('download'), mobile.getByRole('button', { name: ar.downloads.downloadNamed.replace('{{title}}', 'دليل الجلسات') }).click()]);
    expect(download.suggestedFilename()).toBe('دليل.png');
    const saved = await download.path();
    expect(Buffer.compare(await readFile(saved), PNG)).toBe(0);

    for (const w of opened) expect(w.consoleErrors.filter((e) => !/status of 400/.test(e))).toEqual([]);
  });
});
