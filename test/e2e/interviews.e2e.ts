/**
 * Interview scheduling in a real browser: an interviewer (German, Berlin) offers a weekly
 * series and a slot shortly ahead; a patient (Arabic, Baghdad, on a phone) books it; both get
 * the mail with its .ics through the real SMTP test server; the interviewer adds the video
 * link and the patient sees it as a prominent join button; cancelling an offer sends the
 * workflow message of spec §4; the patient cancels after the spec §8 confirmation; a
 * coordinator sees the interviewer's week in the calendar. Every screen is axe clean and fits
 * 360 px. The workflow message goes to the real engine's REST endpoint; the test only watches it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toLocalInput } from '../../src/domain/format';
import { processInterviewMails } from '../../src/server/interviews/mail-worker';
import { createLogger } from '../../src/server/logger';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { rawAttachment } from '../helpers/smtp';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let interviewer: Person;
let patient: Person;
let coordinator: Person;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  interviewer = await t.user({ flags: ['interviewer'], locale: 'de', timeZone: 'Europe/Berlin', alias: 'Frau Weber' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Baghdad', alias: 'سلمى' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'en' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width: number): Promise<WatchedPage> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}



/** A field by its label; required fields add a " *" that is hidden from screen readers. */
const field = (label: string) => new RegExp(`^${label}( \\*)?$`);

const mailContext = () => ({ pool: t.database.db.pool, config: t.config, mailer: t.sanad.mailer, log: createLogger(t.config) });

describe('interview scheduling', () => {
  it('offer, book, mail, link, cancel', { timeout: 240_000 }, async () => {
    // The interviewer offers a weekly series through the form, on a phone.
    const iv = await pageAs(interviewer, 'de', 360);
    await open(iv.page, '/interviews/manage');
    await iv.page.getByRole('heading', { level: 1, name: de.interviews.manage.title }).waitFor();
    await iv.page.getByText('Europe/Berlin').first().waitFor();
    const firstDay = toLocalInput(new Date(Date.now() + 20 * 86_400_000), 'Europe/Berlin').slice(0, 10);
    await iv.page.getByLabel(field(de.interviews.manage.date)).fill(firstDay);
    await iv.page.getByLabel(field(de.interviews.manage.start)).fill('10:00');
    await iv.page.getByLabel(field(de.interviews.manage.end)).fill('11:00');
    await iv.page.getByLabel(de.interviews.manage.repeatWeekly).check();
    await iv.page.getByLabel(field(de.interviews.manage.weeks)).fill('3');
    await iv.page.getByRole('button', { name: de.interviews.manage.createSeries }).click();
    await iv.page.getByText(de.interviews.manage.seriesCreated.replace('{{weeks}}', '3')).waitFor();
    const upcoming = iv.page.getByRole('region', { name: de.interviews.manage.upcoming });
    await expect.poll(() => upcoming.locator('.offer').count()).toBe(3);
    await expect.poll(() => upcoming.getByText(/10:00–11:00 \(Europe\/Berlin\)/).count()).toBe(3);
    // An overlapping slot is refused with a clear message, nothing added.
    await iv.page.getByLabel(de.interviews.manage.repeatWeekly).uncheck();
    await iv.page.getByLabel(field(de.interviews.manage.date)).fill(firstDay);
    await iv.page.getByLabel(field(de.interviews.manage.start)).fill('10:30');
    await iv.page.getByLabel(field(de.interviews.manage.end)).fill('11:30');
    await iv.page.getByRole('button', { name: de.interviews.manage.create, exact: true }).click();
    await iv.page.getByText(de.errorCodes.slot_overlaps).waitFor();
    expect(await upcoming.locator('.offer').count()).toBe(3);
    await expectNoOverflow(iv.page, '/interviews/manage at 360 px');
    await expectAccessible(iv.page, '/interviews/manage (de)');
    await screenshot(iv.page, 'interviews-manage-de-360');

    // A slot starting in ten minutes (through the API: the form's wall-clock day may roll over).
    const soon = Math.ceil((Date.now() + 10 * 60_000) / 60_000) * 60_000;
    const created = await t.graphql(
      `mutation($s: Datetime!, $e: Datetime!) { createOffer(input: { startsAt: $s, endsAt: $e }) { interviewOffer { id } } }`,
      { s: new Date(soon).toISOString(), e: new Date(soon + 45 * 60_000).toISOString() },
      interviewer.token,
    );
    const soonOfferId = created.data.createOffer.interviewOffer.id as string;

    // The patient books the earliest free time, in Arabic on a phone, in Baghdad time.
    const pt = await pageAs(patient, 'ar', 360);
    await open(pt.page, '/interviews/booking');
    await pt.page.getByRole('heading', { level: 1, name: ar.interviews.booking.title }).waitFor();
    await pt.page.getByText('Asia/Baghdad').first().waitFor();
    const slotButtons = pt.page.locator('.slot-button');
    await expect.poll(() => slotButtons.count()).toBe(4);
    await expectNoOverflow(pt.page, '/interviews/booking at 360 px');
    await expectAccessible(pt.page, '/interviews/booking (ar)');
    await screenshot(pt.page, 'interviews-booking-ar-360');
    await slotButtons.first().click();
    // Booking asks first (issue 18).
    await pt.page.getByRole('dialog').getByRole('button', { name: ar.interviews.booking.bookConfirm }).click();
    await pt.page.getByText(ar.interviews.booking.booked).waitFor();
    await pt.page.getByRole('heading', { name: ar.interviews.booking.yourInterview }).waitFor();
    await pt.page.getByText(ar.interviews.booking.linkLater).waitFor();

    // Both receive the mail with the invitation.
    await processInterviewMails(mailContext());
    const toPatient = await t.smtp.waitFor(patient.email);
    const toInterviewer = await t.smtp.waitFor(interviewer.email);
    expect(toPatient.language).toBe('ar');
    expect(toInterviewer.subject).toBe('Sanad: Interviewtermin gebucht');
    expect(rawAttachment(toPatient, 'invite.ics')).toMatch(/METHOD:REQUEST\r\n/);
    expect(rawAttachment(toInterviewer, 'invite.ics')).toMatch(/METHOD:REQUEST\r\n/);
    expect(toPatient.text).toContain('Asia/Baghdad');

    // The interviewer sees the booking (the watch refreshes; a reload is quicker) and adds the link.
    await open(iv.page, '/interviews/manage');
    const booked = iv.page.locator('.offer', { hasText: de.interviews.status.bookedBy.replace('{{name}}', patient.username) });
    await booked.waitFor();
    await booked.getByRole('button', { name: new RegExp(`^${de.interviews.manage.setLink}`) }).click();
    // The form opens beside the slot's buttons, inside the slot, with the focus on it (issue 26).
    const editHeading = booked.getByRole('heading', { name: de.interviews.manage.editLinkTitle });
    await editHeading.waitFor();
    expect(await editHeading.evaluate((el) => el === document.activeElement)).toBe(true);
    await iv.page.getByLabel(field(de.interviews.manage.link)).fill('https://meet.example.org/sanad-room');
    await expectAccessible(iv.page, '/interviews/manage editing (de)');
    await iv.page.getByRole('button', { name: de.common.save }).click();
    await iv.page.getByText(de.interviews.manage.linkSaved).waitFor();
    await booked.getByRole('link', { name: de.interviews.joinNow }).waitFor();

    // The patient sees it, prominently, since the interview starts within 20 minutes.
    await open(pt.page, '/interviews/booking');
    const join = pt.page.getByRole('link', { name: ar.interviews.joinNow });
    await join.waitFor();
    expect(await join.getAttribute('href')).toBe('https://meet.example.org/sanad-room');
    await processInterviewMails(mailContext());
    await t.smtp.waitFor(patient.email, /رابط جديد/);

    // Cancelling another slot asks first, then sends the workflow message of spec §4.
    const workflowBodies: unknown[] = [];
    const workflowStatuses: number[] = [];
    iv.page.on('response', (response) => {
      if (!response.url().endsWith('/api/workflow/rest/message')) return;
      workflowBodies.push(response.request().postDataJSON());
      workflowStatuses.push(response.status());
    });
    const free = iv.page.locator('.offer', { hasText: de.interviews.status.free }).first();
    await free.getByRole('button', { name: new RegExp(`^${de.interviews.manage.cancel}`) }).click();
    await iv.page.getByRole('dialog').getByRole('button', { name: de.interviews.manage.cancel }).click();
    await iv.page.getByText(de.interviews.manage.canceled, { exact: true }).waitFor();
    await expect.poll(() => workflowBodies.length).toBe(1);
    expect(workflowBodies[0]).toEqual({
      messageName: 'offerCanceled',
      correlationKeys: { offerId: { value: expect.any(String), type: 'String' } },
      all: true,
      resultEnabled: true,
    });
    expect((workflowBodies[0] as { correlationKeys: { offerId: { value: string } } }).correlationKeys.offerId.value).not.toBe(soonOfferId);
    // No process waits for a free slot's cancellation: with `all` that is no error (Camunda answers 204 then).
    expect(workflowStatuses[0]).toBeLessThan(300);

    // The patient cancels after the confirmation; the free times come back.
    await pt.page.getByRole('button', { name: ar.interviews.booking.cancel }).click();
    const dialog = pt.page.getByRole('dialog');
    await dialog.getByText(ar.interviews.booking.cancelMessage).waitFor();
    await expectAccessible(pt.page, 'cancel confirmation (ar)');
    await dialog.getByRole('button', { name: ar.interviews.booking.cancelConfirm }).click();
    await pt.page.getByText(ar.interviews.booking.canceled).waitFor();
    await expect.poll(() => pt.page.locator('.slot-button').count()).toBe(3);
    await processInterviewMails(mailContext());
    const canceledMail = await t.smtp.waitFor(interviewer.email, /abgesagt/);
    expect(rawAttachment(canceledMail, 'invite.ics')).toMatch(/METHOD:CANCEL\r\n/);

    // A coordinator sees the interviewer's slots in the calendar of this week.
    const co = await pageAs(coordinator, 'en', 1280);
    await open(co.page, '/admin/interview-calendar');
    await co.page.getByRole('heading', { level: 1, name: en.interviews.calendar.title }).waitFor();
    await co.page.getByRole('region', { name: interviewer.username }).waitFor();
    await expectAccessible(co.page, '/admin/interview-calendar (en)');
    await screenshot(co.page, 'interview-calendar-en-1280');

    const errors = opened.flatMap((o) => o.consoleErrors);
    expect(errors, JSON.stringify(errors)).toEqual([]);
  });
});
