/**
 * Issue 27 item 3 in a real browser: the CBT patient, on a phone in Arabic, sees only the CBT
 * worksheets; the therapist, on a desktop in German, sends an IPT sheet from the case page, the
 * confirmation asking for the reason (refused empty); the patient then finds it marked as sent
 * by the therapist; the coordinator reads the contamination per arm in the trial area.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let therapist: Person;
let coordinator: Person;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'ريم' });
  therapist = await t.user({ flags: ['therapist'], locale: 'de', alias: 'Frau Berg' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  // A fixture of the assignment the randomization step would have made (its door: one-door.int.test.ts).
  await withOwner(t.database.db.pool, async (sql) => {
    await sql.query('alter table app_public.treatment_assignments disable trigger _050_in_step');
    await sql.query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'cbt', '*', 'blocks')`, [patient.caseId]);
    await sql.query('alter table app_public.treatment_assignments enable trigger _050_in_step');
  });
});

afterAll(async () => {
  await Promise.all(opened.map((w) => w.context.close()));
  await browser?.close();
  await t?.close();
});

const sends = async () => Number((await t.database.db.pool.query('select count(*) as n from app_public.out_of_arm_sends')).rows[0].n);

describe('arms own their worksheets', () => {
  it('the patient sees their arm, the therapist sends another arm’s sheet with a reason, the coordinator sees it counted', { timeout: 300_000 }, async () => {
    const phone = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(phone);
    await phone.page.goto(`${t.url}/all-exercises`);
    await phone.page.getByRole('heading', { name: ar.therapy.sheet.cbt_thoughts.title }).waitFor();
    expect(await phone.page.getByRole('heading', { name: ar.therapy.sheet.ipt_conflicts.title }).count()).toBe(0);
    await expectNoOverflow(phone.page, 'exercises of the arm (ar, 360)');
    await screenshot(phone.page, 'arms-exercises-ar-360');

    const desk = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(desk);
    const page = desk.page;
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await page.getByRole('heading', { name: de.arms.sendTitle }).waitFor();
    await page.getByLabel(de.arms.sheetLabel).selectOption('ipt_conflicts');
    await page.getByRole('button', { name: de.arms.send }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.arms.reasonLabel).waitFor();
    await screenshot(page, 'arms-confirm-reason-de-1280');
    // an empty reason does not confirm
    await dialog.getByRole('button', { name: de.arms.send }).click();
    expect(await dialog.count()).toBe(1);
    expect(await sends()).toBe(0);
    await dialog.getByLabel(de.arms.reasonLabel).fill('Der Konflikt mit der Schwester bestimmt jede Sitzung.');
    await dialog.getByRole('button', { name: de.arms.send }).click();
    await page.getByRole('status').filter({ hasText: de.therapy.sheet.ipt_conflicts.title }).waitFor();
    expect(await sends()).toBe(1);
    await screenshot(page, 'arms-sent-de-1280');

    await phone.page.reload();
    await phone.page.getByRole('heading', { name: ar.therapy.sheet.ipt_conflicts.title }).waitFor();
    await phone.page.getByText(ar.arms.sentByTherapist).waitFor();
    await expectNoOverflow(phone.page, 'exercises with a sheet sent in (ar, 360)');
    await screenshot(phone.page, 'arms-exercises-sent-in-ar-360');

    const coord = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(coord);
    await coord.page.goto(`${t.url}/admin/cases`);
    const panel = coord.page.locator('section', { has: coord.page.getByRole('heading', { name: de.arms.contaminationTitle }) });
    await panel.getByRole('rowheader', { name: de.careTeam.arms.cbt }).waitFor();
    await panel.scrollIntoViewIfNeeded();
    await screenshot(coord.page, 'arms-contamination-de-1280');
    const row = await panel.getByRole('row', { name: new RegExp(de.careTeam.arms.cbt) }).innerText();
    expect(row.split(/\s+/).slice(-5)).toEqual(['1', '1', '1', '1', '0']);
  });

  it('the therapist’s list holds the case’s sheets only; a letter from another arm’s template asks for the reason before it is sent', { timeout: 300_000 }, async () => {
    const template = await withOwner(t.database.db.pool, (sql) =>
      sql.query<{ id: string }>(
        `insert into app_public.content_templates (type, code, language_code, title, subject, content, treatment_code)
         values ('LETTER', 'iptWeek', 'ar', 'أسبوعك', 'أسبوعك', 'مرحباً {{patient_alias}}', 'IPT') returning id`,
      ),
    ).then((r) => r.rows[0]!.id);
    const desk = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(desk);
    const page = desk.page;
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    // The worksheet list: the CBT sheets and the IPT sheet sent in, not the other IPT sheets.
    const sheets = page.locator('section', { has: page.getByRole('heading', { name: de.therapy.caseExercisesTitle, exact: true }) });
    await sheets.getByRole('heading', { name: de.therapy.sheet.cbt_thoughts.title }).waitFor();
    await sheets.getByRole('heading', { name: de.therapy.sheet.ipt_conflicts.title }).waitFor();
    expect(await sheets.getByRole('heading', { name: de.therapy.sheet.ipt_situations.title }).count()).toBe(0);
    await sheets.getByText(de.trialRules.otherArmSheets).waitFor();

    const letters = page.locator('section', { has: page.getByRole('heading', { name: de.therapy.lettersTitle, exact: true }) });
    await letters.getByLabel(de.therapy.chooseTemplate).selectOption(template);
    await letters.getByRole('button', { name: de.therapy.startLetter }).click();
    await letters.getByText(de.trialRules.letterOtherArm).waitFor();
    await letters.scrollIntoViewIfNeeded();
    await screenshot(page, 'arms-letter-other-arm-de-1280');
    const before = await sends();
    await letters.getByRole('button', { name: de.therapy.sendLetter }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.trialRules.letterConfirmTitle).waitFor();
    await dialog.getByRole('button', { name: de.therapy.send, exact: true }).click(); // empty: not confirmed
    expect(await dialog.count()).toBe(1);
    await dialog.getByLabel(de.arms.reasonLabel).fill('Trauer nach dem Tod des Vaters.');
    await screenshot(page, 'arms-letter-reason-de-1280');
    await dialog.getByRole('button', { name: de.therapy.send, exact: true }).click();
    await letters.getByText('مرحباً').first().waitFor();
    const { rows } = await t.database.db.pool.query(`select kind, content, reason from app_public.out_of_arm_sends where kind = 'letter'`);
    expect(rows).toEqual([{ kind: 'letter', content: 'IPT', reason: 'Trauer nach dem Tod des Vaters.' }]);
    expect(await sends()).toBe(before + 1);

    // The same screen at 360 px: the warning and the list fit.
    const phone = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 360, height: 740 });
    opened.push(phone);
    await phone.page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await phone.page.getByRole('heading', { name: de.therapy.lettersTitle }).waitFor();
    await expectNoOverflow(phone.page, 'case page with arms (de, 360)');
    await screenshot(phone.page, 'arms-case-page-de-360');
  });
});
