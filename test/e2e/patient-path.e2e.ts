/**
 * Issue 25 in a real browser: the patient's home follows the stage of their case. Patients at
 * screening, at booking and in treatment, each on an Arabic phone (360×740) and a German desktop,
 * see where they are, their next step with the button to its place, their care team by chosen
 * names (never "demo-interviewer"), and in treatment the worksheets, letters and the menu entries
 * for them. The cases are moved through the trial by the test helpers (the real workflow).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver, type Person } from '../helpers/trial';

const MODULES = { a: [{ worksheet: 'cbt_thoughts', week: 1 }], b: [{ worksheet: 'cbt_thoughts', week: 1 }] };

let t: TestApp;
let browser: Browser;
const trial = trialDriver(() => t);
let coordinator: Person, therapist: Person, interviewer: Person;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp({ TREATMENT_MODULES: JSON.stringify(MODULES) });
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
  therapist = await t.user({ flags: ['therapist'], alias: 'Nour Haddad', username: 'demo-therapist' });
  interviewer = await t.user({ flags: ['interviewer'], username: 'demo-interviewer' });
  const allocation = await t.api('POST', '/api/trial/allocation', {
    token: coordinator.token,
    body: { method: 'blocks', arms: [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }], factors: [] },
  });
  expect(allocation.status).toBe(201);
}, 120_000);

afterAll(async () => {
  for (const w of opened) expect(w.consoleErrors, 'console errors').toEqual([]);
  await browser?.close();
  await t?.close();
});

async function home(token: string, locale: 'ar' | 'de'): Promise<Page> {
  const watched = locale === 'ar' ? await openSignedInPage(browser, token, { locale, width: 360, height: 740 }) : await openSignedInPage(browser, token, { locale, width: 1280, height: 900 });
  opened.push(watched);
  await watched.page.goto(`${t.url}/`);
  return watched.page;
}

async function newCase(alias: string): Promise<{ patient: Person; caseId: string }> {
  return trial.newTrialCase(
    [
      { person: therapist, roles: ['therapist'] },
      { person: interviewer, roles: ['interviewer'] },
    ],
    { alias },
  );
}

describe('the home follows the stage', () => {
  it('at screening: the first questionnaires, with the button to them', { timeout: 120_000 }, async () => {
    const { patient } = await newCase('سارة');
    const page = await home(patient.token, 'ar');
    await page.getByRole('heading', { name: ar.patientPath.phase.screening.title }).waitFor();
    await page.getByRole('link', { name: ar.tasks.actions.screeningTask }).first().waitFor();
    await expectNoOverflow(page, 'home screening (ar, 360)');
    await screenshot(page, 'patient-home-screening-ar-360');
    const desk = await home(patient.token, 'de');
    await desk.getByRole('heading', { name: de.patientPath.phase.screening.title }).waitFor();
    await screenshot(desk, 'patient-home-screening-de-desktop');
  });

  it('at booking: book an interview; the interviewer is named by role, never by username', { timeout: 120_000 }, async () => {
    const { patient, caseId } = await newCase('سارة');
    await trial.advance(caseId, 'booking');
    const page = await home(patient.token, 'ar');
    await page.getByRole('heading', { name: ar.patientPath.phase.booking.title }).waitFor();
    await page.getByRole('link', { name: ar.tasks.actions.bookTask }).first().waitFor();
    await page.getByText(ar.patientPath.yourRole.interviewer).waitFor();
    expect(await page.content()).not.toContain('demo-interviewer');
    await screenshot(page, 'patient-home-booking-ar-360');
  });

  it('in treatment: therapist, worksheets, letters, the next questionnaire; the menu has worksheets and letters', { timeout: 180_000 }, async () => {
    const { patient, caseId } = await newCase('سارة');
    await trial.advance(caseId, 'treatment', { interviewer, coordinator });
    const page = await home(patient.token, 'ar');
    await page.getByRole('heading', { name: ar.patientPath.phase.treatment.title, exact: true }).waitFor();
    await page.getByText('Nour Haddad').waitFor();
    await page.getByRole('heading', { name: ar.patientPath.treatmentTitle }).waitFor();
    await page.getByText(ar.therapy.sheet.cbt_thoughts.title).first().waitFor();
    expect(await page.content()).not.toContain('demo-therapist');
    await expectNoOverflow(page, 'home treatment (ar, 360)');
    await screenshot(page, 'patient-home-treatment-ar-360');
    // The menu (behind "Menu" on a phone) leads to the worksheets and the letters.
    await page.getByRole('button', { name: ar.shell.menu }).click();
    await page.getByRole('link', { name: ar.nav.allExercises }).waitFor();
    await page.getByRole('link', { name: ar.nav.pastLetters }).waitFor();
    // "My path" shows the patient's steps in their words; /due leads to the worksheet.
    await page.getByRole('link', { name: ar.nav.workflows }).click();
    await page.getByRole('heading', { level: 1, name: ar.patientPath.pathTitle }).waitFor();
    await page.getByText(ar.patientPath.steps.worksheetTask).first().waitFor();
    const body = await page.locator('main').innerText();
    for (const raw of ['safety', 'treatment-modules', 'trial', 'Overdue', 'worksheetTask', 'Work on a worksheet', 'cbt_thoughts']) expect(body).not.toContain(raw);
    await expectNoOverflow(page, 'my path (ar, 360)');
    await screenshot(page, 'patient-workflows-ar-360');
    await page.getByRole('button', { name: ar.shell.menu }).click();
    await page.getByRole('link', { name: ar.nav.due }).click();
    await page.getByRole('link', { name: new RegExp(ar.tasks.actions.worksheetTask) }).first().click();
    await page.getByRole('heading', { level: 1, name: ar.therapy.exercisesTitle }).waitFor();
    const desk = await home(patient.token, 'de');
    await desk.getByRole('heading', { name: de.patientPath.phase.treatment.title, exact: true }).waitFor();
    await desk.getByRole('link', { name: de.nav.allExercises }).first().waitFor();
    await screenshot(desk, 'patient-home-treatment-de-desktop');
    await desk.getByRole('link', { name: de.nav.workflows }).click();
    await desk.getByRole('heading', { level: 1, name: de.patientPath.pathTitle }).waitFor();
    await screenshot(desk, 'patient-workflows-de-desktop');
  });
});
