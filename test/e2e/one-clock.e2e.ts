/**
 * One clock (issue 26; docs/decisions/one-clock.md) in a real browser: a coordinator in Berlin
 * reading a task on the case of a patient in Baghdad sees the due time on their own clock with
 * both zones named and the patient's time beside it, in German at desktop width and in Arabic
 * on a 360 px phone; the process list names workflows in words, never by id; a coordinator
 * without cases is pointed to the case list, not told "a coordinator will add you".
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person;
let coordinatorAr: Person;
let patient: Person;
let taskId: string;
const opened: WatchedPage[] = [];

const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  coordinatorAr = await t.user({ flags: ['coordinator'], locale: 'ar', timeZone: 'Europe/Berlin' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Baghdad' });
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);
  await t.sanad.workflow.tick();
  const { rows } = await pool().query(
    `select id from app_public.workflow_tasks where case_id = $1 and end_time is null and due is not null order by created limit 1`,
    [patient.caseId],
  );
  expect(rows, 'an open task with a due date on the case').toHaveLength(1);
  taskId = rows[0].id as string;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de', width: number): Promise<WatchedPage> {
  const watched = await openPage(browser, { locale, width });
  await watched.context.addInitScript((token) => sessionStorage.setItem('authToken', token), person.token);
  opened.push(watched);
  return watched;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}

/** The catalog sentence's fixed words around the interpolated parts. */
function fixedWords(sentence: string): string[] {
  return sentence.split(/\{\{\w+\}\}/).map((s) => s.replace(/[()·]/g, '').trim()).filter((s) => s.length > 1);
}

describe('one clock', () => {
  it('German desktop: a task due date names both clocks when the patient lives elsewhere', { timeout: 120_000 }, async () => {
    const co = await pageAs(coordinator, 'de', 1280);
    await open(co.page, `/admin/tasks/${taskId}`);
    const due = co.page.locator('main time').first();
    await due.waitFor();
    await expect.poll(() => due.innerText()).toContain('Asia/Baghdad');
    const text = await due.innerText();
    expect(text).toContain('Europe/Berlin');
    for (const word of fixedWords(de.careteam.clock.patientTime)) expect(text).toContain(word);
    // The machine's clock plays no part: the browser context runs in UTC, the text is Berlin's.
    const iso = await due.getAttribute('datetime');
    const berlin = new Intl.DateTimeFormat('de-DE', { timeZone: 'Europe/Berlin', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso!));
    const baghdad = new Intl.DateTimeFormat('de-DE', { timeZone: 'Asia/Baghdad', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(iso!));
    expect(text).toContain(berlin);
    expect(text).toContain(baghdad);
    // The process by its name, never the model id and version ("trial v1").
    const main = await co.page.locator('main').innerText();
    expect(main).toContain(de.careteam.processes.trial);
    expect(main).not.toMatch(/\btrial v\d/);
    await expectAccessible(co.page, '/admin/tasks/{id} (de)');
    await screenshot(co.page, 'one-clock-task-de-wide');
  });

  it('Arabic on a phone: the same due date with both zones, fitting 360 px', { timeout: 120_000 }, async () => {
    const co = await pageAs(coordinatorAr, 'ar', 360);
    await open(co.page, `/admin/tasks/${taskId}`);
    const due = co.page.locator('main time').first();
    await expect.poll(() => due.innerText()).toContain('Asia/Baghdad');
    for (const word of fixedWords(ar.careteam.clock.patientTime)) expect(await due.innerText()).toContain(word);
    await expectNoOverflow(co.page, '/admin/tasks/{id} at 360 px');
    await expectAccessible(co.page, '/admin/tasks/{id} (ar)');
    await screenshot(co.page, 'one-clock-task-ar-360');
  });

  it('a coordinator without cases is pointed to the case list', { timeout: 120_000 }, async () => {
    const co = await pageAs(coordinatorAr, 'ar', 360);
    await open(co.page, '/');
    await co.page.getByText(ar.careteam.home.coordinatorNoCases).waitFor();
    await co.page.getByRole('link', { name: ar.careteam.home.allCases }).waitFor();
    const text = await co.page.locator('main').innerText();
    expect(text).not.toContain(ar.home.noCases);
    await expectNoOverflow(co.page, '/ coordinator at 360 px');
    await screenshot(co.page, 'one-clock-coordinator-home-ar-360');
  });

  it('logged no errors', () => {
    const errors = opened.flatMap((o) => o.consoleErrors).filter((e) => !/Failed to load resource/.test(e));
    expect(errors).toEqual([]);
  });
});
