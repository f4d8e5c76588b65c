/**
 * The care team's path (issue 26) in a real browser, in German at desktop width and in Arabic
 * on a 360 px phone: "open messages" on one patient's case lands on that patient even when
 * another case has newer unread messages; counselors switch cases and coordinators read the
 * messages of cases they are not members of; irreversible acts ask first, naming what follows
 * (Escape cancels and changes nothing, focus returns); a report is prepared before the
 * interview, kept over a reload, refused for signing before the start, and signed after it with
 * its empty sections listed and a reason kept; signing marks the interview held.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, signElectronically, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let therapist: Person;
let counselor: Person;
let coordinator: Person;
let patient2: Person;
let patient3: Person;
const opened: WatchedPage[] = [];

const CREATE = `mutation($input: CreateCaseMessageInput!) { createCaseMessage(input: $input) { caseMessage { id } } }`;
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  therapist = await t.user({ flags: ['therapist'], locale: 'de', alias: 'Dr. Amal', timeZone: 'Europe/Berlin' });
  counselor = await t.user({ flags: ['counselor'], locale: 'de', alias: 'Beraterin Lina' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', alias: 'Koordination Nour' });
  patient2 = await t.user({ flags: ['patient'], locale: 'ar', alias: 'Patientin Zwei' });
  patient3 = await t.user({ flags: ['patient'], locale: 'ar', alias: 'Patient Drei' });
  for (const p of [patient2, patient3]) {
    await addMember(pool(), p.caseId!, therapist.username, ['therapist']);
    await addMember(pool(), p.caseId!, counselor.username, ['counselor']);
  }
  // Patient 3 writes first; patient 2 writes later, so patient 2's case has the newest unread message.
  for (const [p, subject] of [[patient3, 'Frage von Patient Drei'], [patient2, 'Frage von Patientin Zwei']] as const) {
    const sent = await t.graphql(
      CREATE,
      { input: { caseMessage: { caseId: p.caseId, subject, body: 'Bitte um Rückruf', toTherapists: true, toCounselors: true, sentAt: new Date().toISOString() } } },
      p.token,
    );
    expect(sent.errors).toBeUndefined();
  }
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de', width: number): Promise<WatchedPage> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}

/** The conversation shows patient 3's case (chosen in the case switcher) and message, nothing of patient 2's. */
async function expectOnPatient3(page: Page, switcher = true): Promise<void> {
  await page.locator('.message', { hasText: 'Frage von Patient Drei' }).waitFor();
  if (switcher) await expect.poll(() => page.locator('main select').first().inputValue()).toBe(patient3.caseId);
  expect(await page.locator('.message', { hasText: 'Frage von Patientin Zwei' }).count()).toBe(0);
}

describe('messages from a case land on that case', () => {
  it('therapist in German at desktop width: open messages on patient 3 shows patient 3, after a reload too', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(therapist, 'de', 1280);
    // The therapist was last on patient 2's conversation (the one with the newest unread message).
    await open(page, `/conversation?case=${patient2.caseId}`);
    await page.locator('.message', { hasText: 'Frage von Patientin Zwei' }).waitFor();
    await open(page, `/admin/cases/${patient3.caseId}`);
    await page.getByRole('button', { name: de.cases.openConversation }).click();
    await expectOnPatient3(page);
    expect(new URL(page.url()).searchParams.get('case')).toBe(patient3.caseId);
    await page.reload();
    await expectOnPatient3(page);
    await expectAccessible(page, '/conversation (de)');
    await screenshot(page, 'careteam-conversation-lands-de-1280');
  });

  it('therapist in Arabic on a phone: from the home list the chosen case opens, never the newest unread one', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(therapist, 'ar', 360);
    await open(page, '/');
    await page.locator('.my-cases__item', { hasText: 'Patient Drei' }).getByRole('button').click();
    await expectOnPatient3(page);
    await expectNoOverflow(page, '/conversation at 360 px');
    await screenshot(page, 'careteam-conversation-lands-ar-360');
  });

  it('a counselor switches between their cases on /conversation', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(counselor, 'de', 1280);
    await open(page, `/conversation?case=${patient3.caseId}`);
    await expectOnPatient3(page);
    const picker = page.getByLabel(de.messages.case);
    await picker.selectOption(patient2.caseId!);
    await page.locator('.message', { hasText: 'Frage von Patientin Zwei' }).waitFor();
    expect(new URL(page.url()).searchParams.get('case')).toBe(patient2.caseId);
    await screenshot(page, 'careteam-conversation-counselor-de-1280');
  });

  it('a coordinator who is not a member reads the messages of the case', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(coordinator, 'de', 1280);
    await open(page, `/admin/cases/${patient3.caseId}`);
    await page.getByRole('button', { name: de.cases.openConversation }).click();
    await expectOnPatient3(page, false);
    expect(await page.getByText(de.messages.none).count()).toBe(0);
  });
});

describe('irreversible acts ask first', () => {
  async function flagOf(caseId: string): Promise<boolean> {
    const { rows } = await pool().query(`select u.excluded as on from app_public.case_members m join app_public.users u on u.id = m.user_id where m.case_id = $1 and m.acts_as_patient`, [caseId]);
    return rows[0].on;
  }

  it('excluding: the dialog names the consequence, Escape cancels and changes nothing, focus returns; confirming excludes', { timeout: 120_000 }, async () => {
    const patient = await t.user({ flags: ['patient'], locale: 'de' });
    const { page } = await pageAs(coordinator, 'de', 1280);
    await open(page, `/admin/cases/${patient.caseId}`);
    // Not accepted into treatment: no randomize button, and the screen says why.
    await page.getByText(de.careTeam.randomize.allocation_missing).waitFor();
    expect(await page.getByRole('button', { name: de.trial.case.randomize }).count()).toBe(0);
    await page.getByLabel(de.trial.exclusion.reason).fill('Kein Internetzugang');
    const setButton = page.getByRole('button', { name: de.trial.exclusion.set });
    await setButton.click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.careTeam.confirm.excludeMessage).waitFor();
    // Focus moved into the dialog, onto the safe answer.
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(de.common.cancel);
    await screenshot(page, 'careteam-confirm-exclude-de-1280');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(de.trial.exclusion.set);
    expect(await flagOf(patient.caseId!)).toBe(false);
    await setButton.click();
    await dialog.getByRole('button', { name: de.careTeam.confirm.excludeConfirm }).click();
    // Issue 30: an exclusion is signed electronically in the signing dialog.
    const signing = page.locator('dialog.signing');
    await signing.getByText(de.signing.meanings.exclusion_decision).waitFor();
    expect(await flagOf(patient.caseId!)).toBe(false);
    await expectAccessible(page, 'signing dialog');
    await screenshot(page, 'signing-dialog-de-1280');
    await signElectronically(page);
    await expect.poll(() => flagOf(patient.caseId!)).toBe(true);
    await page.locator('.signature-manifests').getByText(de.signing.meanings.exclusion_decision, { exact: false }).waitFor();
  });

  it('dropping out in Arabic on a phone: the dialog fits and cancelling changes nothing', { timeout: 120_000 }, async () => {
    const patient = await t.user({ flags: ['patient'], locale: 'ar' });
    const { page } = await pageAs(coordinator, 'ar', 360);
    await open(page, `/admin/cases/${patient.caseId}`);
    await page.getByLabel(ar.trial.exclusion.flag).selectOption('is_dropout');
    await page.getByLabel(ar.trial.exclusion.reason).fill('لم يعد يرد');
    await page.getByRole('button', { name: ar.trial.exclusion.set }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(ar.careTeam.confirm.dropoutMessage).waitFor();
    await expectNoOverflow(page, 'dropout dialog at 360 px');
    await screenshot(page, 'careteam-confirm-dropout-ar-360');
    await dialog.getByRole('button', { name: ar.common.cancel }).click();
    const { rows } = await pool().query('select is_dropout from app_public.cases where id = $1', [patient.caseId]);
    expect(rows[0].is_dropout).toBe(false);
    // Issue 30: an exclusion (a dropout needs a randomized patient) is signed in the signing
    // dialog, which fits the phone too.
    await page.getByLabel(ar.trial.exclusion.flag).selectOption('exclude_from_analysis');
    await page.getByRole('button', { name: ar.trial.exclusion.set }).click();
    await dialog.getByRole('button', { name: ar.careTeam.confirm.analysisConfirm }).click();
    await page.locator('dialog.signing').getByText(ar.signing.meanings.exclusion_decision).waitFor();
    await expectNoOverflow(page, 'signing dialog at 360 px');
    await expectAccessible(page, 'signing dialog (ar)');
    await screenshot(page, 'signing-dialog-ar-360');
    await signElectronically(page);
    await expect.poll(async () => (await pool().query('select exclude_from_analysis from app_public.cases where id = $1', [patient.caseId])).rows[0].exclude_from_analysis).toBe(true);
  });
});

describe('a report prepared before the interview and signed after it', () => {
  it('keeps what was typed over a reload, refuses signing before the start, signs after it with a reason for empty sections', { timeout: 180_000 }, async () => {
    const interviewer = await t.user({ flags: ['interviewer'], locale: 'de', timeZone: 'Europe/Berlin' });
    const patient = await t.user({ flags: ['patient'], locale: 'de', gender: 'FEMALE' });
    await addMember(pool(), patient.caseId!, interviewer.username, ['interviewer']);
    const offer = await pool().query<{ id: string }>(
      `insert into app_public.interview_offers (interviewer_id, time_slot) values ($1, tstzrange(now() + interval '2 hours', now() + interval '3 hours')) returning id`,
      [interviewer.id],
    );
    const booking = await pool().query<{ id: string }>(
      `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
      [offer.rows[0]!.id, patient.caseId, patient.id, interviewer.id],
    );
    const bookingId = booking.rows[0]!.id;
    // The trial waits for this interview's result (issue 27: a report is signed only then).
    const trial = trialDriver(() => t);
    await trial.startTrial(patient.caseId!);
    await trial.advance(patient.caseId!, 'interview', { offerId: offer.rows[0]!.id, bookingId });
    // What the patient gave at screening (the report offers it as pre-filled patient data).
    await pool().query(`insert into app_public.demographics (case_id, time_of_measurement, age, gender) values ($1, 'screening', 34, 'FEMALE')`, [patient.caseId]);
    const { page } = await pageAs(interviewer, 'de', 1280);
    await open(page, '/interviews/reports');
    await page.getByRole('link', { name: de.careTeam.report.prepare }).click();
    await page.getByText(de.careTeam.report.preparing).waitFor();
    const age = page.locator('[data-field="age"] input');
    // Gender comes pre-filled from the screening answers; the age is typed here.
    await expect.poll(() => page.locator('[data-field="sex"] select').inputValue(), { timeout: 20_000 }).toBe('FEMALE');
    await age.fill('34');
    await page.getByText(de.careTeam.report.screeningScores).waitFor();
    await page.locator('[data-field="residence"] input').fill('Berlin');
    await page.locator('.rp-state', { hasText: de.report.saveState.saved }).waitFor();
    await expect
      .poll(async () => (await pool().query('select age, residence from app_public.interview_reports where booking_id = $1', [bookingId])).rows[0])
      .toEqual({ age: 34, residence: 'Berlin' });
    await page.reload();
    await page.locator('.rp-form').waitFor();
    await screenshot(page, 'careteam-report-reloaded-de-1280');
    const shown = await page.locator('[data-field="age"] input').inputValue();
    expect(shown, (await page.locator('main').textContent())?.slice(0, 600)).toBe('34');
    await expect.poll(() => page.locator('[data-field="residence"] input').inputValue()).toBe('Berlin');
    await screenshot(page, 'careteam-report-prepared-de-1280');

    // Before the start, signing is refused beside the button, in German; nothing is lost.
    await page.getByRole('button', { name: de.report.finalize }).click();
    await page.locator('.rp-actions').getByText(de.careTeam.report.signAfterStart).waitFor();

    // The interview begins: signing lists the empty sections and needs a reason.
    await pool().query(`update app_public.interview_offers set time_slot = tstzrange(now() - interval '5 minutes', now() + interval '55 minutes') where id = $1`, [offer.rows[0]!.id]);
    // The interviewer records a depression result (as the form would, through the same save).
    const result = { ...Object.fromEntries([1, 2, 3, 4, 5, 10, 11].map((n) => [`mde_a${n}`, true])), primary_problem: 'mde_current', status: 'accepted', accepted_reason: 'depression_mde',
      // an acceptance needs the suicidality assessment (issue 27's rules): C1 to C6 asked
      ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, false])) };
    const saved = await t.api('POST', '/api/interview_reports', { token: interviewer.token, body: { booking_id: bookingId, ...result }, headers: { prefer: 'resolution=merge-duplicates' } });
    expect(saved.status, JSON.stringify(saved.body)).toBeLessThan(300);
    await page.reload();
    await page.locator('[data-field="age"] input').waitFor();
    await page.getByRole('button', { name: de.report.finalize }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.careTeam.sign.emptyReason).waitFor();
    await dialog.getByText(de.report.sections.trauma, { exact: true }).waitFor();
    await dialog.getByRole('button', { name: de.report.finalize }).click();
    await dialog.getByText(de.careTeam.confirm.reasonRequired).waitFor();
    await screenshot(page, 'careteam-report-sign-dialog-de-1280');
    await dialog.getByLabel(de.careTeam.sign.emptyReason).fill('Vorgespräch, Rest folgt');
    await dialog.getByRole('button', { name: de.report.finalize }).click();
    await signElectronically(page);
    await expect.poll(async () => (await pool().query('select state from app_public.interview_reports where booking_id = $1', [bookingId])).rows[0].state).toBe('final');
    const { rows } = await pool().query('select empty_sections_reason, age from app_public.interview_reports where booking_id = $1', [bookingId]);
    expect(rows[0]).toEqual({ empty_sections_reason: 'Vorgespräch, Rest folgt', age: 34 });
    // Signing marked the interview held: its invoice item exists.
    const held = await pool().query('select count(*)::int as n from app_public.invoice_items where source_id = $1 and has_taken_place', [bookingId]);
    expect(held.rows[0].n).toBe(1);
  });
});

describe('console', () => {
  it('logged no errors', () => {
    const errors = opened.flatMap((o) => o.consoleErrors).filter((e) => !/Failed to load resource/.test(e));
    expect(errors, JSON.stringify(errors)).toEqual([]);
  });
});
