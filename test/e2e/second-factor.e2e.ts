/**
 * The staff second factor in a real browser (issue 30 item 4), with MFA_REQUIRED_ROLES
 * "coordinator": a coordinator signing in is sent to the set-up before any other screen (ar,
 * 360 px), sets up the authenticator app from the key shown as text, sees the ten recovery codes
 * once; signs in again with password then code (a recovery code, spent once), signs an act in
 * the signing dialog with the code; another coordinator resets the lost device (de, desktop),
 * after which the first must set it up again.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { totpCode } from '../../src/server/signing/totp';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
const PASSWORD = 'correct horse battery';
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp({ MFA_REQUIRED_ROLES: 'coordinator' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signInThroughPage(page: Page, username: string): Promise<void> {
  await page.goto(`${t.url}/login`);
  await page.locator('input[name=username]').fill(username);
  await page.locator('input[name=password]').fill(PASSWORD);
  await page.locator('form button[type=submit]').click();
}

const enrolled = async (userId: string) => (await pool().query('select confirmed_at is not null as done from app_private.staff_mfa where user_id = $1', [userId])).rows[0]?.done === true;

describe('a coordinator and the second factor', () => {
  let recovery: string[] = [];
  let ranaId = '';

  it('is sent to the set-up first, sets it up from the key, and sees the recovery codes once (ar, 360 px)', { timeout: 120_000 }, async () => {
    const rana = await t.user({ flags: ['coordinator'], locale: 'ar', alias: 'رنا' });
    ranaId = rana.id;
    const { page } = await openPage(browser, { locale: 'ar', width: 360, height: 800 });
    await signInThroughPage(page, rana.username);
    // Any screen sends them to the set-up while it is not done.
    await page.waitForURL(/\/profile\/second-factor$/);
    await page.goto(`${t.url}/admin/cases`);
    await page.waitForURL(/\/profile\/second-factor$/);
    await page.getByText(ar.mfa.requiredNotice).waitFor();
    await page.getByRole('button', { name: ar.mfa.begin }).click();
    const key = ((await page.locator('.mfa-key code').textContent()) ?? '').replace(/\s/g, '');
    expect(key).toMatch(/^[A-Z2-7]{32}$/);
    expect(await page.locator('.mfa-uri a').getAttribute('href')).toMatch(/^otpauth:\/\/totp\//);
    await expectNoOverflow(page, 'second-factor set-up at 360 px');
    await expectAccessible(page, 'second-factor set-up (ar, 360)');
    await screenshot(page, 'mfa-enrol-ar-360');
    await page.getByLabel(ar.mfa.code).fill('000000' === totpCode(key, Date.now()) ? '111111' : '000000');
    await page.getByRole('button', { name: ar.mfa.confirm }).click();
    await page.getByText(ar.refusals.mfa_code_invalid).waitFor();
    expect(await enrolled(rana.id)).toBe(false);
    await page.getByLabel(ar.mfa.code).fill(totpCode(key, Date.now()));
    await page.getByRole('button', { name: ar.mfa.confirm }).click();
    await page.getByRole('heading', { name: ar.mfa.recoveryTitle }).waitFor();
    recovery = (await page.locator('.mfa-codes code').allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await expectNoOverflow(page, 'recovery codes at 360 px');
    await screenshot(page, 'mfa-recovery-ar-360');
    expect(await enrolled(rana.id)).toBe(true);
    // Stored hashed: no code is readable from the database.
    const stored = (await pool().query('select code_hash from app_private.mfa_recovery_codes where user_id = $1', [rana.id])).rows.map((r) => r.code_hash);
    for (const code of recovery) expect(stored).not.toContain(code);
    await page.getByRole('button', { name: ar.mfa.continue }).click();
    await page.waitForURL((url) => !url.pathname.startsWith('/profile/second-factor'));
  });

  it('signs in with password then a recovery code, which works once; signs an act with the code', { timeout: 120_000 }, async () => {
    const { page } = await openPage(browser, { locale: 'ar', width: 360, height: 800 });
    const username = (await pool().query('select username from app_public.users where id = $1', [ranaId])).rows[0].username as string;
    await signInThroughPage(page, username);
    await page.getByText(ar.mfa.signInCodeAsked).waitFor();
    await screenshot(page, 'mfa-sign-in-code-ar-360');
    await page.getByLabel(ar.mfa.signInCode).fill(recovery[0]!);
    await page.locator('form button[type=submit]').click();
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));

    // A signed act asks for the code as well: an exclusion, signed with the next recovery code.
    const patient = await t.user({ flags: ['patient'], locale: 'ar' });
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await page.getByLabel(ar.trial.exclusion.reason).fill('لا يوجد اتصال بالإنترنت');
    await page.getByRole('button', { name: ar.trial.exclusion.set }).click();
    await page.getByRole('dialog').getByRole('button', { name: ar.careTeam.confirm.excludeConfirm }).click();
    const signing = page.locator('dialog.signing');
    await signing.getByLabel(ar.signing.code).waitFor();
    await signing.locator('input[type=password]').fill(PASSWORD);
    await signing.getByLabel(ar.signing.code).fill(recovery[0]!);
    await screenshot(page, 'signing-dialog-code-ar-360');
    await signing.locator('button[type=submit]').click();
    // The spent recovery code is refused; nothing changed.
    await signing.getByText(ar.refusals.mfa_code_invalid).waitFor();
    const flag = async () =>
      (await pool().query('select u.excluded from app_public.case_members m join app_public.users u on u.id = m.user_id where m.case_id = $1 and m.acts_as_patient', [patient.caseId])).rows[0].excluded as boolean;
    expect(await flag()).toBe(false);
    await signing.getByLabel(ar.signing.code).fill(recovery[1]!);
    await signing.locator('button[type=submit]').click();
    await signing.waitFor({ state: 'detached' });
    await expect.poll(flag).toBe(true);
  });

  it('another coordinator resets the lost device, logged; then it must be set up again (de, desktop)', { timeout: 120_000 }, async () => {
    const other = await t.user({ flags: ['coordinator'], locale: 'de' });
    // The second coordinator sets up a factor by the API (the browser flow is tested above).
    const begun = await t.api('POST', '/api/auth/mfa/enrolment', { token: other.token, body: {} });
    expect((await t.api('POST', '/api/auth/mfa/enrolment/confirm', { token: other.token, body: { code: totpCode(begun.body.secret, Date.now()) } })).status).toBe(200);
    const { page } = await openPage(browser, { locale: 'de', width: 1280, height: 900 });
    await page.context().addInitScript((stored) => sessionStorage.setItem('authToken', stored), other.token);
    await page.goto(`${t.url}/profile/second-factor`);
    await page.getByRole('heading', { name: de.mfa.activeTitle }).waitFor();
    const rana = (await pool().query('select username, alias from app_public.users where id = $1', [ranaId])).rows[0];
    await page.getByLabel(de.mfa.resetPerson, { exact: true }).selectOption({ label: `${rana.alias} (${rana.username})` });
    await page.getByRole('button', { name: de.mfa.reset }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(de.mfa.resetReason).fill('Telefon verloren, per Video bestätigt');
    await expectAccessible(page, 'second-factor reset (de)');
    await screenshot(page, 'mfa-reset-de-1280');
    await dialog.getByRole('button', { name: de.mfa.reset }).click();
    await page.getByText(de.mfa.resetDone).waitFor();
    expect(await enrolled(ranaId)).toBe(false);
    const logged = await pool().query(`select actor_id, detail from app_public.account_log where user_id = $1 and event = 'mfa_reset'`, [ranaId]);
    expect(logged.rows).toEqual([{ actor_id: other.id, detail: { reason: 'Telefon verloren, per Video bestätigt' } }]);
    // No own reset: one's own account is not in the list.
    expect(await page.getByLabel(de.mfa.resetPerson, { exact: true }).locator('option').allTextContents()).not.toContain(other.username);
  });
});
