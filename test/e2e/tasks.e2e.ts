/**
 * The workflow screens in a real browser, on the real engine: a patient's trial starts as
 * registration starts it; signed out, /due asks to sign in; the patient (Arabic, phone) sees
 * "book an interview" on /due, books, and the task is gone; "My path" shows the patient's steps
 * in their words only; the interviewer (English, wide) finds the interview task in /admin/tasks
 * with its variables hidden, cannot complete it by a form, and signs the report through the one
 * door, after which it leaves the list; a coordinator (German, phone) filters the list, and a submit that the server
 * refuses shows the spec §8 alert with status and body; the patient's next step then shows on
 * /due and "My path" with the button to its place. Every screen is axe clean and fits 360 px.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { shortId } from '../../src/domain/short-id';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let interviewer: Person;
let coordinator: Person;
let patient: Person;
let caseId: string;

const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  interviewer = await t.user({ flags: ['interviewer'], locale: 'en', timeZone: 'Europe/Berlin' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Baghdad' });
  caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  // As registration does: the start is queued and the scheduler runs it.
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
  await t.sanad.workflow.tick();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person | null, locale: 'ar' | 'de' | 'en', width: number): Promise<WatchedPage> {
  const watched = await openPage(browser, { locale, width });
  if (person) await watched.context.addInitScript((token) => sessionStorage.setItem('authToken', token), person.token);
  return watched;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}



async function openTaskId(key: string): Promise<string> {
  const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = $2 and end_time is null`, [caseId, key]);
  expect(rows, `open ${key}`).toHaveLength(1);
  return rows[0].id as string;
}

describe('workflow task screens', () => {
  it('signed out, /due asks to sign in and come back', { timeout: 60_000 }, async () => {
    const anon = await pageAs(null, 'ar', 360);
    await open(anon.page, '/due');
    const signIn = anon.page.getByRole('link', { name: ar.tasks.signIn });
    await signIn.waitFor();
    expect(await signIn.getAttribute('href')).toBe('/login?returnTo=/due');
    expect(await anon.page.locator('html').getAttribute('dir')).toBe('rtl');
    await expectNoOverflow(anon.page, '/due signed out');
    await expectAccessible(anon.page, '/due signed out (ar)');
    await anon.context.close();
  });

  // Rewritten for today's product (issue 25): the patient's /workflows shows only steps written
  // for patients; the task page hides process variables; the interview outcome comes only from a
  // signed report (the one door, POST /api/interview_reports/:id/finalize), never a task form.
  it('patient, interviewer and coordinator move the trial through the screens', { timeout: 240_000 }, async () => {
    // The patient's first task links to the screening questionnaires.
    const pt = await pageAs(patient, 'ar', 360);
    await open(pt.page, '/due');
    const dueList = pt.page.getByRole('list', { name: ar.tasks.dueList });
    await dueList.getByRole('heading', { name: ar.tasks.names.screeningTask }).waitFor();
    expect(await dueList.getByRole('link').first().getAttribute('href')).toBe('/messungen/screening');
    await expectNoOverflow(pt.page, '/due at 360 px');
    await expectAccessible(pt.page, '/due (ar)');
    await screenshot(pt.page, 'due-ar-360');

    // The overview of all questionnaires puts the time the workflow says is due first, marked.
    await open(pt.page, '/frageboegen');
    const firstTime = pt.page.locator('section.survey-time').first();
    await firstTime.getByRole('heading', { name: ar.nav.measurementScreening }).waitFor();
    await firstTime.getByText(ar.measurements.dueUntil.split('{{')[0]!.trim()).waitFor();
    expect(await pt.page.locator('section.survey-time--due').count()).toBe(1);
    await expectNoOverflow(pt.page, '/frageboegen with a due time');
    await expectAccessible(pt.page, '/frageboegen with a due time (ar)');
    await open(pt.page, '/due');
    await dueList.getByRole('heading', { name: ar.tasks.names.screeningTask }).waitFor();

    // The questionnaires report the screening (as that feature does, through the outbox).
    await pool().query(`select app_hidden.notify_workflow($1, 'screeningCompleted', '{"excluded":{"value":false,"type":"Boolean"}}')`, [caseId]);
    await t.sanad.workflow.tick();
    // Coming back to the tab fetches again: the screening task is gone, booking is due.
    await pt.page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await dueList.getByRole('heading', { name: ar.tasks.names.bookTask }).waitFor();
    await expect.poll(() => dueList.getByRole('heading', { name: ar.tasks.names.screeningTask }).count()).toBe(0);

    // The matching action: the patient follows the link and books the interview.
    const starts = Date.now() + 2 * 86_400_000;
    const created = await t.graphql(
      `mutation($s: Datetime!, $e: Datetime!) { createOffer(input: { startsAt: $s, endsAt: $e }) { interviewOffer { id } } }`,
      { s: new Date(starts).toISOString(), e: new Date(starts + 45 * 60_000).toISOString() },
      interviewer.token,
    );
    expect(created.errors).toBeUndefined();
    const offerId = (created.data as { createOffer: { interviewOffer: { id: string } } }).createOffer.interviewOffer.id;
    await dueList.getByRole('link', { name: new RegExp(ar.tasks.actions.bookTask) }).click();
    await pt.page.getByRole('heading', { level: 1, name: ar.interviews.booking.title }).waitFor();
    await pt.page.locator('.slot-button').first().click();
    // Booking asks first (issue 18).
    await pt.page.getByRole('dialog').getByRole('button', { name: ar.interviews.booking.bookConfirm }).click();
    await pt.page.getByText(ar.interviews.booking.booked).waitFor();
    await t.sanad.workflow.tick();
    await open(pt.page, '/due');
    await pt.page.getByText(ar.tasks.nothingDue).waitFor();

    // "My path": the patient's steps in their words; no process, state, variable or BPMN name.
    await open(pt.page, '/workflows');
    const done = pt.page.getByRole('region', { name: ar.patientPath.doneSteps });
    await done.getByText(ar.patientPath.steps.screeningTask).waitFor();
    await done.getByText(ar.patientPath.steps.bookTask).waitFor();
    const pathText = (await pt.page.locator('main').innerText()).toLowerCase();
    for (const raw of ['trial', 'safety', 'interviewtask', 'caseid', 'active', 'overdue']) expect(pathText).not.toContain(raw);
    await expectNoOverflow(pt.page, '/workflows at 360 px');
    await expectAccessible(pt.page, '/workflows (ar)');
    await screenshot(pt.page, 'workflows-ar-360');

    // The interviewer finds the interview task in the staff list (a table on a wide screen).
    const iv = await pageAs(interviewer, 'en', 1280);
    await open(iv.page, '/admin/tasks');
    const table = iv.page.getByRole('table');
    const row = table.getByRole('row', { name: new RegExp(en.tasks.names.interviewTask) });
    await row.waitFor();
    await row.getByRole('link', { name: shortId(caseId) }).waitFor();
    await expectAccessible(iv.page, '/admin/tasks (en, wide)');
    await screenshot(iv.page, 'admin-tasks-en-wide');
    await row.getByRole('link', { name: en.tasks.names.interviewTask }).click();
    await iv.page.getByRole('heading', { level: 1, name: en.tasks.names.interviewTask }).waitFor();
    await iv.page.getByRole('link', { name: shortId(caseId) }).waitFor();
    // Process facts under translated labels; ids and variable names stay hidden (issue 26).
    const taskText = await iv.page.locator('main').innerText();
    for (const raw of ['caseId', 'offerId', 'bookingId', 'startsAt', offerId]) expect(taskText).not.toContain(raw);
    await expectAccessible(iv.page, '/admin/tasks/{id} (en)');
    await screenshot(iv.page, 'admin-task-interview-en-wide');
    // No form completes the interview: the task ends only through a signed report (issue 27).
    const byForm = await t.api('POST', `/api/workflow/rest/task/${await openTaskId('interviewTask')}/submit-form`, {
      token: interviewer.token,
      body: { variables: { outcome: { value: 'ptsd', type: 'String' } } },
    });
    expect(byForm.status).toBeGreaterThanOrEqual(400);
    expect(byForm.status).toBeLessThan(500);
    await openTaskId('interviewTask');

    // The interview begins; the interviewer writes and signs the report through the one door.
    await pool().query(`update app_public.interview_offers set time_slot = tstzrange(now() - interval '5 minutes', now() + interval '40 minutes') where id = $1`, [offerId]);
    const booking = await pool().query<{ id: string }>(`select id from app_public.interview_bookings where offer_id = $1 and not canceled`, [offerId]);
    const bookingId = booking.rows[0]!.id;
    const result = {
      ...Object.fromEntries([1, 2, 3, 4, 5, 10, 11].map((n) => [`mde_a${n}`, true])),
      ...Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, false])),
      age: 34, primary_problem: 'mde_current', status: 'accepted', accepted_reason: 'depression_mde',
    };
    const saved = await t.api('POST', '/api/interview_reports', { token: interviewer.token, body: { booking_id: bookingId, ...result }, headers: { prefer: 'resolution=merge-duplicates' } });
    expect(saved.status, JSON.stringify(saved.body)).toBeLessThan(300);
    const report = await pool().query<{ id: string }>(`select id from app_public.interview_reports where booking_id = $1`, [bookingId]);
    const signed = await t.api('POST', `/api/interview_reports/${report.rows[0]!.id}/finalize`, { token: interviewer.token, body: { emptySectionsReason: 'Kurzes Erstgespräch' } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    await t.sanad.workflow.tick();
    // The list is fetched again: the interview task is gone, the coordinator's randomization is new.
    await iv.page.goto(`${t.url}/admin/tasks`);
    await iv.page.locator('h1').first().waitFor();
    await expect.poll(() => table.getByRole('row', { name: new RegExp(en.tasks.names.interviewTask) }).count()).toBe(0);
    expect(iv.consoleErrors).toEqual([]);

    // Accepted: the coordinator's randomization is due. On a phone, in German: cards, filters.
    const co = await pageAs(coordinator, 'de', 360);
    await open(co.page, '/admin/tasks?group=coordinators');
    const card = co.page.locator('.card', { hasText: shortId(caseId) });
    await card.getByRole('link', { name: de.tasks.names.randomizeTask }).waitFor();
    await expectNoOverflow(co.page, '/admin/tasks at 360 px');
    await expectAccessible(co.page, '/admin/tasks (de, 360)');
    await screenshot(co.page, 'admin-tasks-de-360');
    await co.page.getByLabel(de.tasks.overdueOnly).click();
    await expect.poll(() => co.page.url()).toContain('overdue=1');
    await expect.poll(() => co.page.getByLabel(de.tasks.overdueOnly).isChecked()).toBe(true);
    await expect.poll(() => co.page.locator('.card', { hasText: shortId(caseId) }).count()).toBe(0);
    await co.page.getByLabel(de.tasks.overdueOnly).click();
    await expect.poll(() => co.page.url()).not.toContain('overdue=1');
    await co.page.getByLabel(new RegExp(`^${de.tasks.caseSearch}`)).fill(shortId(caseId));
    await co.page.getByRole('button', { name: de.tasks.search }).click();
    await co.page.getByRole('heading', { name: de.tasks.range.replace('{{from}}', '1').replace('{{to}}', '1').replace('{{total}}', '1') }).waitFor();
    // The treatment is drawn from the trial's allocation (issue 15), not typed into the form.
    const allocation = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } });
    expect(allocation.status).toBe(201);
    await card.getByRole('link', { name: de.tasks.names.randomizeTask }).click();
    await co.page.getByRole('heading', { level: 1, name: de.tasks.names.randomizeTask }).waitFor();
    await co.page.getByText(de.trial.task.drawNote).waitFor();
    await expectNoOverflow(co.page, '/admin/tasks/{id} at 360 px');
    await expectAccessible(co.page, '/admin/tasks/{id} (de, 360)');

    // Someone else completes it first: the server refuses, the spec §8 alert shows status and body.
    const randomize = await openTaskId('randomizeTask');
    const elsewhere = await t.api('POST', `/api/workflow/rest/task/${randomize}/submit-form`, {
      token: coordinator.token,
      body: { variables: {} },
    });
    expect(elsewhere.status).toBe(204);
    const alerts: string[] = [];
    co.page.once('dialog', (dialog) => {
      alerts.push(dialog.message());
      void dialog.accept();
    });
    await co.page.getByRole('button', { name: de.tasks.completeButton }).click();
    await expect.poll(() => alerts.length).toBe(1);
    expect(alerts[0]).toMatch(/^404 \{"type":"RestException","message":"Cannot submit task form/);
    await co.page.getByText(de.tasks.submitFailedStatus.replace('{{status}}', '404')).waitFor();

    // The case page lists the case's open tasks (the pre-treatment questionnaires now).
    await open(co.page, `/admin/cases/${caseId}`);
    await co.page.getByRole('region', { name: de.tasks.caseTasks }).getByRole('link', { name: de.tasks.names.preTask }).waitFor();
    await expectAccessible(co.page, '/admin/cases/{id} with tasks (de)');

    // The patient's new task appears on /due and on "My path", with the button to its place.
    await open(pt.page, '/due');
    await dueList.getByRole('heading', { name: ar.tasks.names.preTask }).waitFor();
    await open(pt.page, '/workflows');
    const openSteps = pt.page.getByRole('region', { name: ar.patientPath.openSteps });
    await openSteps.getByText(ar.patientPath.steps.preTask).waitFor();
    expect(await openSteps.getByRole('link').first().getAttribute('href')).toBe('/messungen/pre');
    expect(pt.consoleErrors).toEqual([]);
    for (const watched of [pt, iv, co]) await watched.context.close();
  });
});

describe('stuck workflow steps', () => {
  it('shows a coordinator the step that failed too often, with its error folded away, and retries it', { timeout: 60_000 }, async () => {
    // A service step of the trial whose handler failed WORKFLOW_MAX_ATTEMPTS times (the failure
    // path itself is covered in test/integration/workflow-rest.int.test.ts).
    const { rows } = await pool().query(
      `insert into app_public.workflow_jobs (process_instance_id, case_id, kind, activity_id, activity_name, execution_id, due_date,
         attempts, last_error, failed_at, created)
       select id, case_id, 'retry', 'reminderMail', 'Erinnerungsmail', 'reminderMail_stuck', now(), 5, 'connect ECONNREFUSED 127.0.0.1:25', now(), now()
         from app_public.workflow_instances where case_id = $1 and business_key = 'trial' limit 1
       returning id`,
      [caseId],
    );
    const jobId = rows[0].id as string;
    try {
      const co = await pageAs(coordinator, 'de', 360);
      await open(co.page, '/admin/tasks');
      const section = co.page.getByRole('region', { name: de.tasks.failed.title_one.replace('{{count}}', '1') });
      await section.waitFor();
      await section.getByText('Erinnerungsmail').waitFor();
      expect(await section.getByText('ECONNREFUSED').isVisible()).toBe(false);
      await section.getByText(de.tasks.failed.error, { exact: true }).click();
      await section.getByText('connect ECONNREFUSED 127.0.0.1:25').waitFor();
      await expectNoOverflow(co.page, '/admin/tasks with a stuck step');
      await expectAccessible(co.page, '/admin/tasks with a stuck step (de)');
      await screenshot(co.page, 'tasks-stuck-step-de-360');

      await section.getByRole('button', { name: de.tasks.failed.retry }).click();
      await co.page.getByText(de.tasks.failed.retried).waitFor();
      await section.waitFor({ state: 'detached' });
      const after = await pool().query(`select failed_at, attempts from app_public.workflow_jobs where id = $1`, [jobId]);
      expect(after.rows[0]).toMatchObject({ failed_at: null, attempts: 4 });
      expect(co.consoleErrors).toEqual([]);
      await co.context.close();
    } finally {
      // The stand-in step has no execution in the engine: it must not reach the scheduler.
      await pool().query(`delete from app_public.workflow_jobs where id = $1`, [jobId]);
    }
  });
});
