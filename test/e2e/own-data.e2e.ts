/**
 * Issue 31 item 2 in a real browser: a patient on a phone in Arabic finds "your data" on the
 * profile page, downloads the readable page and reads it right to left, fitting 360 px; a
 * patient on a desktop in German downloads theirs too, in German with Berlin times.
 */
import { readFile } from 'node:fs/promises';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let arabic: Person;
let german: Person;

/** A questionnaire, a sent worksheet, a letter and a message in the patient's case. */
async function plant(who: Person, letter: string, thought: string): Promise<void> {
  await withOwner(t.database.db.pool, async (sql) => {
    await sql.query(`insert into app_public.phq9 (case_id, submitter_id, time_of_measurement, item1, item2, item10) values ($1, $2, 'screening', 1, 2, 'very')`, [who.caseId, who.id]);
    await sql.query(`insert into app_public.cbt_reframings (case_id, submitter_id, negative_thought, healthy_thought, published_at) values ($1, $2, $3, $3, now())`, [who.caseId, who.id, thought]);
    await sql.query(`insert into app_public.letters (case_id, subject, body, published_at) values ($1, $2, $2, now())`, [who.caseId, letter]);
    await sql.query(`insert into app_public.case_messages (case_id, from_system, body, to_patients, sent_at) values ($1, true, $2, true, now())`, [who.caseId, letter]);
  });
}

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  arabic = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Amman', alias: 'ريم' });
  german = await t.user({ flags: ['patient'], locale: 'de', timeZone: 'Europe/Berlin', alias: 'Lena' });
  await plant(arabic, 'رسالة الأسبوع الأول', 'أنا لا أستطيع');
  await plant(german, 'Ihre erste Woche', 'Ich schaffe das nicht');
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function downloadReadablePage(person: Person, locale: 'ar' | 'de', width: number, height: number, names: typeof ar | typeof de, shot: string): Promise<string> {
  const watched = await openSignedInPage(browser, person.token, { locale, width, height });
  const page = watched.page;
  await page.goto(`${t.url}/profile`);
  await page.getByRole('heading', { level: 2, name: names.ownData.download.title }).waitFor();
  await expectNoOverflow(page, `profile ${locale}`);
  await expectAccessible(page, `profile ${locale}`);
  await page.getByRole('heading', { level: 2, name: names.ownData.download.title }).scrollIntoViewIfNeeded();
  await screenshot(page, `${shot}-profile`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: names.ownData.download.html }).click()]);
  expect(download.suggestedFilename()).toMatch(/^my-data-\d{4}-\d{2}-\d{2}\.html$/);
  const html = await readFile((await download.path())!, 'utf8');
  const reader = await watched.context.newPage();
  await reader.setContent(html);
  await expectNoOverflow(reader, `document ${locale}`);
  await screenshot(reader, `${shot}-document`);
  expect(watched.consoleErrors).toEqual([]);
  await watched.context.close();
  return html;
}

describe('own-data download', () => {
  it('a patient on a phone in Arabic downloads a readable page, right to left', { timeout: 300_000 }, async () => {
    const html = await downloadReadablePage(arabic, 'ar', 360, 740, ar, 'own-data-ar-360');
    expect(html).toContain('dir="rtl"');
    expect(html).toContain(ar.ownData.doc.title);
    expect(html).toContain('رسالة الأسبوع الأول');
    expect(html).not.toContain('Ich schaffe');
  });

  it('a patient on a desktop in German downloads theirs in German', { timeout: 300_000 }, async () => {
    const html = await downloadReadablePage(german, 'de', 1280, 900, de, 'own-data-de-desktop');
    expect(html).toContain('dir="ltr"');
    expect(html).toContain(de.ownData.doc.questionnaires);
    expect(html).toContain('Ich schaffe das nicht');
    expect(html).not.toContain('رسالة');
  });
});
