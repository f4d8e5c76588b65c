/**
 * Interview reports in a real browser (issue 12): an interviewer fills and finalizes a report
 * in German at desktop width and another in Arabic on a 360 px phone, by keyboard; finalizing
 * completes the trial's interview task (the case moves on to randomization and treatment) and
 * the patient gets a kind, content-free mail. The case detail shows the finalized report.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { sendReportMails } from '../../src/server/reports/mail-worker';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, signElectronically } from '../helpers/browser';
import de from '../../src/web/i18n/de.json';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person;
let slots = 0;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const pool = () => t.database.db.pool;

async function notify(caseId: string, message: string, variables: Record<string, unknown>) {
  await pool().query('select app_hidden.notify_workflow($1, $2, $3)', [caseId, message, JSON.stringify(variables)]);
  await t.sanad.workflow.tick();
}

/** A trial case waiting for "Record the interview outcome", its interview begun 10 minutes ago. */
async function caseAtInterview(interviewer: Person, locale: 'ar' | 'de') {
  const patient = await t.user({ flags: ['patient'], locale });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  slots += 1;
  const offer = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(now() - make_interval(mins => 10 + 70 * $2), now() + make_interval(mins => 50 - 70 * $2))) returning id, starts_at`,
    [interviewer.id, slots],
  );
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, interviewer.id],
  );
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
  await t.sanad.workflow.tick();
  await notify(caseId, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' }, exclusionReasons: { value: '', type: 'String' } });
  await notify(caseId, 'interviewBooked', {
    offerId: { value: offer.rows[0]!.id, type: 'String' },
    bookingId: { value: booking.rows[0]!.id, type: 'String' },
    startsAt: { value: new Date().toISOString(), type: 'Date' },
  });
  return { patient, caseId, bookingId: booking.rows[0]!.id };
}

/** Signing asks first (issue 26): empty sections need a reason; the dialog's submit signs. */
async function confirmSigning(page: Page, reason: string) {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  const field = dialog.getByRole('textbox');
  if ((await field.count()) > 0) await field.fill(reason);
  await dialog.locator('button[type="submit"]').click();
}

/** What the person sees (the viewport, not the whole page). */
async function viewShot(page: Page, name: string) {
  await page.screenshot({ path: `test-results/screenshots/${name}.png` });
}

async function openTasks(caseId: string): Promise<string[]> {
  const { rows } = await pool().query('select task_definition_key from app_public.workflow_tasks where case_id = $1 and end_time is null', [caseId]);
  return rows.map((r) => r.task_definition_key as string);
}

/** Answers a yes/no item by keyboard: focus its "yes" radio and press space. */
async function yesByKeyboard(page: Page, field: string) {
  await page.locator(`[data-field="${field}"] input[value="yes"]`).focus();
  await page.keyboard.press('Space');
}

/** Answers a yes/no item "no" by keyboard. */
async function noByKeyboard(page: Page, field: string) {
  await page.locator(`[data-field="${field}"] input[value="no"]`).focus();
  await page.keyboard.press('Space');
}

async function typeInto(page: Page, field: string, text: string) {
  await page.locator(`[data-field="${field}"] input, [data-field="${field}"] textarea`).first().focus();
  await page.keyboard.type(text);
}

/** Picks an option of a select by keyboard: focus it, Home, then ArrowDown to the option. */
async function chooseByKeyboard(page: Page, field: string, value: string) {
  const select = page.locator(`[data-field="${field}"] select`);
  await select.focus();
  const values = await select.locator('option').evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
  await page.keyboard.press('Home');
  for (let i = 0; i < values.indexOf(value); i += 1) await page.keyboard.press('ArrowDown');
  await expect.poll(() => select.inputValue()).toBe(value);
}

const PTSD_ITEMS = [14, 19, 21, 22, 28, 29, 34, 36, 39, 40];

async function fillAcceptedPtsd(page: Page) {
  await typeInto(page, 'age', '34');
  await chooseByKeyboard(page, 'sex', 'FEMALE');
  // The suicidality section asked in full: an acceptance needs it (issue 27).
  for (const n of [1, 2, 3, 4, 5, 6]) await noByKeyboard(page, `suicidality_c${n}`);
  await yesByKeyboard(page, 'trauma_criterion_a');
  await typeInto(page, 'worst_event_on', '');
  for (const n of PTSD_ITEMS) await yesByKeyboard(page, `ptsd_g${n}`);
  await chooseByKeyboard(page, 'status', 'accepted');
  await chooseByKeyboard(page, 'accepted_reason', 'ptsd');
}

let allocationConfigured = false;

/** The randomization task draws the arm from the trial's concealed allocation (issue 15): one is configured once. */
async function finishTrialStep(caseId: string, patient: Person) {
  await expect.poll(() => openTasks(caseId), { timeout: 10_000 }).toContain('randomizeTask');
  if (!allocationConfigured) {
    const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] } });
    expect(allocation.status).toBe(201);
    allocationConfigured = true;
  }
  const task = (await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'randomizeTask' and end_time is null`, [caseId])).rows[0];
  const randomized = await t.api('POST', `/api/workflow/rest/task/${task.id}/submit-form`, { token: coordinator.token, body: { variables: {} } });
  expect(randomized.status).toBe(204);
  expect((await pool().query('select stage from app_public.cases where id = $1', [caseId])).rows[0].stage).toBe('treatment');
  await sendReportMails({ pool: pool(), config: t.config, mailer: t.sanad.mailer, log: t.sanad.app.log as never });
  return t.smtp.mails.filter((m) => m.to.includes(patient.email.toLowerCase()));
}

describe('the interview report', () => {
  it('German, desktop: fill, save ("speichern"), finalize; the case moves on and the patient is mailed', { timeout: 180_000 }, async () => {
    const interviewer = await t.user({ flags: ['interviewer'], locale: 'de' });
    const c = await caseAtInterview(interviewer, 'de');
    const { page } = await openSignedInPage(browser, interviewer.token, { locale: 'de', width: 1366, height: 900 });
    await page.goto(`${t.url}/interviews/reports`);
    await page.getByRole('heading', { name: 'Bericht fällig' }).waitFor();
    await page.getByRole('link', { name: 'Bericht schreiben' }).first().click();
    await page.getByRole('heading', { level: 1, name: 'Interviewbericht' }).waitFor();
    for (const title of ['1. Patientendaten', '2. Suizidalität', '3. Traumaliste', '4. PTBS-Kriterien', '5. Aktuelle Major Depression: Einschätzung', '6. Aktuelle Major Depression', '8. Ergebnis']) {
      await page.getByRole('heading', { name: title }).waitFor();
    }
    await viewShot(page, 'report-de-top');
    await fillAcceptedPtsd(page);
    // The summary proposes PTSD; "apply" fills the primary problem.
    const summary = page.getByRole('complementary', { name: 'Entscheidungshilfe' });
    await expect.poll(() => summary.innerText()).toContain('PTBS');
    await summary.getByRole('button', { name: 'Übernehmen' }).first().focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('[data-field="primary_problem"] select').inputValue()).toBe('ptsd');
    await page.getByRole('button', { name: 'speichern' }).click();
    await expect.poll(() => page.getByRole('status').first().innerText()).toBe('Alle Eingaben gespeichert');
    await viewShot(page, 'report-de-result');
    await page.getByRole('button', { name: 'Unterschreiben und abschließen' }).focus();
    await page.keyboard.press('Enter');
    await confirmSigning(page, 'Vorgespräch, Rest im nächsten Termin');
    await signElectronically(page);
    await page.getByText(/Abgeschlossen .* Version 1/).waitFor();
    // Issue 30: the report shows its signature manifest (meaning, name, time).
    await page.locator('.signature-manifests').getByText(de.signing.meanings.eligibility_decision, { exact: false }).waitFor();
    await screenshot(page, 'report-de-final');

    const mails = await finishTrialStep(c.caseId, c.patient);
    expect(mails.some((m) => m.subject === 'Sanad: Danke für das Gespräch')).toBe(true);

    // The case detail shows the finalized report to its staff.
    const staff = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1366 });
    await staff.page.goto(`${t.url}/admin/cases/${c.caseId}`);
    await staff.page.getByRole('heading', { name: 'Interviewbericht' }).waitFor();
    await staff.page.getByText('aufgenommen: PTBS-Behandlung').first().waitFor();
  });

  it('Arabic, 360 px, by keyboard: a refused acceptance names the rule; then finalized', { timeout: 180_000 }, async () => {
    const interviewer = await t.user({ flags: ['interviewer'], locale: 'ar' });
    const c = await caseAtInterview(interviewer, 'ar');
    const { page } = await openSignedInPage(browser, interviewer.token, { locale: 'ar', width: 360, height: 780 });
    await page.goto(`${t.url}/interviews/reports?booking=${c.bookingId}`);
    await page.getByRole('heading', { level: 1, name: 'تقرير المقابلة' }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await viewShot(page, 'report-ar-top');
    await fillAcceptedPtsd(page);
    await chooseByKeyboard(page, 'primary_problem', 'ptsd');
    // Age 17 forbids acceptance: the rule is named.
    await page.locator('[data-field="age"] input').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('17');
    await page.getByRole('button', { name: 'التوقيع والإنهاء' }).focus();
    await page.keyboard.press('Enter');
    await confirmSigning(page, 'مقابلة أولى، البقية لاحقًا');
    await page.getByText('لا يمكن القبول: عمر المريض أقل من 18.').waitFor();
    await expectNoOverflow(page, 'report form at 360 px');
    await viewShot(page, 'report-ar-360-refused');
    await page.locator('[data-field="age"] input').focus();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('19');
    await page.getByRole('button', { name: 'التوقيع والإنهاء' }).focus();
    await page.keyboard.press('Enter');
    await confirmSigning(page, 'مقابلة أولى، البقية لاحقًا');
    await signElectronically(page, { keyboard: true });
    await page.getByText(/أُنهي في/).waitFor();
    await expectNoOverflow(page, 'finalized report at 360 px');
    await screenshot(page, 'report-ar-360-final');
    const mails = await finishTrialStep(c.caseId, c.patient);
    expect(mails.some((m) => m.subject === 'سند: شكرًا لك على المقابلة')).toBe(true);
  });
});
