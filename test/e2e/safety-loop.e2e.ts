/**
 * The closed safety loop in a real browser (issue 26), in German at desktop width and in Arabic
 * on a 360 px phone: a risk answer → the therapist's home shows the safety banner → the task
 * shows the patient and the answer → "I am on it" → the call is recorded from the task → the
 * task closes after a confirmation that names the consequence. Then the coordinator's
 * response-time report. Screens fit 360 px and are axe clean.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, signElectronically, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let therapist: Person, coordinator: Person;
const opened: WatchedPage[] = [];
const pool = () => t.database.db.pool;
const PHQ9 = { item1: 1, item2: 1, item3: 2, item4: 2, item5: 1, item6: 1, item7: 0, item8: 1, item9: 2, item10: 'somewhat' };

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  therapist = await t.user({ flags: ['therapist'], locale: 'de', timeZone: 'Europe/Berlin', alias: 'Dr. Weber' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
}, 60_000);

afterAll(async () => {
  for (const w of opened) await w.context.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

/** A patient of the therapist answers PHQ-9 item 9 with 2: one open risk task. */
async function riskAnswer(alias: string): Promise<{ caseId: string; taskId: string }> {
  const patient = await t.user({ flags: ['patient'], alias });
  await addMember(pool(), patient.caseId!, therapist.username, ['therapist']);
  const answered = await t.api('POST', '/api/phq9', {
    token: patient.token,
    headers: { prefer: 'resolution=merge-duplicates, return=representation' },
    body: { case_id: patient.caseId, time_of_measurement: 'pre', ...PHQ9 },
  });
  expect(answered.status).toBeLessThan(300);
  await t.sanad.workflow.tick();
  const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'safetySignalTask' and end_time is null`, [patient.caseId]);
  return { caseId: patient.caseId!, taskId: rows[0].id };
}

async function pageAs(person: Person, locale: 'ar' | 'de', width: number): Promise<Page> {
  const watched = await openSignedInPage(browser, person.token, { locale, width, height: 800 });
  opened.push(watched);
  return watched.page;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}

const taskClosed = async (taskId: string) => (await pool().query('select end_time from app_public.workflow_tasks where id = $1', [taskId])).rows[0].end_time !== null;

describe.each([
  { locale: 'de' as const, width: 1280, texts: de, patient: 'Amal', note: 'Passive Todeswünsche, keine Pläne; Krisenplan besprochen.' },
  { locale: 'ar' as const, width: 360, texts: ar, patient: 'ريم', note: 'أفكار عن الموت دون خطة؛ راجعنا خطة الأزمة معًا.' },
])('the closed safety loop in $locale at $width px', ({ locale, width, texts, patient, note }) => {
  it('banner on the home → the task with the answer → I am on it → the call from the task → confirmed close', async () => {
    await pool().query('update app_public.users set locale = $2 where id = $1', [therapist.id, locale]);
    const risk = await riskAnswer(patient);
    const page = await pageAs(therapist, locale, width);
    await open(page, '/');
    const banner = page.locator('section.safety-banner');
    await banner.waitFor();
    await expect.poll(async () => (await banner.textContent()) ?? '').toContain(patient);
    if (width <= 360) await expectNoOverflow(page, 'home with the safety banner');
    await expectAccessible(page, 'home with the safety banner');
    await screenshot(page, `safety-loop-banner-${locale}-${width}`);

    await banner.getByRole('link').first().click();
    await page.getByRole('heading', { name: texts.safetyLoop.answer.title }).waitFor();
    const body = async () => (await page.locator('main').textContent()) ?? '';
    await expect.poll(body).toContain(patient);
    expect(await body()).toContain('PHQ-9');
    expect(await body()).toContain(texts.safetyLoop.ack.none);
    // No ids or process variables on the page.
    expect(await body()).not.toContain(risk.caseId);
    expect(await body()).not.toMatch(/signalId|safetyGroup|taskDue|P\dD|PT\d+H/);
    if (width <= 360) await expectNoOverflow(page, 'risk task');
    await expectAccessible(page, 'risk task');
    await screenshot(page, `safety-loop-task-${locale}-${width}`);

    await page.getByRole('button', { name: texts.safetyLoop.ack.button }).click();
    await expect.poll(body).toContain(texts.safetyLoop.ack.title);
    await page.getByRole('button', { name: texts.safetyLoop.ack.button }).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: texts.safetyLoop.calls.record }).click();
    const form = page.locator('form.safety-call-form');
    await form.getByLabel(texts.safety.call.patientReached, { exact: true }).check();
    await form.getByLabel(texts.safety.call.riskOfSuicide, { exact: true }).selectOption('moderate');
    await form.getByLabel(texts.safety.call.detailedDescription, { exact: true }).fill(note);
    if (width <= 360) await expectNoOverflow(page, 'call form on the task');
    await screenshot(page, `safety-loop-call-form-${locale}-${width}`);
    await form.getByRole('button', { name: texts.safety.call.save }).click();
    await page.getByRole('button', { name: texts.safetyLoop.close.button }).waitFor();
    const { rows } = await pool().query('select safety_signal_id from app_public.case_suicide_calls where case_id = $1', [risk.caseId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].safety_signal_id).not.toBeNull();
    await screenshot(page, `safety-loop-call-recorded-${locale}-${width}`);

    // The confirmation names the consequence; Escape cancels and nothing happens.
    await page.getByRole('button', { name: texts.safetyLoop.close.button }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain(texts.safetyLoop.close.confirmTitle.safetySignalTask);
    await screenshot(page, `safety-loop-confirm-${locale}-${width}`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await taskClosed(risk.taskId)).toBe(false);
    await page.getByRole('button', { name: texts.safetyLoop.close.button }).click();
    await page.getByRole('dialog').getByRole('button', { name: texts.safetyLoop.close.confirmButton }).click();
    // Issue 30: closing a safety task is signed electronically (meaning: closing a safety task).
    await page.locator('dialog.signing').getByText(texts.signing.meanings.safety_review).waitFor();
    await expectAccessible(page, `signing dialog (${locale}, ${width})`);
    await signElectronically(page);
    await page.waitForURL(/\/admin\/tasks$/);
    expect(await taskClosed(risk.taskId)).toBe(true);
    await open(page, '/');
    await page.locator('h1').first().waitFor();
    expect(await page.locator('section.safety-banner').count()).toBe(0);
  }, 120_000);
});

describe("the coordinators' response-time report", () => {
  it('shows the figures per case and overall, in German and in Arabic on a phone', async () => {
    const page = await pageAs(coordinator, 'de', 1280);
    await open(page, '/admin/cases');
    const report = page.locator('section.safety-report');
    await report.getByRole('heading', { name: de.safetyLoop.report.title }).waitFor();
    await expect.poll(async () => report.locator('tbody tr').count()).toBe(2);
    await report.scrollIntoViewIfNeeded();
    await screenshot(page, 'safety-loop-report-de');
    await pool().query(`update app_public.users set locale = 'ar' where id = $1`, [coordinator.id]);
    const phone = await pageAs(coordinator, 'ar', 360);
    await open(phone, '/admin/cases');
    const phoneReport = phone.locator('section.safety-report');
    await phoneReport.getByRole('heading', { name: ar.safetyLoop.report.title }).waitFor();
    await expect.poll(async () => phoneReport.locator('tbody tr').count()).toBe(2);
    await expectNoOverflow(phone, 'safety report on a phone');
    await phoneReport.scrollIntoViewIfNeeded();
    await screenshot(phone, 'safety-loop-report-ar-360');
  }, 90_000);
});
