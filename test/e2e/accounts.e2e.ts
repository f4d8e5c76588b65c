/**
 * Account flows in a real browser: register → confirm from the outbox mail → sign in →
 * profile → sign out, in Arabic and in German; sign-in failures; the unsaved-changes prompt.
 */
import fs from 'node:fs';
import path from 'node:path';
import PostalMime from 'postal-mime';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { outboxDirectory } from '../../src/server/mail/mailer';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser, openMenu, openPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
beforeAll(async () => {
  // No SMTP_URL: mails land in DATA_DIR/outbox, as on a fresh install.
  t = await startTestApp({ SMTP_URL: '' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function outboxLink(email: string, pathPrefix: string): Promise<string> {
  const dir = outboxDirectory(t.config.dataDir);
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const file of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
      const mail = await PostalMime.parse(fs.readFileSync(path.join(dir, file)));
      if (!mail.to?.some((to) => to.address?.toLowerCase() === email.toLowerCase())) continue;
      const match = new RegExp(`https?://[^\\s]+(${pathPrefix}\\?token=[A-Za-z0-9_-]+)`).exec(mail.text ?? '');
      if (match?.[1]) return match[1];
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no mail with ${pathPrefix} to ${email} in the outbox`);
}

const catalogs = { ar, de } as const;

describe.each(['ar', 'de'] as const)('the account journey in %s', (locale) => {
  it('registers, confirms from the outbox mail, signs in, edits the profile and signs out', async () => {
    const strings = catalogs[locale];
    const { page, consoleErrors, context } = await openPage(browser, { locale });
    const username = `e2e_${locale}_${Date.now().toString(36)}`;
    const email = `${username}@example.org`;
    const password = 'a calm long password';

    await page.goto(`${t.url}/register`);
    await page.getByRole('heading', { level: 1, name: strings.register.title }).waitFor();
    expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
    expect(await page.getAttribute('html', 'lang')).toBe(locale);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=email]', email);
    await page.fill('input[name=password]', password);
    await page.fill('input[name=passwordRepeat]', password);
    await page.fill('input[name=alias]', 'Amal');
    await page.check('input[name=agreedToTerms]');
    await page.check('input[name=agreedToPrivacyPolicy]');
    await page.check('input[name=confirmedAdult]');
    await screenshot(page, `register-${locale}-360`);
    await page.click('button[type=submit]');
    await page.getByText(strings.register.sent.split('{{')[0]!.trim()).waitFor();

    const link = await outboxLink(email, '/confirm-registration');
    await page.goto(t.url + link);
    await page.getByText(strings.confirm.registrationDone).waitFor();

    await page.goto(`${t.url}/login`);
    await page.fill('input[name=username]', username);
    await page.fill('input[name=password]', password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.url}/`);
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Amal' }).waitFor();
    await screenshot(page, `home-patient-${locale}-360`);

    await page.goto(`${t.url}/profile`);
    const alias = page.getByLabel(strings.register.alias);
    await alias.fill('Amal N.');
    await page.getByRole('button', { name: strings.common.save }).click();
    await page.getByText(strings.profile.saved).waitFor();
    const token = await page.evaluate(() => sessionStorage.getItem('authToken'));
    const me = await t.api('GET', '/api/auth/users/me', { token: token! });
    expect(me.body.alias).toBe('Amal N.');
    expect(me.body.locale).toBe(locale);
    await screenshot(page, `profile-${locale}-360`);

    await page.getByRole('button', { name: strings.nav.signOut }).click();
    await page.waitForURL(/\/login\?returnTo=%2Fprofile/);
    expect(await page.evaluate(() => sessionStorage.getItem('authToken'))).toBeNull();
    expect((await t.api('GET', '/api/auth/users/me', { token: token! })).status).toBe(401);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });
});

describe('sign-in failures', () => {
  // Issue 16: no lock any more; after a few failures the sign-in asks to wait a growing while.
  it('says when the password is wrong, then how long to wait after too many failures', async () => {
    const user = await t.user({});
    const { page, context } = await openPage(browser, { locale: 'de' });
    await page.goto(`${t.url}/login`);
    const attempt = async (password: string) => {
      await page.fill('input[name=username]', user.username);
      await page.fill('input[name=password]', password);
      const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/tokens'));
      await page.click('button[type=submit]');
      await answered;
      await page.getByRole('button', { name: de.login.submit }).waitFor();
    };
    for (let i = 0; i < 4; i++) {
      await attempt(`wrong password ${i}`);
      await page.getByText(de.login.invalidCredentials).waitFor();
    }
    // The fifth failure starts a one-second wait; the next attempt at once is asked to wait.
    await attempt('wrong password 5');
    await attempt('wrong password 6');
    await page.getByText(de.hardening.tooManyAttempts.split('{{')[0]!.trim()).waitFor();
    await screenshot(page, 'login-wait-de-360');
    await context.close();
  });

  it('says when the email address is not confirmed yet, and links to a new link', async () => {
    const user = await t.user({ confirmed: false });
    const { page, context } = await openPage(browser, { locale: 'ar' });
    await page.goto(`${t.url}/login`);
    await page.fill('input[name=username]', user.username);
    await page.fill('input[name=password]', user.password);
    await page.click('button[type=submit]');
    await page.getByText(ar.login.unconfirmed).waitFor();
    await page.getByRole('link', { name: ar.login.resendLink }).first().click();
    await page.waitForURL(`${t.url}/resend-confirmation`);
    await context.close();
  });
});

describe('unsaved changes', () => {
  it('asks before leaving the profile with changes, and stays when told to', async () => {
    const user = await t.user({ locale: 'de' });
    const { page, context } = await openPage(browser, { locale: 'de' });
    await context.addInitScript((token) => sessionStorage.setItem('authToken', token), user.token);
    await page.goto(`${t.url}/profile`);
    await page.getByLabel(de.register.alias).fill('Changed');
    await openMenu(page, de.shell.menu);
    await page.getByRole('link', { name: de.nav.home, exact: true }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.confirmPrompts.discardMessage).waitFor();
    await dialog.getByRole('button', { name: de.common.cancel }).click();
    expect(new URL(page.url()).pathname).toBe('/profile');
    await openMenu(page, de.shell.menu);
    await page.getByRole('link', { name: de.nav.home, exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: de.confirmPrompts.discard }).click();
    await page.waitForURL(`${t.url}/`);
    await context.close();
  });
});

describe('the other account flows, in English', () => {
  it('resets a forgotten password from the mailed link and signs in with it', async () => {
    const user = await t.user({ locale: 'en' });
    const { page, context, consoleErrors } = await openPage(browser, { locale: 'en' });
    await page.goto(`${t.url}/reset-password`);
    await page.getByLabel(en.register.email).fill(user.email);
    await page.getByRole('button', { name: en.common.send }).click();
    await page.getByText(en.reset.done).waitFor();
    await page.goto(t.url + (await outboxLink(user.email, '/confirm-reset')));
    await page.getByLabel(en.confirm.newPassword).fill('a freshly chosen secret');
    await page.getByLabel(en.register.passwordRepeat).fill('a freshly chosen secret');
    await page.getByRole('button', { name: en.confirm.setPassword }).click();
    await page.getByText(en.confirm.resetDone).waitFor();
    await page.goto(`${t.url}/login`);
    await page.fill('input[name=username]', user.username);
    await page.fill('input[name=password]', 'a freshly chosen secret');
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.url}/`);
    expect(consoleErrors).toEqual([]);
    await context.close();
  });

  it('changes the email address and the password on the profile', async () => {
    const user = await t.user({ locale: 'en' });
    const { page, context } = await openPage(browser, { locale: 'en' });
    await context.addInitScript((token) => sessionStorage.setItem('authToken', token), user.token);
    await page.goto(`${t.url}/profile`);
    const newEmail = `changed-${user.email}`;
    await page.getByLabel(en.profile.newEmail).fill(newEmail);
    await page.locator('section[aria-labelledby=profile-email]').getByLabel(en.login.password).fill(user.password);
    await page.getByRole('button', { name: en.profile.sendEmailLink }).click();
    await page.getByText(en.profile.emailSent.split('{{')[0]!.trim()).waitFor();
    await page.goto(t.url + (await outboxLink(newEmail, '/confirm-emailchange')));
    await page.getByText(en.confirm.emailDone).waitFor();
    expect((await t.api('GET', '/api/auth/users/me', { token: user.token })).body.email).toBe(newEmail);

    await page.goto(`${t.url}/profile`);
    await page.getByLabel(en.profile.currentPassword).fill(user.password);
    await page.getByLabel(en.confirm.newPassword).fill('another good secret');
    await page.getByLabel(en.register.passwordRepeat).fill('another good secret');
    await page.getByRole('button', { name: en.profile.changePassword }).click();
    await page.getByText(en.profile.passwordChanged).waitFor();
    await t.signIn(user.username, 'another good secret');
    await context.close();
  });

  it('resends the confirmation link to an unconfirmed address', async () => {
    const user = await t.user({ confirmed: false, locale: 'en' });
    const { page, context } = await openPage(browser, { locale: 'en' });
    await page.goto(`${t.url}/resend-confirmation`);
    await page.getByLabel(en.register.email).fill(user.email);
    await page.getByRole('button', { name: en.common.send }).click();
    await page.getByText(en.resend.done).waitFor();
    await page.goto(t.url + (await outboxLink(user.email, '/confirm-registration')));
    await page.getByText(en.confirm.registrationDone).waitFor();
    await t.signIn(user.username, user.password);
    await context.close();
  });
});
