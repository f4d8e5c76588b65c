/**
 * Clinical safety in a real browser (issue 13): a patient on a phone, in Arabic, answers PHQ-9
 * item 9 with 2 and at once sees the crisis panel (gives an emergency contact and confirms the
 * safety agreement); the therapist (German, desk) finds the safety task first on /admin/tasks,
 * records a call that informs the coordinators on the case's Safety section (on a phone too);
 * the coordinator (German, desk) sees the call in the safety overview and completes the review,
 * and the call then names the coordinator. Screens fit 360 px and are axe clean.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { shortId } from '../../src/domain/short-id';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, signElectronically, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, therapist: Person, coordinator: Person;
let caseId: string;
const opened: WatchedPage[] = [];
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp({ MEASUREMENTS_SCREENING: 'phq9' });
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'ريم' });
  therapist = await t.user({ flags: ['therapist'], locale: 'de', timeZone: 'Europe/Berlin' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  caseId = patient.caseId!;
  await addMember(pool(), caseId, therapist.username, ['therapist']);
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
  await t.sanad.workflow.tick();
}, 60_000);

afterAll(async () => {
  for (const w of opened) await w.context.close().catch(() => undefined);
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de', width: number): Promise<Page> {
  const watched = await openSignedInPage(browser, person.token, { locale, width, height: 800 });
  opened.push(watched);
  return watched.page;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}

describe('clinical safety end to end', () => {
  it('a patient answers PHQ-9 item 9 with 2 on a phone in Arabic and sees the crisis panel at once', async () => {
    const page = await pageAs(patient, 'ar', 360);
    await open(page, '/messungen/screening?q=phq9');
    for (let i = 1; i <= 9; i += 1) {
      const item = page.locator(`[data-item="item${i}"]`);
      await item.waitFor();
      await item.locator(`input[value="${i === 9 ? 2 : 1}"]`).check();
      if (i < 9) {
        await page.getByRole('button', { name: ar.measurements.next, exact: true }).click();
        await page.waitForFunction((id) => !document.querySelector(`[data-item="${id}"]`), `item${i}`);
      }
    }
    // At once, before moving on: the calm panel with the shipped default contacts (0121, issue 25).
    const panel = page.getByRole('region', { name: ar.safety.crisis.title });
    await panel.waitFor();
    await expect.poll(() => panel.textContent()).toContain('0800 111 0 111');
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl');
    await expectNoOverflow(page, 'crisis panel');
    await screenshot(page, 'safety-crisis-panel-ar-360');
    // The case has no emergency contact: the panel asks for one.
    await panel.getByLabel(ar.safety.emergencyContact.label).fill('أختي سلمى ‎+49 170 0000000');
    await panel.getByRole('button', { name: ar.safety.emergencyContact.save }).click();
    await panel.getByRole('button', { name: ar.safety.contract.confirm }).click();
    await expect.poll(async () => (await panel.textContent()) ?? '').toContain('تم تأكيد اتفاق السلامة');
    await expectAccessible(page, 'crisis panel');
    await screenshot(page, 'safety-crisis-panel-done-ar-360');
    const { rows } = await pool().query(
      `select c.emergency_contact, u.anti_suicide_contract_at from app_public.cases c join app_public.case_members m on m.case_id = c.id and m.acts_as_patient
         join app_public.users u on u.id = m.user_id where c.id = $1`,
      [caseId],
    );
    expect(rows[0].emergency_contact).toContain('سلمى');
    expect(rows[0].anti_suicide_contract_at).not.toBeNull();
    // The signal was raised with the answer, once.
    await expect.poll(async () => (await pool().query('select count(*)::int as n from app_public.safety_signals where case_id = $1', [caseId])).rows[0].n).toBe(1);
  }, 90_000);

  it('the therapist sees the safety task first and records a call that informs the coordinators', async () => {
    await t.sanad.workflow.tick();
    const page = await pageAs(therapist, 'de', 1280);
    await open(page, '/admin/tasks');
    const first = page.locator('a[href^="/admin/tasks/"]').first();
    await first.waitFor();
    expect((await first.textContent())?.trim()).toBe(de.safety.taskNames.safetySignalTask);
    await screenshot(page, 'safety-tasks-first-de');

    await open(page, `/admin/cases/${caseId}`);
    const section = page.locator('section.safety-section');
    await section.getByRole('heading', { name: de.safety.signal.title }).waitFor();
    await section.getByRole('button', { name: de.safety.call.record }).click();
    await section.getByLabel(de.safety.call.patientReached, { exact: true }).check();
    await section.getByLabel(de.safety.call.riskOfSuicide, { exact: true }).selectOption('moderate');
    await section.getByLabel(de.safety.call.detailedDescription, { exact: true }).fill('Passive Todeswünsche, keine Pläne; Krisenplan besprochen.');
    await section.getByLabel(de.safety.call.informCoordinator, { exact: true }).check();
    await section.getByRole('button', { name: de.safety.call.save }).click();
    await section.locator('li.safety-call').first().waitFor();
    await expect.poll(async () => (await section.textContent()) ?? '').toContain(de.safety.call.awaitingCoordinator);
    await expectAccessible(page, 'safety section');
    await screenshot(page, 'safety-section-de');
    expect((await pool().query('select count(*)::int as n from app_public.case_suicide_calls where case_id = $1 and inform_coordinator', [caseId])).rows[0].n).toBe(1);

    // The same section on a phone: it fits 360 px.
    const phone = await pageAs(therapist, 'de', 360);
    await open(phone, `/admin/cases/${caseId}`);
    await phone.locator('section.safety-section li.safety-call').first().waitFor();
    await phone.locator('section.safety-section').getByRole('button', { name: de.safety.call.edit }).first().click();
    await phone.locator('form.safety-call-form').waitFor();
    await expectNoOverflow(phone, 'call form on a phone');
    await screenshot(phone, 'safety-call-form-de-360');
  }, 90_000);

  it('the coordinator sees the call in the overview and completes the review', async () => {
    await t.sanad.workflow.tick();
    await t.smtp.waitFor(coordinator.email);
    const page = await pageAs(coordinator, 'de', 1280);
    await open(page, '/admin/cases');
    const overview = page.locator('section.safety-overview');
    await overview.getByRole('heading', { name: de.safety.overview.callsWaiting }).waitFor();
    const waiting = overview.locator('div', { has: page.getByRole('heading', { name: de.safety.overview.callsWaiting }) });
    await expect.poll(async () => (await waiting.last().textContent()) ?? '').toContain(shortId(caseId));
    await screenshot(page, 'safety-overview-de');
    // The overview and the case's Safety section on a phone in Arabic: right to left, 360 px.
    const phone = await pageAs(coordinator, 'ar', 360);
    await open(phone, '/admin/cases');
    await phone.locator('section.safety-overview').getByRole('heading', { name: ar.safety.overview.callsWaiting }).waitFor();
    await expectNoOverflow(phone, 'safety overview on a phone');
    await expectAccessible(phone, 'safety overview on a phone');
    await screenshot(phone, 'safety-overview-ar-360');
    await open(phone, `/admin/cases/${caseId}`);
    await phone.locator('section.safety-section li.safety-call').first().waitFor();
    await expectNoOverflow(phone, 'safety section on a phone');
    await screenshot(phone, 'safety-section-ar-360');

    await open(page, '/admin/tasks');
    await page.getByRole('link', { name: de.safety.taskNames.reviewSuicideCall }).first().click();
    // The review closes from the safety task page, after a confirmation naming the consequence.
    await page.getByRole('button', { name: de.safetyLoop.close.done.reviewSuicideCall }).click();
    await page.getByRole('dialog').getByRole('button', { name: de.safetyLoop.close.confirmButton }).click();
    // Issue 30: closing a safety task is signed electronically.
    await signElectronically(page);
    await expect
      .poll(async () => (await pool().query('select user_id_coordinator, coordinator_contact_date from app_public.case_suicide_calls where case_id = $1', [caseId])).rows[0])
      .toMatchObject({ user_id_coordinator: coordinator.id });
    await open(page, '/admin/cases');
    await expect.poll(async () => (await page.locator('section.safety-overview').textContent()) ?? '', { timeout: 20_000 }).toContain(de.safety.overview.noneWaiting);
  }, 90_000);
});
