/**
 * The measurement screens in a real browser: a patient on a phone, in Arabic, answers the
 * screening one item per screen; leaves midway (reload, a closed page), loses the connection
 * while answering (and once while closing the page), comes back and continues where they
 * left off; misses a required item and is pointed to it at the review; finishes. The server
 * holds complete, scored records (a coordinator reads the totals; the patient sees none). A
 * patient whom the screening excludes sees a kind explanation, on a wide screen in English.
 */
import type { Browser, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let excludedPatient: Person;
let coordinator: Person;
let germanPatient: Person;
const opened: WatchedPage[] = [];

/** A shorter screening than the default keeps the run short; it still has every item kind. */
const SCREENING = ['demographics', 'traumalisteneu', 'bdi2', 'phq9'];

beforeAll(async () => {
  t = await startTestApp({ MEASUREMENTS_SCREENING: SCREENING.join(',') });
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'ريم' });
  excludedPatient = await t.user({ flags: ['patient'], locale: 'en', alias: 'Sami' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'en' });
  germanPatient = await t.user({ flags: ['patient'], locale: 'de', alias: 'Lena' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width: number, height: number): Promise<WatchedPage> {
  const watched = await openSignedInPage(browser, person.token, { locale, width, height });
  opened.push(watched);
  return watched;
}



/** The item on screen (phones show one). */
async function currentItem(page: Page): Promise<string> {
  const item = page.locator('[data-item]').first();
  await item.waitFor();
  return (await item.getAttribute('data-item'))!;
}

/** Answers for the screening per questionnaire; items not named get a default for their kind. */
const ANSWERS: Record<string, Record<string, string | string[] | null>> = {
  // Baseline: an adult with email and internet who fled; "loss" is left out on purpose.
  demographics: {
    internet_access: 'yes',
    email: 'yes',
    age: '34',
    gender: 'FEMALE',
    country_of_origin: 'سوريا',
    country_of_residence: 'ألمانيا',
    residence_kind: null,
    education: null,
    past_treatment: ['none'],
    fled: 'yes',
    flight_reason: 'war',
    flight_months_ago: '24',
    refugee_hostel: 'no',
    loss: null,
    found_via: 'friends_family',
  },
  // Trauma record: criterion A met.
  traumalisteneu: {
    worst_event: 'war',
    description: 'قصف المنزل',
    time_since: '1to5y',
    to_whom: 'self',
    danger_of_death: 'yes',
    serious_injury: 'no',
    sexual_violence: 'no',
  },
  // BDI-II: 1 point on every item (16 and 18 are "1a").
  bdi2: { item16: '1a', item18: '1a' },
  // PHQ-9: item 10 (optional) is left out.
  phq9: { item10: null },
};

function openQuestionnaire(page: Page): string {
  return new URL(page.url()).searchParams.get('q') ?? '';
}

/** Gives the current item its planned answer (null: none); `plan` overrides the table above. */
async function answerCurrent(page: Page, id: string, plan?: Record<string, string | string[] | null>): Promise<void> {
  const answers = plan ?? ANSWERS[openQuestionnaire(page)] ?? {};
  const item = page.locator(`[data-item="${id}"]`);
  const planned = Object.hasOwn(answers, id) ? answers[id] : undefined;
  if (planned === null) return;
  const radios = item.locator('input[type=radio]');
  const checkboxes = item.locator('input[type=checkbox]');
  if ((await radios.count()) > 0) {
    let value = planned as string | undefined;
    for (const candidate of ['1', 'yes']) if (value === undefined && (await item.locator(`input[value="${candidate}"]`).count()) > 0) value = candidate;
    value ??= (await radios.first().getAttribute('value'))!;
    await item.locator(`input[value="${value}"]`).check();
  } else if ((await checkboxes.count()) > 0) {
    for (const code of (planned as string[] | undefined) ?? [await checkboxes.first().getAttribute('value')]) await item.locator(`input[value="${code}"]`).check();
  } else {
    await item.locator('input, textarea').first().fill((planned as string | undefined) ?? '2');
  }
}

/** Next, and wait until the next item (or the review) is on screen. */
async function next(page: Page, from: string, label = ar.measurements.next): Promise<void> {
  await page.getByRole('button', { name: label, exact: true }).click();
  await page.waitForFunction((id) => !document.querySelector(`[data-item="${id}"]`), from);
}

/** Answers item after item until `stopBefore` is on screen, or the review. */
async function answerUntil(page: Page, stopBefore?: string): Promise<void> {
  for (;;) {
    if ((await page.locator('#review-heading').count()) > 0) return;
    const id = await currentItem(page);
    if (id === stopBefore) return;
    await answerCurrent(page, id);
    await next(page, id);
  }
}

async function recordOf(collection: string, caseId: string, token: string): Promise<Record<string, unknown> | undefined> {
  const response = await t.api('GET', `/api/${collection}?case_id=eq.${caseId}&time_of_measurement=eq.screening`, { token });
  expect(response.status).toBe(200);
  return response.body[0];
}

function expectNoConsoleErrors(): void {
  // Requests that fail while the browser is offline are the point of the test, not errors.
  const errors = opened.flatMap((o) => o.consoleErrors).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|Failed to load resource/.test(e));
  expect(errors, JSON.stringify(errors)).toEqual([]);
}

describe('screening on a phone in Arabic', () => {
  it('is answered item by item, survives leaving and a lost connection, and ends complete and scored', { timeout: 300_000 }, async () => {
    const caseId = patient.caseId!;
    const watched = await pageAs(patient, 'ar', 360, 740);
    let page = watched.page;
    await page.goto(`${t.url}/messungen/screening`);
    await page.getByRole('heading', { level: 1, name: ar.nav.measurementScreening }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByRole('button', { name: ar.measurements.start }).click();

    // One item per screen, with its place shown.
    expect(await currentItem(page)).toBe('internet_access');
    await page.getByText('السؤال 1 من').waitFor();
    expect(await page.locator('[data-item]').count()).toBe(1);
    await expectAccessible(page, 'first item (ar, 360)');
    await screenshot(page, 'measurements-item-ar-360');
    await expectNoOverflow(page, 'first item');

    // Keyboard: arrow keys choose within the group, Enter continues.
    const yes = page.locator('[data-item="internet_access"] input[value="yes"]');
    await yes.focus();
    await expect.poll(() => yes.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('[data-item="internet_access"] input[value="no"]').isChecked()).toBe(true);
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => yes.isChecked()).toBe(true);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => !document.querySelector('[data-item="internet_access"]'));
    expect(await currentItem(page)).toBe('email');

    // The progress bar grows from the right in Arabic.
    const bar = (await page.locator('.progress__bar').boundingBox())!;
    const fill = (await page.locator('.progress__fill').boundingBox())!;
    expect(Math.abs(bar.x + bar.width - (fill.x + fill.width))).toBeLessThan(1);
    expect(fill.width).toBeLessThan(bar.width);

    // An age typed in words is not an answer: "Next" stays, says what is expected and keeps
    // the focus on the field (issue 25: it was dropped without a word).
    await answerUntil(page, 'age');
    const ageField = page.locator('[data-item="age"] input');
    await ageField.fill('أربعة وثلاثون');
    await page.getByRole('button', { name: ar.measurements.next, exact: true }).click();
    await page.getByText(ar.measurements.numberRange.split('{{')[0]!.trim()).waitFor();
    expect(await currentItem(page)).toBe('age');
    await expect.poll(() => ageField.evaluate((input) => input === document.activeElement)).toBe(true);
    await screenshot(page, 'measurements-age-in-words-ar-360');
    await ageField.fill('34');
    await next(page, 'age');

    // Leave midway by reloading: the form comes back at the first unanswered item.
    await answerUntil(page, 'country_of_origin');
    await page.getByText(ar.measurements.saveState.saved).waitFor();
    await page.reload();
    expect(await currentItem(page)).toBe('country_of_origin');
    expect(page.url()).toContain('q=demographics');
    const saved = await recordOf('demographics', caseId, patient.token);
    expect(saved).toMatchObject({ internet_access: true, email: true, age: 34, gender: 'FEMALE', country_of_origin: null });

    // The connection drops while answering: answers wait on the device, then go through.
    await answerUntil(page, 'employment');
    await watched.context.setOffline(true);
    await answerCurrent(page, 'employment', { employment: 'unemployed' });
    await page.getByText(ar.measurements.saveState.waiting).waitFor();
    await next(page, 'employment');
    expect(await currentItem(page)).toBe('education');
    await next(page, 'education');
    await answerCurrent(page, 'family_status', { family_status: 'single' });
    await page.getByText(ar.measurements.saveState.waiting).waitFor();
    const waiting = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('sanad.unsent.')).map((k) => localStorage.getItem(k)));
    expect(waiting.join()).toContain('unemployed');
    await watched.context.setOffline(false);
    await page.getByText(ar.measurements.saveState.saved).waitFor();
    expect(await recordOf('demographics', caseId, patient.token)).toMatchObject({ employment: 'unemployed', family_status: 'single' });
    await next(page, 'family_status');

    // Offline again, answers given, and the page closed before the connection is back.
    await watched.context.setOffline(true);
    await answerCurrent(page, 'children', { children: '2' });
    await next(page, 'children');
    await answerCurrent(page, 'siblings', { siblings: '5' });
    await page.getByText(ar.measurements.saveState.waiting).waitFor();
    const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('sanad.unsent.')).map((k) => localStorage.getItem(k)).join());
    expect(kept).toMatch(/"children":"?2"?/);
    expect(kept).toMatch(/"siblings":"?5"?/);
    // Writes stay blocked until the phone is back: a closing page can still fire its 'online'
    // handler when the connection returns, and this step is about the answers not sent yet.
    const blockWrites = (route: Route) => (route.request().method() === 'GET' ? route.continue() : route.abort('internetdisconnected'));
    await watched.context.route('**/api/demographics**', blockWrites);
    await page.close();
    await watched.context.setOffline(false);
    expect(await recordOf('demographics', caseId, patient.token)).toMatchObject({ children: null, siblings: null });
    await watched.context.unroute('**/api/demographics**', blockWrites);

    // Back on the same phone: the overview says "in progress", and the form resumes after the
    // answers that were kept on the device, which are sent now.
    page = await watched.context.newPage();
    watched.page = page;
    await page.goto(`${t.url}/messungen/screening`);
    await page.getByText(ar.measurements.status.in_progress).waitFor();
    await expectAccessible(page, 'screening overview (ar, 360)');
    await page.getByRole('button', { name: ar.measurements.continue }).click();
    expect(await currentItem(page)).toBe('past_treatment');
    await expect.poll(async () => (await recordOf('demographics', caseId, patient.token))?.siblings).toBe(5);
    expect((await recordOf('demographics', caseId, patient.token))?.children).toBe(2);

    // The flight branch opens three questions: the count moves on by one and its total does
    // not grow (issue 25: "1 of 17", then "2 of 20").
    const counter = async () => (await page.locator('.progress__label').innerText()).match(/\d+/g)!.map(Number);
    await answerUntil(page, 'fled');
    const [atFled, totalAtFled] = await counter();
    await answerCurrent(page, 'fled');
    await next(page, 'fled');
    const [afterFled, totalAfterFled] = await counter();
    expect(afterFled).toBe(atFled! + 1);
    expect(totalAfterFled).toBeLessThanOrEqual(totalAtFled!);

    // A required question left out: "Next" stays on it, says why and keeps the focus there.
    await answerUntil(page, 'loss');
    await page.getByRole('button', { name: ar.measurements.next, exact: true }).click();
    const refusal = page.locator('[data-item="loss"]').getByText(ar.patientForm.answerToGoOn);
    await refusal.waitFor();
    expect(await currentItem(page)).toBe('loss');
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-item]')?.getAttribute('data-item'))).toBe('loss');
    await expectAccessible(page, 'required item refused (ar, 360)');
    await screenshot(page, 'measurements-required-ar-360');
    // Answered offline: the submit cannot reach the server, says so, and the focus moves to
    // that notice (the error summary of this form); back online the same submit goes through.
    await watched.context.setOffline(true);
    await answerCurrent(page, 'loss', { loss: 'no' });
    await expect.poll(() => refusal.count()).toBe(0);
    await next(page, 'loss');
    await answerUntil(page);
    await page.locator('#review-heading').waitFor();
    await expectAccessible(page, 'review (ar, 360)');
    await expectNoOverflow(page, 'review');
    await screenshot(page, 'measurements-review-ar-360');
    await page.getByRole('button', { name: ar.measurements.submit }).click();
    await page.getByText(ar.measurements.submitOffline).waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(ar.measurements.submitOffline);
    await watched.context.setOffline(false);
    await page.getByText(ar.measurements.saveState.saved).waitFor();
    await page.getByRole('button', { name: ar.measurements.submit }).click();

    // The next questionnaire opens by itself; answered through to its end.
    await expect.poll(() => page.url()).toContain('q=traumalisteneu');
    await page.getByText('الاستبيان 2 من 4').waitFor();
    await answerUntil(page);
    await page.getByRole('button', { name: ar.measurements.submit }).click();
    await expect.poll(() => page.url()).toContain('q=bdi2');
    await page.getByText('الاستبيان 3 من 4').waitFor();
    await answerUntil(page);
    await page.getByRole('button', { name: ar.measurements.submit }).click();
    await expect.poll(() => page.url()).toContain('q=phq9');
    await page.getByText('الاستبيان 4 من 4').waitFor();
    await answerUntil(page);
    await page.getByRole('button', { name: ar.measurements.submit }).click();

    await page.getByText(ar.measurements.allDone).waitFor();
    expect(await page.locator('.status--complete').count()).toBe(SCREENING.length);
    await expectAccessible(page, 'screening done (ar, 360)');
    await screenshot(page, 'measurements-done-ar-360');

    // Nothing waits on the device any more.
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('sanad.unsent.')))).toEqual([]);

    // The care team's view: complete, scored records (BDI-II items 1 × 19 + 1a + 1a = 21, PHQ-9 9 × 1).
    const bdi2 = await recordOf('bdi2', caseId, coordinator.token);
    expect(bdi2).toMatchObject({ complete: true, total: 21 });
    const phq9 = await recordOf('phq9', caseId, coordinator.token);
    expect(phq9).toMatchObject({ complete: true, total: 9, item10: null });
    expect(await recordOf('demographics', caseId, coordinator.token)).toMatchObject({ complete: true, loss: false, flight_reason: 'war', children: 2 });
    expect(await recordOf('traumalisteneu', caseId, coordinator.token)).toMatchObject({ complete: true, diagnoses: { dsm5_criterion_a: true } });
    // The patient never sees a score, and was not excluded.
    expect(await recordOf('phq9', caseId, patient.token)).toMatchObject({ item1: 1, total: null, complete: null });
    const me = await t.api('GET', '/api/auth/users/me', { token: patient.token });
    expect(me.body.excluded).toBe(false);

    // The overview of all questionnaires shows the screening complete.
    await page.goto(`${t.url}/frageboegen`);
    await page.getByRole('heading', { level: 1, name: ar.nav.surveys }).waitFor();
    const screening = page.locator('section', { has: page.getByRole('heading', { name: ar.nav.measurementScreening }) });
    await expect.poll(() => screening.locator('.status--complete').count()).toBe(SCREENING.length);
    await expectAccessible(page, '/frageboegen (ar, 360)');

    // Staff see the scores on the case detail: the coordinator, in English on a desk.
    const staff = await pageAs(coordinator, 'en', 1200, 900);
    await staff.page.goto(`${t.url}/admin/cases/${caseId}`);
    const scores = staff.page.getByRole('region', { name: 'Scores by time of measurement' });
    await scores.waitFor();
    await expect.poll(() => scores.getByRole('row', { name: /BDI-II/ }).innerText()).toMatch(/21 · /);
    expect(await scores.getByRole('row', { name: /PHQ-9/ }).innerText()).toMatch(/9 · mild/);
    expect(await staff.page.locator('figure.score-chart').count()).toBe(1); // PHQ-9; no GAD-7 or PCL-5 yet
    expectNoConsoleErrors();
  });
});

describe('on a desk in German', () => {
  it('asks in the second person, explains neutral labels, and "Check answers" stops at a required item left out', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(germanPatient, 'de', 1280, 900);
    await page.goto(`${t.url}/messungen/screening?q=demographics`);
    await page.locator('[data-item="internet_access"]').waitFor();
    // The project's own questions are its wording: a question to "Sie", no third person.
    await page.getByText('Haben Sie Zugang zum Internet?').waitFor();
    await page.getByRole('button', { name: de.measurements.toReview, exact: true }).click();
    const refusal = page.locator('[data-item="internet_access"]').getByText(de.patientForm.answerToGoOn);
    await refusal.waitFor();
    expect(await page.locator('#review-heading').count()).toBe(0);
    await expect.poll(() => page.evaluate(() => document.activeElement?.closest('[data-item]')?.getAttribute('data-item'))).toBe('internet_access');
    await expectAccessible(page, 'required item refused (de, 1280)');
    await screenshot(page, 'measurements-required-de-1280');
    // A licensed questionnaire without installed wording says in the second person how to answer.
    await page.goto(`${t.url}/messungen/screening?q=phq9`);
    await page.getByText(de.patientForm.neutralIntro).waitFor();
    await screenshot(page, 'measurements-neutral-de-1280');
  });
});

describe('a patient the screening excludes', () => {
  it('sees a kind explanation and where to find help, never a score', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(excludedPatient, 'en', 1280, 900);
    await page.goto(`${t.url}/messungen/screening?q=demographics`);
    // Wide screens: the whole questionnaire on one page.
    await page.locator('[data-item="internet_access"]').waitFor();
    expect(await page.locator('[data-item]').count()).toBeGreaterThan(5);
    const answers: Record<string, string> = { internet_access: 'yes', email: 'yes', gender: 'MALE', fled: 'no', loss: 'no' };
    for (const [id, value] of Object.entries(answers)) await page.locator(`[data-item="${id}"] input[value="${value}"]`).check();
    await page.locator('[data-item="age"] input').fill('17');
    await page.locator('[data-item="country_of_origin"] input').fill('Iraq');
    await page.locator('[data-item="country_of_residence"] input').fill('Germany');
    await page.getByText(en.measurements.saveState.saved).waitFor();
    await expectAccessible(page, 'whole questionnaire (en, 1280)');
    await page.getByRole('button', { name: en.measurements.toReview, exact: true }).click();
    await page.getByRole('button', { name: en.measurements.submit }).click();

    const notice = page.getByRole('region', { name: en.measurements.excluded.title });
    await notice.waitFor();
    await notice.getByText(en.measurements.excluded.crisis).waitFor();
    expect(await notice.getByRole('link', { name: en.measurements.excluded.help }).getAttribute('href')).toBe('/faq');
    expect(await page.locator('[data-item]').count()).toBe(0);
    await expectAccessible(page, 'exclusion notice (en)');
    await screenshot(page, 'measurements-excluded-en-1280');
    const me = await t.api('GET', '/api/auth/users/me', { token: excludedPatient.token });
    expect(me.body).toMatchObject({ excluded: true, excluded_for_minor_age: true });

    // Coming back later, they see the same explanation, not the questionnaires.
    await page.goto(`${t.url}/frageboegen`);
    await notice.waitFor();
    expectNoConsoleErrors();
  });
});

describe('signed out', () => {
  it('the open measurement routes explain and offer a sign-in that returns there', async () => {
    const { page } = await openPage(browser, { locale: 'en', width: 360 });
    await page.goto(`${t.url}/messungen/pre`);
    await page.getByText(en.measurements.signedOut.body).waitFor();
    const signIn = page.locator('#main').getByRole('link', { name: en.measurements.signedOut.signIn });
    expect(await signIn.getAttribute('href')).toBe(`/login?returnTo=${encodeURIComponent('/messungen/pre')}`);
    await expectAccessible(page, '/messungen/pre signed out');
    await page.close();
  });
});
