/**
 * Issue 14 in a real browser: a patient on a phone, in Arabic, fills a thought record, loses
 * the connection midway (the text waits on the device and is saved when the phone is back),
 * and sends it after the confirmation; the therapist, on a desktop in German, reads it on the
 * case page and sends feedback; the patient sees the feedback beside the entry. The therapist
 * writes a German letter from a template and sends it; the patient reads it among their letters.
 * A coordinator edits that template, sees the preview, and restores the earlier version.
 * The therapist inserts a message template (filled by the server in the patient's Arabic) into
 * the composer and sends it; the case page shows the worksheets the treatment assigned.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { addMember } from '../../src/server/admin/accounts';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

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
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function thoughts(): Promise<Record<string, unknown>[]> {
  return (await t.api('GET', `/api/cbt_thoughts?case_id=eq.${patient.caseId}`, { token: patient.token })).body;
}

describe('a thought record and its feedback', () => {
  it('is written on a phone in Arabic through a lost connection, sent, answered and read', { timeout: 300_000 }, async () => {
    const watched = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(watched);
    const page = watched.page;
    await page.goto(`${t.url}/all-exercises`);
    await page.getByRole('heading', { level: 1, name: ar.therapy.exercisesTitle }).waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await page.getByText(ar.therapy.state.todo).first().waitFor();
    await expectNoOverflow(page, 'exercises (ar, 360)');
    await screenshot(page, 'therapy-exercises-ar-360');

    await page.getByRole('button', { name: ar.therapy.newEntry }).first().click();
    await page.getByRole('heading', { name: ar.therapy.sheet.cbt_thoughts.title }).waitFor();
    await page.getByLabel(ar.therapy.field.situation).fill('اجتماع العائلة يوم الجمعة');
    await page.getByLabel(ar.therapy.field.automatic_thought).fill('لا أحد يهتم برأيي');
    await page.getByText(ar.therapy.saveState.saved).waitFor();
    await expect.poll(async () => (await thoughts())[0]?.automatic_thought).toBe('لا أحد يهتم برأيي');
    expect((await thoughts())[0]?.published_at).toBeNull();

    // The connection drops midway: the text waits on the device.
    await watched.context.setOffline(true);
    await page.getByLabel(ar.therapy.bias.mind_reading).check();
    await page.getByLabel(ar.therapy.field.alternative_thought).fill('أخي سألني عن رأيي الأسبوع الماضي');
    await page.getByText(ar.therapy.saveState.waiting).waitFor();
    const kept = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('sanad.unsent.')).map((k) => localStorage.getItem(k)).join());
    expect(kept).toContain('أخي سألني');
    await screenshot(page, 'therapy-thought-offline-ar-360');
    // Sending while offline is not possible: the patient is told, nothing is lost.
    await page.getByRole('button', { name: ar.therapy.send, exact: true }).click();
    await page.getByText(ar.therapy.notSavedYet).waitFor();
    await watched.context.setOffline(false);
    await page.getByText(ar.therapy.saveState.saved).waitFor();
    await expect.poll(async () => (await thoughts())[0]?.alternative_thought).toBe('أخي سألني عن رأيي الأسبوع الماضي');
    expect((await thoughts())[0]?.cognitive_biases).toEqual(['mind_reading']);
    await expectAccessible(page, 'thought record (ar, 360)');
    await expectNoOverflow(page, 'thought record (ar, 360)');

    // Sending asks first (spec §8); cancelling keeps the draft.
    await page.getByRole('button', { name: ar.therapy.send, exact: true }).click();
    const dialog = page.locator('dialog.confirm');
    await dialog.getByText(ar.therapy.confirmSendMessage).waitFor();
    await screenshot(page, 'therapy-confirm-ar-360');
    await dialog.getByRole('button', { name: ar.common.cancel }).click();
    expect((await thoughts())[0]?.published_at).toBeNull();
    await page.getByRole('button', { name: ar.therapy.send, exact: true }).click();
    await dialog.getByRole('button', { name: ar.therapy.send }).click();
    await page.getByText(ar.therapy.sentNote).waitFor();
    expect((await thoughts())[0]?.published_at).not.toBeNull();

    // The therapist reads it on the case page, in German, and answers.
    const staff = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(staff);
    await staff.page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await staff.page.getByRole('heading', { name: de.therapy.caseExercisesTitle }).waitFor();
    await staff.page.getByText('لا أحد يهتم برأيي').waitFor();
    await staff.page.getByLabel(de.therapy.feedbackLabel).fill('Gut bemerkt: Ihr Bruder hat Sie gefragt. Achten Sie diese Woche auf weitere Beispiele.');
    await staff.page.getByRole('button', { name: de.therapy.sendFeedback }).click();
    await staff.page.locator('dialog.confirm').getByRole('button', { name: de.therapy.send }).click();
    await staff.page.getByText(de.therapy.feedbackTitle).first().waitFor();
    await screenshot(staff.page, 'therapy-case-feedback-de-1280');
    await expectAccessible(staff.page, 'case exercises (de)');

    // The patient sees the feedback beside the entry and the state "feedback received".
    await page.goto(`${t.url}/all-exercises`);
    await page.getByText(ar.therapy.state.feedback).first().waitFor();
    await page.getByRole('button', { name: /أُرسل في/ }).first().click();
    await page.getByText('Gut bemerkt').waitFor();
    await screenshot(page, 'therapy-feedback-ar-360');
    const { rows } = await t.database.db.pool.query(`select kind from app_private.notification_queue where case_id = $1`, [patient.caseId]);
    expect(rows.map((r) => r.kind).sort()).toEqual(['new_worksheet', 'worksheet_feedback']);

    const errors = opened.flatMap((o) => o.consoleErrors).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|Failed to load resource/.test(e));
    expect(errors, JSON.stringify(errors)).toEqual([]);
  });

  it('a German letter is written from a template, previewed, sent and read by the patient', { timeout: 300_000 }, async () => {
    await withOwner(t.database.db.pool, (sql) =>
      sql.query(
        `insert into app_public.content_templates (type, code, language_code, title, subject, content, treatment_code)
         values ('LETTER', 'woche1', 'de', 'Brief nach Woche 1', 'Ihre erste Woche', E'Liebe {{patient_alias}},\\n\\nschön, dass Sie dabei sind.\\n\\nIhre {{therapist_alias}}', 'CBT')`,
      ),
    );
    const staff = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(staff);
    const page = staff.page;
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await page.getByRole('heading', { name: de.therapy.lettersTitle }).waitFor();
    await page.getByLabel(de.therapy.chooseTemplate).selectOption({ label: 'Brief nach Woche 1 · DE · CBT' });
    await page.getByRole('button', { name: de.therapy.startLetter }).click();
    const body = page.getByRole('textbox', { name: de.therapy.letterBody, exact: true });
    await expect.poll(() => body.inputValue()).toBe('Liebe ريم,\n\nschön, dass Sie dabei sind.\n\nIhre Frau Berg');
    await body.fill('Liebe ريم,\n\nschön, dass Sie dabei sind. Bis Donnerstag!\n\nIhre Frau Berg');
    await page.getByRole('button', { name: de.therapy.preview }).click();
    await page.getByRole('article', { name: de.therapy.preview }).getByText('Bis Donnerstag!').waitFor();
    await page.getByRole('button', { name: de.therapy.sendLetter }).click();
    await page.locator('dialog.confirm').getByText(de.therapy.confirmLetterMessage).waitFor();
    await page.locator('dialog.confirm').getByRole('button', { name: de.therapy.send }).click();
    await page.getByText(/Gesendet am/).first().waitFor();
    await screenshot(page, 'therapy-letter-sent-de-1280');
    const { rows } = await t.database.db.pool.query('select published_at, body from app_public.letters where case_id = $1', [patient.caseId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].published_at).not.toBeNull();

    const phone = await openSignedInPage(browser, patient.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(phone);
    await phone.page.goto(`${t.url}/treatment/past-letters`);
    await phone.page.getByRole('heading', { level: 1, name: ar.therapy.pastLettersTitle }).waitFor();
    await phone.page.getByText('Bis Donnerstag!').waitFor();
    expect(await phone.page.locator('article.therapy-letter').getAttribute('dir')).toBe('ltr');
    await expectAccessible(phone.page, 'past letters (ar, 360)');
    await expectNoOverflow(phone.page, 'past letters (ar, 360)');
    await screenshot(phone.page, 'therapy-past-letters-ar-360');
  });

  it('a coordinator edits a letter template with a preview and restores the earlier version', { timeout: 300_000 }, async () => {
    const watched = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(watched);
    const page = watched.page;
    await page.goto(`${t.url}/admin/templates`);
    await page.getByRole('heading', { level: 1, name: de.therapy.templatesTitle }).waitFor();
    await page.getByRole('button', { name: 'woche1 · DE · CBT' }).click();
    const content = page.getByRole('textbox', { name: de.therapy.templateContent });
    const original = await content.inputValue();
    expect(original).toContain('{{patient_alias}}');
    // An unknown placeholder is pointed out before saving, and saving waits for it.
    await content.fill(`${original}\n\n{{shoe_size}}`);
    await page.getByText(/Unbekannte Platzhalter: \{\{shoe_size\}\}/).waitFor();
    expect(await page.getByRole('button', { name: de.common.save }).isDisabled()).toBe(true);
    await content.fill('# Woche 1\n\nLiebe {{patient_alias}},\n\n- **erstens**\n- zweitens');
    await page.getByRole('region', { name: de.therapy.preview }).getByRole('heading', { name: 'Woche 1' }).waitFor();
    await page.getByRole('region', { name: de.therapy.preview }).locator('strong', { hasText: 'erstens' }).waitFor();
    await page.getByRole('button', { name: de.common.save }).click();
    await page.getByText(de.therapy.templateSaved).waitFor();
    await page.getByRole('button', { name: 'Version 1 wiederherstellen' }).waitFor();
    await screenshot(page, 'therapy-templates-de-1280');
    await expectAccessible(page, 'templates (de)');

    await page.getByRole('button', { name: 'Version 1 wiederherstellen' }).click();
    await page.locator('dialog.confirm').getByRole('button', { name: de.therapy.restore }).click();
    await page.getByRole('button', { name: 'Version 2 wiederherstellen' }).waitFor();
    await expect.poll(() => content.inputValue()).toBe(original);
    const { rows } = await t.database.db.pool.query(
      `select t.content, (select max(version) from app_public.content_template_versions v where v.template_id = t.id) as versions
         from app_public.content_templates t where code = 'woche1'`,
    );
    expect(rows[0]).toEqual({ content: original, versions: 3 });

    // A new Arabic template is written right-to-left.
    await page.getByRole('button', { name: de.therapy.newTemplate }).click();
    await page.locator('form.therapy-template-editor').getByLabel(de.therapy.templateLanguage, { exact: true }).selectOption('ar');
    expect(await page.getByRole('textbox', { name: de.therapy.templateContent }).getAttribute('dir')).toBe('rtl');
  });
});

describe('a message template in the composer', () => {
  it('is filled by the server for the case in the patient\'s language, edited and sent', { timeout: 180_000 }, async () => {
    await withOwner(t.database.db.pool, (sql) =>
      sql.query(
        `insert into app_public.content_templates (type, code, language_code, title, subject, content) values
           ('MESSAGE', 'session-reminder', 'ar', 'تذكير بالجلسة', 'تذكير', E'مرحبًا {{patient_alias}}،\nنلتقي غدًا كما اتفقنا.\n{{therapist_alias}}'),
           ('MESSAGE', 'session-reminder', 'de', 'Sitzungserinnerung', 'Erinnerung', E'Hallo {{patient_alias}}')`,
      ),
    );
    const staff = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(staff);
    const page = staff.page;
    await page.goto(`${t.url}/conversation`);
    await page.getByRole('button', { name: de.messages.write }).click();
    // The patient reads Arabic, so the Arabic variant is offered and filled.
    await page.getByLabel(de.messages.template).selectOption({ label: 'تذكير بالجلسة' });
    await page.getByRole('button', { name: de.messages.insertTemplate }).click();
    const body = page.getByRole('textbox', { name: de.messages.body, exact: true });
    await expect.poll(() => body.inputValue()).toBe('مرحبًا ريم،\nنلتقي غدًا كما اتفقنا.\nFrau Berg');
    expect(await page.getByLabel(de.messages.subject).inputValue()).toBe('تذكير');
    await page.getByText(de.messages.templateInserted).waitFor();
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLTextAreaElement | null)?.name)).toBe('body');
    await body.fill(`${await body.inputValue()}\nالساعة العاشرة.`);
    await page.getByLabel(de.messages.groups.patients).check();
    await expectAccessible(page, 'composer with a template (de)');
    await screenshot(page, 'therapy-message-template-de-1280');
    await page.getByRole('button', { name: de.common.send, exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: de.common.send, exact: true }).click();
    await page.getByText(de.messages.sentNotice).waitFor();
    const { rows } = await t.database.db.pool.query(`select body, sent_at from app_public.case_messages where case_id = $1 and subject = 'تذكير'`, [patient.caseId]);
    expect(rows).toHaveLength(1);
    expect(rows[0].body).toBe('مرحبًا ريم،\nنلتقي غدًا كما اتفقنا.\nFrau Berg\nالساعة العاشرة.');
    expect(rows[0].sent_at).not.toBeNull();

    // The same composer on a phone in Arabic fits 360 px.
    const phone = await openSignedInPage(browser, therapist.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(phone);
    await phone.page.goto(`${t.url}/conversation`);
    await phone.page.getByRole('button', { name: ar.messages.write }).click();
    await phone.page.getByLabel(ar.messages.template).selectOption({ label: 'تذكير بالجلسة' });
    await phone.page.getByRole('button', { name: ar.messages.insertTemplate }).click();
    await phone.page.getByText(ar.messages.templateInserted).waitFor();
    await expectNoOverflow(phone.page, 'composer with a template (ar, 360)');
    await screenshot(phone.page, 'therapy-message-template-ar-360');
  });
});

describe('the worksheets the treatment assigns (treatment modules)', () => {
  it('come first on /all-exercises with their due date, and show as done once sent', { timeout: 180_000 }, async () => {
    // The demo configuration (workflows/treatment-modules.json): arm cbt, thought record in week 1.
    const moduleTherapy = await t.user({ flags: ['patient'], locale: 'de' });
    // A fixture of an assignment the trial's randomization step would have made (the step's own door,
    // 0150's _050_in_step, is tested in one-door.int.test.ts).
    await t.database.db.pool.query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
    await t.database.db.pool.query(
      `insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'cbt', '*', 'blocks')`,
      [moduleTherapy.caseId],
    );
    await t.sanad.workflow.tick();
    await t.sanad.workflow.tick();

    const watched = await openSignedInPage(browser, moduleTherapy.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(watched);
    const page = watched.page;
    await page.goto(`${t.url}/all-exercises`);
    const first = page.locator('li.therapy-sheet').first();
    await first.getByRole('heading', { name: de.therapy.sheet.cbt_thoughts.title }).waitFor();
    const due = de.therapy.assignedDue.split('{{')[0]!;
    await expect.poll(async () => (await first.locator('.therapy-assigned').textContent()) ?? '').toContain(due);
    await expect.poll(() => page.locator('.therapy-assigned').count()).toBe(3);
    await screenshot(page, 'therapy-modules-de-1280');

    const row: Record<string, unknown> = {
      id: crypto.randomUUID(),
      case_id: moduleTherapy.caseId,
      situation: 'Im Büro',
      automatic_thought: 'Das schaffe ich nie',
      cognitive_biases: ['fortune_telling'],
      alternative_thought: 'Ich habe Ähnliches schon geschafft',
      published_at: new Date().toISOString(),
    };
    const sent = await t.api('POST', '/api/cbt_thoughts', { body: row, token: moduleTherapy.token, headers: { Prefer: 'return=representation' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    await t.sanad.workflow.tick();
    await page.reload();
    await page.locator('li.therapy-sheet').first().getByText(de.therapy.assignedDone).waitFor();
    expect(await page.getByText(de.therapy.assignedDone).count()).toBe(1);

    const phone = await openSignedInPage(browser, moduleTherapy.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(phone);
    await phone.page.goto(`${t.url}/all-exercises`);
    await phone.page.getByText(ar.therapy.assignedDone).waitFor();
    await expectNoOverflow(phone.page, 'assigned worksheets (ar, 360)');
    await screenshot(phone.page, 'therapy-modules-ar-360');

    // The therapist sees the same assignments on the case page, with their state, no drafts.
    await addMember(t.database.db.pool, moduleTherapy.caseId!, therapist.username, ['therapist']);
    const staff = await openSignedInPage(browser, therapist.token, { locale: 'de', width: 1280, height: 900 });
    opened.push(staff);
    await staff.page.goto(`${t.url}/admin/cases/${moduleTherapy.caseId}`);
    const overview = staff.page.locator('.therapy-assigned-list');
    await overview.getByRole('link', { name: de.therapy.sheet.cbt_thoughts.title }).waitFor();
    await expect.poll(() => overview.locator('li').count()).toBe(3);
    await overview.locator('li').first().getByText(de.therapy.staffAssigned.done).waitFor();
    await overview.locator('li').first().getByText(de.therapy.staffState.awaitingFeedback).waitFor();
    await expect.poll(() => overview.getByText(de.therapy.staffState.notSent).count()).toBe(2);
    await staff.page.getByText('Das schaffe ich nie').waitFor();
    await expectAccessible(staff.page, 'case exercises with assignments (de)');
    await screenshot(staff.page, 'therapy-case-assigned-de-1280');
    const staffPhone = await openSignedInPage(browser, therapist.token, { locale: 'ar', width: 360, height: 740 });
    opened.push(staffPhone);
    await staffPhone.page.goto(`${t.url}/admin/cases/${moduleTherapy.caseId}`);
    await staffPhone.page.locator('.therapy-assigned-list').getByText(ar.therapy.staffAssigned.done).waitFor();
    await expectNoOverflow(staffPhone.page, 'case exercises (ar, 360)');
    await screenshot(staffPhone.page, 'therapy-case-assigned-ar-360');
  });
});
