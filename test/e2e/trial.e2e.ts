/**
 * Trial management in a real browser (issue 15): a coordinator configures the allocation on the
 * staff case list, randomizes an accepted case from its task (no arm to choose), sees the
 * assignment on the case list and on the case, and the CONSORT diagram with its table and SVG
 * download. German on a desk; Arabic on a phone, right to left, without sideways scrolling.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolateLatin } from '../../src/domain/bidi';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { trialDriver } from '../helpers/trial';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, SCREENSHOT_DIR, signElectronically, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, interviewer: Person, therapist: Person, patient: Person;
const opened: WatchedPage[] = [];
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  interviewer = await t.user({ flags: ['interviewer'] });
  patient = await t.user({ flags: ['patient'], gender: 'FEMALE', alias: 'Salma' });
  therapist = await t.user({ flags: ['therapist'], alias: 'Karim' });
  await addMember(pool(), patient.caseId!, interviewer.username, ['interviewer']);
  await addMember(pool(), patient.caseId!, therapist.username, ['therapist']);
  // A PHQ-9 whose item 9 (thoughts of self-harm) is 2: the case list marks it.
  const phq9 = await t.api('POST', '/api/phq9', {
    token: patient.token,
    body: { case_id: patient.caseId, time_of_measurement: 'screening', item9: 2 },
    headers: { Prefer: 'resolution=merge-duplicates' },
  });
  expect(phq9.status, JSON.stringify(phq9.body)).toBe(201);
  // The trial up to "Randomize the patient": screening done, interview booked and accepted.
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);
  await t.sanad.workflow.tick();
  await pool().query(`select app_hidden.notify_workflow($1, 'screeningCompleted', '{"excluded": {"value": false, "type": "Boolean"}}')`, [patient.caseId]);
  await t.sanad.workflow.tick();
  await pool().query(`select app_hidden.notify_workflow($1, 'interviewBooked', $2)`, [
    patient.caseId,
    JSON.stringify({ offerId: { value: 'o', type: 'String' }, bookingId: { value: 'b', type: 'String' }, startsAt: { value: new Date(Date.now() + 86_400_000).toISOString(), type: 'Date' } }),
  ]);
  await t.sanad.workflow.tick();
  const { rows } = await pool().query(`select id from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'interviewTask' and end_time is null`, [patient.caseId]);
  expect(rows).toHaveLength(1);
  // The outcome as a signed report records it (the server's door; issue 27).
  await trialDriver(() => t).signedOutcome(patient.caseId!, interviewer, 'ptsd');
});

afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width: number): Promise<Page> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched.page;
}

describe('trial management', () => {
  it('a coordinator configures the allocation, randomizes from the task, and sees the assignment and the CONSORT flow', { timeout: 180_000 }, async () => {
    const page = await pageAs(coordinator, 'de', 1280);
    await page.goto(`${t.url}/admin/cases`);
    const allocation = page.getByRole('region', { name: de.trial.allocation.title });
    await allocation.getByText(de.trial.allocation.missing).waitFor();

    // A bad ratio is refused next to its field; nothing is stored.
    await allocation.getByLabel(de.trial.allocation.armCode.replace('{{n}}', '1')).fill('cbt');
    await allocation.getByLabel(de.trial.allocation.armCode.replace('{{n}}', '2')).fill('ipt');
    await allocation.getByLabel(de.trial.allocation.ratio.replace('{{n}}', '2')).fill('0');
    await allocation.getByRole('button', { name: de.trial.allocation.save }).click();
    await allocation.getByText(de.trial.allocation.invalid.arm.ratio).waitFor();
    expect((await pool().query('select 1 from app_private.allocation_config')).rowCount).toBe(0);

    // Permuted blocks stratified by gender, by keyboard.
    await allocation.getByLabel(de.trial.allocation.ratio.replace('{{n}}', '2')).fill('1');
    await allocation.getByLabel(de.trial.factors.gender).check();
    await allocation.getByRole('button', { name: de.trial.allocation.save }).focus();
    await page.keyboard.press('Enter');
    await allocation.getByText(de.trial.allocation.saved).waitFor();
    await allocation.getByText('cbt (1) : ipt (1)').waitFor();
    await expectAccessible(page, 'allocation configured (de)');

    // The randomization task: no arm to choose, the note says it is drawn.
    await page.goto(`${t.url}/admin/tasks`);
    await page.getByRole('link', { name: de.tasks.names.randomizeTask }).first().click();
    await page.getByRole('heading', { level: 1, name: de.tasks.names.randomizeTask }).waitFor();
    await page.getByText(de.trial.task.drawNote).waitFor();
    expect(await page.getByLabel(new RegExp(`^${de.tasks.fields.treatment}`)).count()).toBe(0);
    await screenshot(page, 'trial-randomize-task-de');
    await page.getByRole('button', { name: de.tasks.completeButton }).click();
    // Issue 30: randomizing is signed electronically (meaning: randomization).
    await page.locator('dialog.signing').getByText(de.signing.meanings.allocation).waitFor();
    await signElectronically(page);
    await page.getByText(de.tasks.completedNamed.replace('{{name}}', de.tasks.names.randomizeTask)).waitFor();
    const { rows } = await pool().query('select treatment, stratum from app_public.treatment_assignments where case_id = $1', [patient.caseId]);
    expect(rows).toEqual([{ treatment: expect.stringMatching(/^(cbt|ipt)$/), stratum: 'gender=FEMALE' }]);
    const arm = rows[0].treatment as string;

    // The case list shows the treatment; the balance counts the draw.
    await page.goto(`${t.url}/admin/cases`);
    const table = page.getByRole('table', { name: de.nav.adminCases });
    await table.getByRole('columnheader', { name: de.trial.case.treatment }).waitFor();
    // The arm by its translated name (issue 26), never the code.
    const row = table.getByRole('row', { name: new RegExp(`Salma.*${(de.careTeam.arms as Record<string, string>)[arm]}`) });
    await row.waitFor();
    // PagedCases' columns: the care team by role, the task stats, the latest PHQ-9 item 9 marked.
    expect(await row.locator('[data-col="therapists"]').textContent()).toBe('Karim');
    expect(await row.locator('[data-col="interviewers"]').textContent()).toBe(interviewer.username);
    expect(await row.locator('[data-col="counselors"]').textContent()).toBe('—');
    expect(await row.locator('[data-col="phq9Item9"] .badge--danger').textContent()).toContain('2');
    expect(await row.locator('[data-col="patientTasks"]').textContent()).toMatch(new RegExp(`^${de.cases.list.open.replace('{{value}}', '\\d+')}`));
    expect(await row.locator('[data-col="therapistTasks"]').textContent()).toMatch(new RegExp(`^${de.cases.list.open.replace('{{value}}', '\\d+')}`));
    for (const column of [de.cases.list.therapists, de.cases.list.counselors, de.cases.list.interviewers, de.cases.list.patientTasks, de.cases.list.therapistTasks, de.cases.list.nextWaitingDate, de.cases.list.phq9Item9]) {
      await table.getByRole('columnheader', { name: column, exact: true }).waitFor();
    }
    // The case has a therapist: "unassigned only" leaves it out; the sort stays in the address.
    await page.getByLabel(de.cases.list.sort).selectOption('phq9Item9');
    // The address is updated in a transition: click, then wait for the box to follow it.
    await page.getByLabel(de.cases.unassignedOnly).click();
    await expect.poll(() => page.getByLabel(de.cases.unassignedOnly).isChecked()).toBe(true);
    await expect.poll(() => table.getByRole('row', { name: /Salma/ }).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('phq9Item9');
    await page.getByLabel(de.cases.unassignedOnly).click();
    await row.waitFor();
    const balance = page.getByRole('table', { name: de.trial.allocation.balance });
    // The stratum in words (issue 26): the factor and its level translated.
    await balance.getByRole('row', { name: `${de.trial.factors.gender}: ${de.gender.FEMALE}` + (arm === 'cbt' ? ' 1 0' : ' 0 1') }).waitFor();

    // The CONSORT diagram and its table; the SVG downloads.
    const consort = page.getByRole('region', { name: de.trial.consort.title });
    await consort.getByRole('img', { name: de.trial.consort.diagram }).waitFor();
    await consort.getByText(de.trial.consort.randomized.replace('{{n}}', '1')).waitFor();
    await consort.getByText(de.trial.consort.allocated.replace('{{arm}}', (de.careTeam.arms as Record<string, string>)[arm] ?? arm).replace('{{n}}', '1')).waitFor();
    const flowTable = consort.getByRole('table', { name: de.trial.consort.tableCaption });
    await flowTable.getByRole('row', { name: `${de.trial.table.randomized} 1` }).waitFor();
    const [svg] = await Promise.all([page.waitForEvent('download'), consort.getByRole('button', { name: de.trial.consort.downloadSvg }).click()]);
    expect(svg.suggestedFilename()).toMatch(/^sanad-consort-\d{4}-\d{2}-\d{2}\.svg$/);
    const text = fs.readFileSync(await svg.path(), 'utf8');
    expect(text).toMatch(/^<\?xml[^>]+>\n<svg[^>]+xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(text).toContain(de.trial.consort.randomized.replace('{{n}}', '1'));
    // The screening exclusion rule in force (issue 27): the reading that keeps PTSD alone and depression alone.
    const screening = page.getByRole('region', { name: de.trialRules.screening.title });
    await screening.getByText(de.trialRules.screening.both.replace('{{atMost}}', '13')).waitFor();
    await screening.screenshot({ path: path.join(SCREENSHOT_DIR, 'trial-screening-rule-de.png') });
    await table.screenshot({ path: path.join(SCREENSHOT_DIR, 'trial-case-table-de.png') });
    await expectAccessible(page, 'case list with the trial (de)');
    await screenshot(page, 'trial-case-list-de');

    // The case detail shows the assignment.
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    const casePanel = page.getByRole('region', { name: de.trial.case.title });
    await casePanel.getByText((de.careTeam.arms as Record<string, string>)[arm]!, { exact: true }).waitFor();
    await expectAccessible(page, 'case detail with the trial (de)');
    await screenshot(page, 'trial-case-detail-de');
  });

  it('works on a phone in Arabic, right to left, without sideways scrolling', { timeout: 120_000 }, async () => {
    const phone = await pageAs(coordinator, 'ar', 360);
    await phone.goto(`${t.url}/admin/cases`);
    // Arabic texts show Latin codes isolated (⁦CONSORT⁩), so the names are matched as shown.
    await phone.getByRole('region', { name: isolateLatin(ar.trial.consort.title) }).getByRole('img', { name: isolateLatin(ar.trial.consort.diagram) }).waitFor();
    expect(await phone.evaluate(() => document.documentElement.dir)).toBe('rtl');
    const card = phone.locator('.case-cards li', { hasText: 'Salma' });
    await card.locator('[data-col="phq9Item9"] .badge--danger').waitFor();
    expect(await card.locator('[data-col="therapists"]').textContent()).toBe('Karim');
    await expectNoOverflow(phone, '/admin/cases with the trial at 360 px');
    await card.screenshot({ path: path.join(SCREENSHOT_DIR, 'trial-case-card-ar-360.png') });
    await expectAccessible(phone, 'case list with the trial (ar, 360)');
    await screenshot(phone, 'trial-case-list-ar-360');
    for (const [name, title] of [['consort', isolateLatin(ar.trial.consort.title)], ['allocation', isolateLatin(ar.trial.allocation.title)]] as const) {
      await phone.getByRole('region', { name: title, exact: true }).screenshot({ path: path.join(SCREENSHOT_DIR, `trial-${name}-ar-360.png`) });
    }
    await phone.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await phone.getByRole('region', { name: isolateLatin(ar.trial.case.title) }).waitFor();
    await expectNoOverflow(phone, '/admin/cases/{id} with the trial at 360 px');
    // The case fields show dropout and exclusion read-only, with the way to change them.
    await phone.locator('details.case-fields summary').click();
    const toTrial = phone.getByRole('link', { name: isolateLatin(ar.cases.exclusionLink) });
    expect(await toTrial.getAttribute('href')).toBe('#case-trial-title');
    expect(await phone.locator('details.case-fields').getByLabel(ar.cases.fields.isDropout).count()).toBe(0);
    await phone.locator('details.case-fields').screenshot({ path: path.join(SCREENSHOT_DIR, 'case-fields-ar-360.png') });
    await screenshot(phone, 'trial-case-detail-ar-360');
  });

  it('is not offered to a therapist beyond their own invoice items', { timeout: 60_000 }, async () => {
    const therapist = await t.user({ flags: ['therapist'], locale: 'de' });
    const page = await pageAs(therapist, 'de', 1280);
    await page.goto(`${t.url}/admin/cases`);
    await page.getByRole('region', { name: de.trial.invoices.mine }).waitFor();
    expect(await page.getByRole('region', { name: de.trial.allocation.title }).count()).toBe(0);
    expect(await page.getByRole('region', { name: de.trial.consort.title }).count()).toBe(0);
  });
});
