/**
 * Issue 25's gates in a real browser: a patient whom the team excluded (consent withdrawn) while
 * the booking was due is told the real reason in kind words on the home page ("the team ended
 * your participation as agreed", never "your answers show…"), and the booking screen, opened
 * from an old link, refuses the slot with the same reason: no booking, no interviewer invited.
 * Arabic at 360 px and German at desktop width. The API refusal for every role is in
 * test/integration/stage-gates.int.test.ts.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
let browser: Browser;
const trial = trialDriver(() => t);
let coordinator: Person, interviewer: Person;
const opened: WatchedPage[] = [];
const catalogs = { ar, de } as const;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
  interviewer = await t.user({ flags: ['interviewer'], alias: 'Salma' });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe.each([
  ['ar', 360],
  ['de', 1280],
] as const)('an excluded patient in %s at %i px', (locale, width) => {
  it('reads the real reason at home and is refused the slot on the booking screen, with nothing written', { timeout: 120_000 }, async () => {
    const strings = catalogs[locale];
    const { patient, caseId } = await trial.newTrialCase([], { locale });
    await trial.advance(caseId, 'booking');
    const excluded = await t.api('POST', `/api/trial/cases/${caseId}/exclusion`, { token: coordinator.token, body: { flag: 'excluded', value: true, reason: 'Consent withdrawn by the patient.' } });
    expect(excluded.status).toBe(204);
    const starts = Date.now() + (locale === 'ar' ? 3 : 4) * 86_400_000; // one interviewer, slots apart
    const offer = await t.graphql<{ createOffer: { interviewOffer: { id: string } } }>(
      `mutation($s: Datetime!, $e: Datetime!) { createOffer(input: { startsAt: $s, endsAt: $e }) { interviewOffer { id } } }`,
      { s: new Date(starts).toISOString(), e: new Date(starts + 45 * 60_000).toISOString() },
      interviewer.token,
    );
    expect(offer.errors).toBeUndefined();

    const watched = await openSignedInPage(browser, patient.token, { locale, width });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/`);
    await page.getByText(strings.patientPath.stopped.team).waitFor();
    const home = await page.locator('main').innerText();
    expect(home).not.toContain(strings.patientPath.stopped.screening);
    expect(await page.locator('.patient-path__next').count()).toBe(0);
    await expectNoOverflow(page, `home excluded (${locale})`);
    await screenshot(page, `gates-home-excluded-${locale}-${width}`);

    // An old link to the booking screen: no slot can be taken.
    await page.goto(`${t.url}/interviews/booking`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const slot = page.locator('.slot-button').first();
    await slot.waitFor();
    await slot.click();
    await page.getByRole('dialog').getByRole('button', { name: strings.interviews.booking.bookConfirm }).click();
    await page.getByText(strings.errorCodes.path_ended_team).waitFor();
    await expectNoOverflow(page, `booking refused (${locale})`);
    await screenshot(page, `gates-booking-refused-${locale}-${width}`);
    const { rows } = await t.database.db.pool.query(
      `select (select count(*)::int from app_public.interview_bookings where case_id = $1) as bookings,
              (select count(*)::int from app_public.case_members where case_id = $1 and acts_as_interviewer) as interviewers`,
      [caseId],
    );
    expect(rows[0]).toEqual({ bookings: 0, interviewers: 0 });
    expect(watched.consoleErrors.filter((e) => !/Failed to load resource|status of 4\d\d/.test(e))).toEqual([]);
  });
});
