/**
 * Issue 27 item 5 in a real browser: counseling from the signed referral to its end. The
 * interviewer signs a report referring the patient to counseling (the one door); the coordinator
 * (German, desktop) assigns the counselor on the case page's counseling panel; the counselor
 * (German, desktop) confirms the sessions, writes and sends the closing letter from a template and
 * closes the counseling on their home; the patient (Arabic, 360 px) sees the counseling step on
 * "My path", reads the letter and finally the finished counseling. No screen shows an id, a
 * process or BPMN name.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
let browser: Browser;
const trial = trialDriver(() => t);
let coordinator: Person, interviewer: Person, counselor: Person, patient: Person;
let caseId = '';
const opened: WatchedPage[] = [];
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const no = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, false]));
/** What no screen may show: ids, process and BPMN names, variable names. */
const RAW = ['counselingSessionsTask', 'closeCounselingTask', 'counselingLetterTask', 'counselingPatientTask', 'assignCounselorTask', 'Hold the counseling sessions', 'Close the counseling', 'Take part in the counseling', 'counselorAssigned', 'counselingDuration', 'workflow'];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', alias: 'Frau Koch' });
  interviewer = await t.user({ flags: ['interviewer'] });
  counselor = await t.user({ flags: ['counselor'], locale: 'de', alias: 'Mona Saleh', username: 'demo-counselor' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'ليلى', gender: 'FEMALE' });
  caseId = patient.caseId!;
  await withOwner(t.database.db.pool, (sql) =>
    sql.query(
      `insert into app_public.content_templates (type, code, language_code, title, subject, content)
       values ('LETTER', 'abschluss', 'de', 'Abschlussbrief', 'Zum Abschluss der Beratung', E'Liebe {{patient_alias}},\\n\\ndanke für unsere Gespräche.')`,
    ),
  );
  // The interview happened an hour ago; the interviewer signs the counseling referral.
  await addMember(t.database.db.pool, caseId, interviewer.username, ['interviewer']);
  const offer = await t.database.db.pool.query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot) values ($1, tstzrange(now() - interval '2 hours', now() - interval '1 hour')) returning id`,
    [interviewer.id],
  );
  const booking = await t.database.db.pool.query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, interviewer.id],
  );
  await trial.startTrial(caseId);
  await trial.advance(caseId, 'interview', { bookingId: booking.rows[0]!.id });
  const saved = await t.api('POST', '/api/interview_reports', {
    token: interviewer.token,
    body: { booking_id: booking.rows[0]!.id, age: 30, sex: 'FEMALE', ...no('suicidality_c', [1, 2, 3, 4, 5, 6]), primary_problem: 'other', status: 'rejected', counseling_accepted: true, counseling_reasons: 'Familienkonflikt' },
    headers: UPSERT,
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  expect((await t.api('POST', `/api/interview_reports/${saved.body[0].id}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
  await t.sanad.workflow.tick();
  await t.sanad.workflow.tick();
}, 180_000);

afterAll(async () => {
  for (const w of opened) expect(w.consoleErrors, 'console errors').toEqual([]);
  await browser?.close();
  await t?.close();
});

async function desktop(token: string): Promise<Page> {
  const watched = await openSignedInPage(browser, token, { locale: 'de', width: 1280, height: 900 });
  opened.push(watched);
  return watched.page;
}

async function phone(token: string): Promise<Page> {
  const watched = await openSignedInPage(browser, token, { locale: 'ar', width: 360, height: 740 });
  opened.push(watched);
  return watched.page;
}

async function expectNoRaw(page: Page, what: string): Promise<void> {
  const text = await page.locator('main').innerText();
  for (const raw of [...RAW, caseId]) expect(text, `${what} shows ${raw}`).not.toContain(raw);
}

describe('counseling from outcome to end', () => {
  it('the coordinator assigns the counselor on the case page (German, desktop)', { timeout: 180_000 }, async () => {
    const page = await desktop(coordinator.token);
    await page.goto(`${t.url}/admin/cases/${caseId}`);
    const panel = page.locator('section', { has: page.getByRole('heading', { name: de.counseling.panel.title, exact: true }) });
    await panel.getByText(de.counseling.panel.none).waitFor();
    await panel.getByLabel(de.counseling.panel.choose).selectOption({ label: 'Mona Saleh' });
    await panel.getByRole('button', { name: de.counseling.panel.assign }).click();
    await page.locator('dialog.confirm').getByText('Mona Saleh sieht diesen Fall').waitFor();
    await page.locator('dialog.confirm').getByRole('button', { name: de.counseling.panel.assign }).click();
    await panel.getByText('Mona Saleh berät jetzt in diesem Fall.').waitFor();
    await t.sanad.workflow.tick();
    await page.reload();
    await panel.getByRole('heading', { name: de.counseling.panel.title }).waitFor();
    await panel.locator('dd', { hasText: 'Mona Saleh' }).waitFor();
    // The coordinator's task closed; the case's open tasks are the counseling's, by their German names.
    await page.getByText(de.counseling.taskNames.counselingSessionsTask).first().waitFor();
    await expectNoRaw(page, 'case page (de)');
    await screenshot(page, 'counseling-case-panel-de-desktop');
  });

  it('the patient sees the counseling step and the counselor on an Arabic phone', { timeout: 180_000 }, async () => {
    const page = await phone(patient.token);
    await page.goto(`${t.url}/`);
    await page.getByText('Mona Saleh').first().waitFor();
    await expectNoOverflow(page, 'patient home (ar, 360)');
    await screenshot(page, 'counseling-patient-home-ar-360');
    await page.goto(`${t.url}/workflows`);
    await page.getByRole('heading', { level: 1, name: ar.patientPath.pathTitle }).waitFor();
    await page.getByText(ar.patientPath.steps.counselingPatientTask).first().waitFor();
    await expectNoRaw(page, 'my path (ar)');
    expect(await page.locator('main').innerText()).not.toMatch(/counsel/i);
    await expectNoOverflow(page, 'my path (ar, 360)');
    await screenshot(page, 'counseling-patient-path-ar-360');
  });

  it('the counselor holds the sessions, sends the closing letter and closes the counseling (German, desktop)', { timeout: 300_000 }, async () => {
    const page = await desktop(counselor.token);
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: de.counseling.counselor.title }).waitFor();
    await page.getByRole('link', { name: 'ليلى' }).click();
    await page.getByRole('heading', { level: 1, name: 'Beratung von ليلى' }).waitFor();
    await screenshot(page, 'counseling-counselor-case-de-desktop');

    await page.getByRole('button', { name: de.counseling.counselor.sessionsDone }).click();
    await page.locator('dialog.confirm').getByText(de.counseling.counselor.sessionsConfirm).waitFor();
    await page.locator('dialog.confirm').getByRole('button', { name: de.counseling.counselor.sessionsDone }).click();
    await page.getByText(de.counseling.counselor.letterHint).waitFor();

    // The closing letter, from the template, sent with its confirmation.
    await page.getByLabel(de.therapy.chooseTemplate).selectOption({ label: 'Abschlussbrief · DE' });
    await page.getByRole('button', { name: de.therapy.startLetter }).click();
    const body = page.getByRole('textbox', { name: de.therapy.letterBody, exact: true });
    await expect.poll(() => body.inputValue()).toContain('Liebe ليلى');
    await body.fill('Liebe ليلى,\n\ndanke für unsere Gespräche. Alles Gute!\n\nMona Saleh');
    await page.getByRole('button', { name: de.therapy.sendLetter }).click();
    await page.locator('dialog.confirm').getByRole('button', { name: de.therapy.send }).click();
    await page.getByText(/Gesendet am/).first().waitFor();
    await t.sanad.workflow.tick();
    await page.reload();
    await page.getByRole('button', { name: de.counseling.counselor.closeDone }).waitFor();
    await expectNoRaw(page, 'counselor case (de)');
    await screenshot(page, 'counseling-counselor-close-de-desktop');

    await page.getByRole('button', { name: de.counseling.counselor.closeDone }).click();
    await page.locator('dialog.confirm').getByText(de.counseling.counselor.closeConfirm).waitFor();
    await page.locator('dialog.confirm').getByRole('button', { name: de.counseling.counselor.closeDone }).click();
    await page.getByText('Erledigt: Beratung abschließen.').waitFor();
    await t.sanad.workflow.tick();
    await page.reload();
    await page.getByText(de.counseling.counselor.ended).waitFor();
    expect(await trial.stage(caseId)).toBe('finished');
    await screenshot(page, 'counseling-counselor-ended-de-desktop');
  });

  it('the patient reads the closing letter and sees the counseling finished (Arabic, 360 px)', { timeout: 180_000 }, async () => {
    const page = await phone(patient.token);
    await page.goto(`${t.url}/treatment/past-letters`);
    await page.getByRole('heading', { level: 1, name: ar.therapy.pastLettersTitle }).waitFor();
    await page.getByText('Alles Gute!').waitFor();
    await expectNoOverflow(page, 'past letters (ar, 360)');
    await screenshot(page, 'counseling-patient-letter-ar-360');
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: ar.patientPath.phase.finished.title }).waitFor();
    await expectNoRaw(page, 'patient home finished (ar)');
    await screenshot(page, 'counseling-patient-finished-ar-360');
  });
});
