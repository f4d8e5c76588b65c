/**
 * Issue 32 in a real browser: the engagement radar for a coordinator (German, desk: the table,
 * highest risk first) and for a therapist (Arabic, phone, right to left: cards of their own cases
 * only); keyboard reachable, axe clean, no overflow, no ids; screenshots of both.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, therapist: Person, salma: Person, jonas: Person;
const opened: WatchedPage[] = [];
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  const pool = t.database.db.pool;
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin', alias: 'Lena Koordination' });
  therapist = await t.user({ flags: ['therapist'], alias: 'د. كريم', locale: 'ar', timeZone: 'Asia/Amman' });
  salma = await t.user({ flags: ['patient'], alias: 'سلمى', locale: 'ar' });
  jonas = await t.user({ flags: ['patient'], alias: 'Jonas', locale: 'de' });
  await addMember(pool, salma.caseId!, therapist.username, ['therapist']);
  // Salma wrote 16 days ago and waits for an answer; Jonas was active yesterday.
  await pool.query(`insert into app_public.case_messages (case_id, sender_id, body, to_therapists, sent_at) values ($1, $2, 'مرحبا', true, now())`, [
    salma.caseId,
    salma.id,
  ]);
  // The server stamps sent_at itself; the test moves the maintained row back in time instead.
  await pool.query(
    `update app_public.case_engagement set last_activity_at = now() - interval '16 days', last_from_patient_at = now() - interval '16 days',
            waiting_since = now() - interval '16 days' where case_id = $1`,
    [salma.caseId],
  );
  await pool.query(`update app_public.case_engagement set last_activity_at = $2 where case_id = $1`, [jonas.caseId, new Date(Date.now() - DAY)]);
});

afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await t?.close();
});

describe('engagement radar', () => {
  it('the coordinator sees every participant, stalled first (German, desk)', async () => {
    const watched = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/admin/engagement`);
    await page.getByRole('heading', { name: de.nav.adminEngagement }).waitFor();
    const table = page.getByRole('region', { name: de.engagement.listLabel });
    await table.waitFor();
    const rows = table.locator('tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await expect(rows.nth(0).innerText()).resolves.toContain(de.engagement.states.stalled);
    await expect(rows.nth(0).innerText()).resolves.toContain('سلمى');
    await expect(rows.nth(1).innerText()).resolves.toContain('Jonas');
    await expect(rows.nth(1).innerText()).resolves.toContain(de.engagement.states.active);
    // Keyboard: the scrollable table takes focus, then the first case link.
    await table.focus();
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent ?? '');
    expect(focused).toContain('سلمى');
    const text = await page.locator('main').innerText();
    for (const id of [salma.caseId!, jonas.caseId!, salma.id, therapist.id]) expect(text).not.toContain(id);
    await expectAccessible(page, 'the engagement radar (de)');
    await screenshot(page, 'engagement-radar-coordinator-de');
    expect(watched.consoleErrors).toEqual([]);
  });

  it('the therapist sees only their own case as cards (Arabic, phone, right to left)', async () => {
    const watched = await openSignedInPage(browser, therapist.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/admin/engagement`);
    await page.getByRole('heading', { name: ar.nav.adminEngagement }).waitFor();
    const cards = page.getByRole('list', { name: ar.engagement.listLabel }).locator('li');
    await cards.first().waitFor();
    await expect(cards.count()).resolves.toBe(1);
    const card = await cards.first().innerText();
    expect(card).toContain('سلمى');
    expect(card).toContain(ar.engagement.states.stalled);
    expect(card).not.toContain('Jonas');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expectNoOverflow(page, 'the engagement radar (ar, 360 px)');
    await expectAccessible(page, 'the engagement radar (ar)');
    await screenshot(page, 'engagement-radar-therapist-ar');
    expect(watched.consoleErrors).toEqual([]);
  });
});
