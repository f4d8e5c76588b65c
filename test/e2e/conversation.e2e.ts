/**
 * The case workspace in a real browser: a patient and a therapist write to each other (the
 * patient in Arabic on a phone), unread markers and the badge follow what was read, a
 * coordinator assigns a therapist and finds it in the case log, deleting a draft asks first,
 * and no screen logs a console error or has a serious accessibility violation.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { shortId } from '../../src/domain/short-id';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openMenu, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let therapist: Person;
let coordinator: Person;
let newTherapist: Person;
let otherPatient: Person;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'سلمى' });
  therapist = await t.user({ flags: ['therapist'], locale: 'en', alias: 'Dr. Amal', timeZone: 'Europe/Berlin' });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'], locale: 'en', alias: 'Coordinator Nour' });
  newTherapist = await t.user({ flags: ['therapist'], locale: 'en', alias: 'Dr. Karim' });
  otherPatient = await t.user({ flags: ['patient'], locale: 'en', alias: 'Yusuf' });
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A page signed in as `person` through the stored token, as the app itself keeps it. */
async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width = 360): Promise<WatchedPage> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched;
}

async function open(page: Page, path: string): Promise<void> {
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
}



function badge(page: Page) {
  return page.getByTestId('unread-badge');
}

function expectNoConsoleErrors(): void {
  // The offline step's refused requests are expected; anything else is a failure.
  const errors = opened.flatMap((o) => o.consoleErrors).filter((e) => !/ERR_INTERNET_DISCONNECTED|Failed to fetch|Failed to load resource/.test(e));
  expect(errors, JSON.stringify(errors)).toEqual([]);
}

describe('conversation between a patient and a therapist', () => {
  const subject = 'سؤال عن الموعد';
  const body = 'مرحبًا، هل يمكن تغيير موعد الجلسة القادمة؟\nشكرًا لك.';
  const answer = 'Of course. Would Thursday at 10:00 suit you?';

  it('carries a message there and an answer back, with unread markers and the badge', { timeout: 180_000 }, async () => {
    // The patient writes in Arabic on a phone.
    const p = await pageAs(patient, 'ar', 360);
    await open(p.page, '/conversation');
    await p.page.getByRole('heading', { level: 1, name: ar.nav.conversation }).waitFor();
    await p.page.getByRole('button', { name: ar.messages.write }).click();
    // A patient may write to the care team, not to other patients.
    await expect.poll(() => p.page.getByLabel(ar.messages.groups.patients).count()).toBe(0);
    await p.page.getByLabel(ar.messages.groups.therapists).check();
    await p.page.getByLabel(ar.messages.subject).fill(subject);
    await p.page.getByRole('textbox', { name: ar.messages.body, exact: true }).fill(body);
    await expectNoOverflow(p.page, 'composer at 360 px');
    await screenshot(p.page, 'conversation-compose-ar-360');
    await p.page.getByRole('button', { name: ar.common.send, exact: true }).click();
    // Sending is final (spec §8): it asks first, in Arabic.
    const sendDialog = p.page.getByRole('dialog');
    await sendDialog.getByText(ar.confirmPrompts.sendFinalMessage).waitFor();
    await screenshot(p.page, 'conversation-send-final-ar-360');
    await sendDialog.getByRole('button', { name: ar.common.send, exact: true }).click();
    await p.page.getByText(ar.messages.sentNotice).waitFor();
    const mine = p.page.locator('.message', { hasText: subject });
    await mine.waitFor();
    expect(await mine.locator('.message__subject').getAttribute('dir')).toBe('auto');
    await expect.poll(() => mine.getByText(ar.messages.you).count()).toBe(1);
    await expectAccessible(p.page, '/conversation (ar)');
    // Issue 28: the send went with an Idempotency-Key (a version-4 UUID the web app makes with
    // crypto.getRandomValues), whose answer the server kept for a retry.
    const { rows: keys } = await t.database.db.pool.query<{ key: string }>('select key from app_private.idempotency_keys where user_id = $1 and status_code = 200', [patient.id]);
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const { key } of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The therapist finds it unread, in the case list (a count) and in the conversation.
    const th = await pageAs(therapist, 'en', 1280);
    await open(th.page, '/admin/cases');
    const row = th.page.locator('tr', { hasText: shortId(patient.caseId!) });
    await row.waitFor();
    await expect.poll(() => row.locator('[data-col="newMessages"] .badge').textContent()).toBe('1');
    await expectAccessible(th.page, '/admin/cases (en)');
    await screenshot(th.page, 'cases-en-1280');
    await open(th.page, '/conversation');
    const received = th.page.locator('.message--unread', { hasText: subject });
    await received.waitFor();
    await expect.poll(() => received.getByText(en.messages.unread, { exact: true }).count()).toBe(1);
    await expect.poll(() => received.getByText('سلمى').count()).toBe(1);
    await expect.poll(() => badge(th.page).textContent()).toBe('1');
    await expectAccessible(th.page, '/conversation (en)');
    await screenshot(th.page, 'conversation-en-1280');

    // Reading it marks it read; answering preselects the patients, the sender's group.
    await received.getByRole('button', { name: new RegExp(subject) }).click();
    const read = th.page.getByRole('region', { name: subject });
    await read.getByText('هل يمكن تغيير موعد الجلسة القادمة؟').waitFor();
    expect(await read.locator('.message__body').getAttribute('dir')).toBe('auto');
    await expect.poll(() => th.page.locator('.message--unread').count()).toBe(0);
    await expect.poll(() => badge(th.page).count()).toBe(0);
    await read.getByRole('button', { name: en.messages.reply }).click();
    await expect.poll(() => th.page.getByLabel(en.messages.groups.patients).isChecked()).toBe(true);
    await expect.poll(() => th.page.getByLabel(en.messages.subject).inputValue()).toBe(`Re: ${subject}`);
    await th.page.getByRole('textbox', { name: en.messages.body, exact: true }).fill(answer);
    await th.page.getByRole('button', { name: en.common.send, exact: true }).click();
    await th.page.getByRole('dialog').getByRole('button', { name: en.common.send, exact: true }).click();
    await th.page.getByText(en.messages.sentNotice).waitFor();

    // The patient sees the answer as new, and the badge clears once it is read.
    await open(p.page, '/conversation');
    const reply = p.page.locator('.message--unread', { hasText: `Re: ${subject}` });
    await reply.waitFor();
    await expect.poll(() => reply.getByText('Dr. Amal').count()).toBe(1);
    await expect.poll(() => badge(p.page).textContent()).toBe('1');
    await screenshot(p.page, 'conversation-unread-ar-360');
    await reply.getByRole('button', { name: new RegExp(`Re: ${subject}`) }).click();
    await p.page.getByText(answer).waitFor();
    await expect.poll(() => badge(p.page).count()).toBe(0);
    await expect.poll(() => p.page.locator('.message--unread').count()).toBe(0);
    await expectNoOverflow(p.page, '/conversation at 360 px');

    // The favourite star toggles and stays after a reload.
    const star = p.page.locator('.message', { hasText: `Re: ${subject}` }).getByRole('button', { name: ar.messages.favorite });
    await star.click();
    await expect.poll(() => star.getAttribute('aria-pressed')).toBe('true');
    await open(p.page, '/conversation');
    await expect.poll(() => p.page.locator('.message', { hasText: `Re: ${subject}` }).getByRole('button', { name: ar.messages.favorite }).getAttribute('aria-pressed')).toBe('true');

    // The case list on a phone: cards, no sideways scrolling.
    const phone = await pageAs(therapist, 'ar', 360);
    await open(phone.page, '/admin/cases');
    await phone.page.locator('.case-cards li', { hasText: shortId(patient.caseId!) }).waitFor();
    await expectNoOverflow(phone.page, '/admin/cases at 360 px');
    await expectAccessible(phone.page, '/admin/cases (ar, 360 px)');
    await screenshot(phone.page, 'cases-ar-360');
    expectNoConsoleErrors();
  });
});

describe('drafts and leaving the composer', () => {
  it('asks before deleting a draft and before closing or leaving with text', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(therapist, 'en', 390);
    await open(page, '/conversation');
    await page.getByRole('button', { name: en.messages.write }).click();
    await page.getByLabel(en.messages.groups.patients).check();
    await page.getByLabel(en.messages.subject).fill('Plan for next week');
    await page.getByRole('textbox', { name: en.messages.body, exact: true }).fill('A first idea, to finish later.');
    await page.getByRole('button', { name: en.messages.saveDraft }).click();
    await page.getByText(en.messages.draftSaved).waitFor();
    const draft = page.locator('.message--draft', { hasText: 'Plan for next week' });
    await draft.waitFor();

    // Sending the stored draft while its open copy has unsaved edits says "save first".
    await page.getByRole('textbox', { name: en.messages.body, exact: true }).fill('A first idea, changed.');
    await draft.getByRole('button', { name: new RegExp(`^${en.common.send}`) }).click();
    const hint = page.getByText(en.confirmPrompts.saveFirst);
    await hint.waitFor();
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe(en.confirmPrompts.saveFirst);
    await page.getByRole('button', { name: en.messages.saveDraft }).click();
    await page.getByText(en.messages.draftSaved).waitFor();
    await expect.poll(() => hint.count()).toBe(0);
    await page.getByRole('button', { name: en.messages.close }).click();

    // Sending a draft asks first (spec §8 "send final"); "cancel" keeps it a draft.
    await draft.getByRole('button', { name: new RegExp(`^${en.common.send}`) }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(en.confirmPrompts.sendFinalTitle).waitFor();
    await dialog.getByText(en.confirmPrompts.sendFinalMessage).waitFor();
    await dialog.getByRole('button', { name: en.common.cancel }).click();
    await expect.poll(() => draft.count()).toBe(1);

    // Deleting asks; cancelling keeps the draft, confirming removes it.
    await draft.getByRole('button', { name: new RegExp(`^${en.messages.deleteDraft}`) }).click();
    await dialog.getByText(en.confirmPrompts.deleteDraftTitle).waitFor();
    await dialog.getByText(en.confirmPrompts.deleteDraftMessage).waitFor();
    await dialog.getByRole('button', { name: en.common.cancel }).click();
    await expect.poll(() => draft.count()).toBe(1);
    await draft.getByRole('button', { name: new RegExp(`^${en.messages.deleteDraft}`) }).click();
    await dialog.getByRole('button', { name: en.messages.deleteDraft }).click();
    await page.getByText(en.messages.draftDeleted).waitFor();
    await expect.poll(() => draft.count()).toBe(0);

    // Closing the composer with text asks "close without saving"; the text survives a "no".
    await page.getByRole('button', { name: en.messages.write }).click();
    await page.getByRole('textbox', { name: en.messages.body, exact: true }).fill('Unfinished thought');
    await page.getByRole('button', { name: en.messages.close }).click();
    await dialog.getByText(en.confirmPrompts.closeWithoutSavingTitle).waitFor();
    await dialog.getByRole('button', { name: en.common.cancel }).click();
    await expect.poll(() => page.getByRole('textbox', { name: en.messages.body, exact: true }).inputValue()).toBe('Unfinished thought');

    // Sending without a recipient group is refused on the spot, keeping the text.
    await page.getByRole('button', { name: en.common.send, exact: true }).click();
    await page.getByText(en.fieldErrors.message_recipients_required).waitFor();
    await expect.poll(() => page.getByRole('textbox', { name: en.messages.body, exact: true }).inputValue()).toBe('Unfinished thought');

    // A send that fails (offline) moves the focus to the error summary; the text stays.
    await page.getByLabel(en.messages.groups.patients).check();
    await page.context().setOffline(true);
    await page.getByRole('button', { name: en.common.send, exact: true }).click();
    await dialog.getByRole('button', { name: en.common.send, exact: true }).click();
    // The web app sends a lost write again twice (after 1 s and 3 s, same Idempotency-Key) first.
    await expect.poll(() => page.evaluate(() => document.activeElement?.className), { timeout: 15_000 }).toBe('alert alert--error');
    await page.context().setOffline(false);
    await expect.poll(() => page.getByRole('textbox', { name: en.messages.body, exact: true }).inputValue()).toBe('Unfinished thought');

    // Leaving for another page asks "discard changes"; staying keeps the text.
    await openMenu(page, en.shell.menu);
    await page.getByRole('link', { name: en.nav.home, exact: true }).click();
    await dialog.getByText(en.confirmPrompts.discardTitle).waitFor();
    await dialog.getByRole('button', { name: en.common.cancel }).click();
    expect(new URL(page.url()).pathname).toBe('/conversation');
    await expect.poll(() => page.getByRole('textbox', { name: en.messages.body, exact: true }).inputValue()).toBe('Unfinished thought');
    await page.getByRole('button', { name: en.messages.close }).click();
    await dialog.getByRole('button', { name: en.messages.closeAnyway }).click();
    await expect.poll(() => page.getByRole('textbox', { name: en.messages.body, exact: true }).count()).toBe(0);
    expectNoConsoleErrors();
  });
});

describe('the composer at desktop width in German', () => {
  it('asks before sending and focuses the error summary of a failed send', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(therapist, 'de', 1280);
    await open(page, '/conversation');
    await page.getByRole('button', { name: de.messages.write }).click();
    await page.getByLabel(de.messages.groups.patients).check();
    await page.getByRole('textbox', { name: de.messages.body, exact: true }).fill('Bis Donnerstag.');
    await page.getByRole('button', { name: de.common.send, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.confirmPrompts.sendFinalMessage).waitFor();
    await screenshot(page, 'conversation-send-final-de-1280');
    await page.context().setOffline(true);
    await dialog.getByRole('button', { name: de.common.send, exact: true }).click();
    // The web app sends a lost write again twice (after 1 s and 3 s, same Idempotency-Key) first.
    await expect.poll(() => page.evaluate(() => document.activeElement?.className), { timeout: 15_000 }).toBe('alert alert--error');
    await screenshot(page, 'conversation-send-failed-de-1280');
    await page.context().setOffline(false);
    await page.getByRole('button', { name: de.common.send, exact: true }).click();
    await dialog.getByRole('button', { name: de.common.send, exact: true }).click();
    await page.getByText(de.messages.sentNotice).waitFor();
    expectNoConsoleErrors();
  });
});

describe('case membership and the case log', () => {
  it('lets a coordinator assign a therapist, and the log shows who did it', { timeout: 120_000 }, async () => {
    const caseId = otherPatient.caseId!;
    const { page } = await pageAs(coordinator, 'en', 1280);
    await open(page, `/admin/cases/${caseId}`);
    await page.getByRole('heading', { level: 1, name: `Case ${shortId(caseId)}` }).waitFor();
    await page.getByLabel(en.cases.chooseStaff).selectOption({ label: `Dr. Karim (${newTherapist.username})` });
    const form = page.locator('section', { has: page.getByRole('heading', { name: en.cases.addMember }) });
    // The account's kind preselects the role it usually takes.
    await expect.poll(() => form.getByLabel(en.roles.therapist).isChecked()).toBe(true);
    await form.getByRole('button', { name: en.cases.addToCase }).click();
    await page.getByText(en.cases.added.replace('{{name}}', 'Dr. Karim')).waitFor();
    const member = page.locator('.member', { hasText: newTherapist.username });
    await member.waitFor();
    await expect.poll(() => member.getByText(en.roles.therapist).count()).toBe(1);

    // Adding the same person again is refused with a reason, and the choice stays.
    await form.getByLabel(en.cases.findByUsername).fill(newTherapist.username);
    await form.getByRole('button', { name: en.cases.find }).click();
    await expect.poll(() => page.getByLabel(en.cases.chooseStaff).inputValue()).toBe(newTherapist.id);
    await form.getByRole('button', { name: en.cases.addToCase }).click();
    await form.getByText(en.errorCodes.already_member).waitFor();
    await expect.poll(() => page.getByLabel(en.cases.chooseStaff).inputValue()).toBe(newTherapist.id);
    await expectAccessible(page, `/admin/cases/${caseId}`);
    await screenshot(page, 'case-detail-en-1280');

    // The case log, newest first: the new membership, by the coordinator.
    await open(page, `/admin/cases/${caseId}/log`);
    const first = page.locator('.log-entry').first();
    await first.waitFor();
    // Said as a sentence; the raw change is folded away.
    await expect.poll(() => first.locator('.log-entry__what').textContent()).toBe(
      en.caseLog.said.memberAdded.replace('{{who}}', 'Coordinator Nour').replace('{{member}}', 'Dr. Karim').replace('{{roles}}', en.roles.therapist),
    );
    await first.getByText(en.caseLog.showChange).click();
    await expect.poll(() => first.textContent()).toContain(en.auditFields.acts_as_therapist);
    await screenshot(page, 'case-log-en-1280');
    // Filtering by operation narrows the list to the kind asked for.
    await page.getByLabel(en.caseLog.operation).selectOption('UPDATE');
    await expect.poll(() => page.locator('.log-entry', { hasText: 'added Dr. Karim' }).count()).toBe(0);
    await expectAccessible(page, `/admin/cases/${caseId}/log`);

    // A therapist of the case sees it read-only.
    const th = await pageAs(newTherapist, 'en', 1280);
    await open(th.page, `/admin/cases/${caseId}`);
    await th.page.locator('.member', { hasText: newTherapist.username }).waitFor();
    await expect.poll(() => th.page.getByRole('button', { name: en.common.save }).count()).toBe(0);
    await expect.poll(() => th.page.getByRole('button', { name: en.cases.addToCase }).count()).toBe(0);
    expectNoConsoleErrors();
  });
});
