/**
 * Issue 25's "done when", in a real browser: a new patient on an Arabic phone (360×740), and one at a
 * German desktop, go from registration to the last follow-up through the screens alone. After signing in, every step is
 * reached from the home page's "your next step" button (no typed address): the screening
 * questionnaires, the interview booking, the questionnaires before treatment, after it and at
 * both follow-ups. The care team's steps use the real commands: the interviewer signs the report
 * through the one door, the coordinator draws the arm through the trial's step, the therapist
 * closes the treatment. The follow-up timers fire on the workflow's clock, moved forward.
 * Along the way: the confirmation mail greets the chosen name, the home greets it too, the
 * automatic messages are addressed to "you" with a real headline, and the case code reads left to right.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver, type Person } from '../helpers/trial';

const DAY = 86_400_000;
/** Short batteries keep the run short; every time of measurement still has its own. */
const SHORT = { MEASUREMENTS_SCREENING: 'demographics,traumalisteneu', MEASUREMENTS_PRE: 'phq9', MEASUREMENTS_POST: 'phq9', MEASUREMENTS_FU1: 'phq9', MEASUREMENTS_FU2: 'phq9' };

/** The issue asks for the whole path on an Arabic phone and at desktop width in German. */
const VARIANTS = [
  { name: 'a new patient on an Arabic phone', locale: 'ar' as const, catalog: ar, width: 360, height: 740, shot: 'ar-360' },
  { name: 'a new patient at a German desktop', locale: 'de' as const, catalog: de, width: 1280, height: 900, shot: 'de-1280' },
];

describe.each(VARIANTS)('$name, from registration to the last follow-up', (variant) => {
  const L = variant.catalog;
  let t: TestApp;
  let browser: Browser;
  let offset = 0;
  const clock = { now: () => new Date(Date.now() + offset) };
  const trial = trialDriver(() => t);
  let interviewer: Person, coordinator: Person, therapist: Person;
  let watched: WatchedPage;

  beforeAll(async () => {
    t = await startTestApp(SHORT, {}, { workflowClock: clock });
    browser = await launchBrowser();
    interviewer = await t.user({ flags: ['interviewer'], alias: 'سلمى', username: 'demo-interviewer' });
    coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
    therapist = await t.user({ flags: ['therapist'], alias: 'نور حداد', username: 'demo-therapist' });
    const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } });
    expect(allocation.status).toBe(201);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const tick = () => t.sanad.workflow.tick();

  async function stageOf(caseId: string): Promise<string> {
    return trial.stage(caseId);
  }

  /**
   * Home through the brand link in the header, as a person gets there from any page; a patient
   * already on the home page comes back to it later (the care team acted in between): a reload.
   */
  async function goHome(page: Page): Promise<void> {
    if (page.url() === `${t.url}/`) await page.reload();
    else await page.locator('header a.brand').click();
    await page.waitForURL(`${t.url}/`);
  }

  /** Home, and its "your next step" button: the only way the patient goes anywhere. */
  async function followNextStep(page: Page, shot: string): Promise<void> {
    await goHome(page);
    const next = page.locator('.patient-path__next a.button');
    await next.waitFor({ timeout: 20_000 });
    await expectNoOverflow(page, `home (${shot})`);
    await screenshot(page, `journey-home-${shot}-${variant.shot}`);
    await next.click();
  }

  /** The item's first choice, or a short text or number; an item already answered stays as it is. */
  async function answerFirstChoice(item: Locator): Promise<void> {
    const radios = item.locator('input[type=radio]');
    const boxes = item.locator('input[type=checkbox]');
    if ((await radios.count()) > 0) {
      if ((await item.locator('input[type=radio]:checked').count()) === 0) await radios.first().check();
    } else if ((await boxes.count()) > 0) {
      if ((await item.locator('input[type=checkbox]:checked').count()) === 0) await boxes.first().check();
    } else {
      const field = item.locator('input, textarea').first();
      if ((await field.inputValue()) === '') await field.fill((await field.getAttribute('inputmode')) === 'numeric' ? '30' : 'نص قصير');
    }
  }

  /** Answers every questionnaire of the time opened, item by item, with its first choice (no risk answers). */
  async function fillBattery(page: Page): Promise<void> {
    await page.getByRole('button', { name: L.measurements.start }).click();
    for (let guard = 0; guard < 200; guard++) {
      // An item, the review, or the overview saying all is done (not the overview before the start).
      const done = page.getByText(L.measurements.allDone);
      await page.locator('[data-item], #review-heading').or(done).first().waitFor();
      const items = page.locator('[data-item]');
      if ((await items.count()) > 0) {
        // One item on a phone, the whole questionnaire on a wide screen; an answer may open more items.
        for (let i = 0; i < (await items.count()); i++) await answerFirstChoice(items.nth(i));
        const first = (await items.first().getAttribute('data-item'))!;
        const next = page.getByRole('button', { name: L.measurements.next, exact: true });
        await ((await next.count()) > 0 ? next : page.getByRole('button', { name: L.measurements.toReview })).click();
        await page.waitForFunction((gone) => !document.querySelector(`[data-item="${gone}"]`), first);
      } else if ((await page.locator('#review-heading').count()) > 0) {
        await page.getByRole('button', { name: L.measurements.submit }).click();
        await page.waitForFunction(() => !document.querySelector('#review-heading'));
      } else {
        return;
      }
    }
    throw new Error('the battery did not end');
  }

  it('reaches every step from the home page and always sees what comes next', { timeout: 600_000 }, async () => {
    watched = await openPage(browser, { locale: variant.locale, width: variant.width, height: variant.height });
    const { page } = watched;
    const username = `journey_${Date.now().toString(36)}`;
    const email = `${username}@example.org`;
    const password = 'a calm long password';

    // Registration, with a chosen name.
    await page.goto(`${t.url}/register`);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.fill('input[name=passwordRepeat]', password);
    await page.fill('input[name=alias]', 'ريم');
    await page.check('input[name=agreedToTerms]');
    await page.check('input[name=agreedToPrivacyPolicy]');
    await page.check('input[name=confirmedAdult]');
    await page.click('button[type=submit]');
    await page.getByText(L.register.sent.split('{{')[0]!.trim()).waitFor();

    // The confirmation mail greets the chosen name, not the username (issue 25).
    const mail = await t.smtp.waitFor(email);
    expect(mail.text).toContain('ريم');
    expect(mail.text).not.toContain(username);
    const link = /\/confirm-registration\?token=[A-Za-z0-9_-]+/.exec(mail.text)![0];
    await page.goto(t.url + link);
    await page.getByText(L.confirm.registrationDone).waitFor();
    await tick(); // the trial that registration queued starts (the scheduler runs it within seconds)
    await page.goto(`${t.url}/login`);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.url}/`);
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'ريم' }).waitFor();
    const me = await t.api('GET', '/api/auth/users/me', { token: (await page.evaluate(() => sessionStorage.getItem('authToken')))! });
    const caseId = (await t.database.db.pool.query<{ case_id: string }>(`select case_id from app_public.case_members where user_id = $1`, [me.body.id])).rows[0]!.case_id;

    // Screening.
    await followNextStep(page, 'screening');
    await fillBattery(page);
    await tick();
    expect(await stageOf(caseId)).not.toBe('excluded');

    // Booking: an interviewer's slot two days ahead.
    const starts = Date.now() + 2 * DAY;
    const offer = await t.graphql<{ createOffer: { interviewOffer: { id: string } } }>(
      `mutation($s: Datetime!, $e: Datetime!) { createOffer(input: { startsAt: $s, endsAt: $e }) { interviewOffer { id } } }`,
      { s: new Date(starts).toISOString(), e: new Date(starts + 45 * 60_000).toISOString() },
      interviewer.token,
    );
    expect(offer.errors).toBeUndefined();
    const offerId = offer.data!.createOffer.interviewOffer.id;
    await followNextStep(page, 'booking');
    await page.getByRole('heading', { level: 1, name: L.interviews.booking.title }).waitFor();
    await page.locator('.slot-button').first().click();
    await page.getByRole('dialog').getByRole('button', { name: L.interviews.booking.bookConfirm }).click();
    await page.getByText(L.interviews.booking.booked).waitFor();
    await tick();

    // Waiting for the interview: the home says when, and names the interviewer by chosen name.
    await goHome(page);
    await page.getByText(L.patientPath.interviewAt.split('{{')[0]!.trim()).waitFor();
    expect(await page.locator('main').innerText()).not.toContain('demo-interviewer');
    await screenshot(page, `journey-home-awaiting-interview-${variant.shot}`);

    // The automatic messages: a headline (never "(no subject)"), to "you", the case code left to right.
    await page.locator('main').getByRole('link', { name: L.home.tiles.conversation }).first().click();
    await page.locator('.message').first().waitFor();
    const conversation = await page.locator('main').innerText();
    expect(conversation).not.toContain(L.messages.noSubject);
    await page.locator('.message__toggle').first().click();
    await page.getByText(L.messages.toLine.replace('{{groups}}', L.patientPath.toYou)).waitFor();
    expect(await page.locator('main').innerText()).not.toContain(L.messages.groups.patients);
    expect(await page.evaluate(() => document.querySelector('main')!.textContent!.includes('\u2066'))).toBe(true);
    await expectNoOverflow(page, '/conversation');
    await screenshot(page, `journey-conversation-${variant.shot}`);

    // The interview: the interviewer signs the report through the one door.
    await t.database.db.pool.query(`update app_public.interview_offers set time_slot = tstzrange(now() - interval '5 minutes', now() + interval '40 minutes') where id = $1`, [offerId]);
    const bookingId = (await t.database.db.pool.query<{ id: string }>(`select id from app_public.interview_bookings where offer_id = $1 and not canceled`, [offerId])).rows[0]!.id;
    const result = {
      ...Object.fromEntries([1, 2, 3, 4, 5, 10, 11].map((n) => [`mde_a${n}`, true])),
      ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, false])),
      age: 30, primary_problem: 'mde_current', status: 'accepted', accepted_reason: 'depression_mde',
    };
    const saved = await t.api('POST', '/api/interview_reports', { token: interviewer.token, body: { booking_id: bookingId, ...result }, headers: { prefer: 'resolution=merge-duplicates' } });
    expect(saved.status, JSON.stringify(saved.body)).toBeLessThan(300);
    const reportId = (await t.database.db.pool.query<{ id: string }>(`select id from app_public.interview_reports where booking_id = $1`, [bookingId])).rows[0]!.id;
    const signed = await t.api('POST', `/api/interview_reports/${reportId}/finalize`, { token: interviewer.token, body: { emptySectionsReason: 'Erstgespräch' } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    await tick();

    // Accepted, waiting for the allocation: the home says so, with nothing to do.
    await goHome(page);
    await page.getByText(L.patientPath.phase.awaitingAllocation.title).waitFor();
    await screenshot(page, `journey-home-awaiting-allocation-${variant.shot}`);
    await trial.complete(caseId, 'randomizeTask', coordinator.token);
    await addMember(t.database.db.pool, caseId, therapist.username, ['therapist']);

    // Before treatment.
    await followNextStep(page, 'pre');
    await fillBattery(page);
    await tick();

    // In treatment: the home names the therapist by chosen name; the menu has worksheets and letters.
    await goHome(page);
    await page.getByText(L.patientPath.phase.treatment.title).first().waitFor();
    await page.getByText('نور حداد').first().waitFor();
    expect(await page.locator('main').innerText()).not.toContain('demo-therapist');
    await expectNoOverflow(page, 'home in treatment');
    await expectAccessible(page, 'home in treatment (${variant.shot})');
    await screenshot(page, `journey-home-treatment-${variant.shot}`);

    // The therapist closes the treatment: the questionnaires after it.
    await trial.complete(caseId, 'therapistTreatmentTask', therapist.token);
    await followNextStep(page, 'post');
    await fillBattery(page);
    await tick();
    expect(await stageOf(caseId)).toBe('post');

    // Nothing due until the first follow-up; the home says it comes later.
    await goHome(page);
    await page.getByText(L.patientPath.phase.followUp.waiting).waitFor();
    await screenshot(page, `journey-home-after-post-${variant.shot}`);

    // Three months later: follow-up 1, then follow-up 2.
    for (const time of ['fu1', 'fu2']) {
      offset += 95 * DAY;
      await tick();
      await expect.poll(() => stageOf(caseId)).toBe(time);
      await followNextStep(page, time);
      await fillBattery(page);
      await tick();
    }
    expect(await stageOf(caseId)).toBe('finished');

    // Finished: thanked, nothing left to do.
    await goHome(page);
    await page.getByText(L.patientPath.phase.finished.title).first().waitFor();
    await expectNoOverflow(page, 'home finished');
    await screenshot(page, `journey-home-finished-${variant.shot}`);
    expect(watched.consoleErrors).toEqual([]);
  });
});
