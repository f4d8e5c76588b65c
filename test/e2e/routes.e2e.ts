/**
 * Every route in a real browser: the guard for each role, text direction per locale, no
 * console errors anywhere, accessibility of the account screens (axe), screenshots at phone
 * and desktop width, the chunk-load error and the maintenance screen.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../src/domain/routes';
import ar from '../../src/web/i18n/ar.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { axeViolations, launchBrowser, openPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
const people: Record<string, Person | null> = {};

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  people.anonymous = null;
  people.patient = await t.user({ flags: ['patient'], locale: 'en' });
  people.therapist = await t.user({ flags: ['therapist'], locale: 'en' });
  people.interviewer = await t.user({ flags: ['interviewer'], locale: 'en' });
  people.coordinator = await t.user({ flags: ['coordinator'], locale: 'en' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(who: string, locale: 'ar' | 'de' | 'en' = 'en', width = 360) {
  const opened = await openPage(browser, { locale, width });
  const person = people[who];
  if (person) await opened.context.addInitScript((token) => sessionStorage.setItem('authToken', token), person.token);
  return opened;
}

/** Where the browser ends up after opening a path: the path itself, or /login. */
async function landing(who: string, path: string): Promise<string> {
  const { page, context } = await pageAs(who);
  await page.goto(t.url + path);
  await page.locator('h1').first().waitFor();
  const pathname = new URL(page.url()).pathname;
  await context.close();
  return pathname;
}

describe('route guard', () => {
  const table: [string, string, string[]][] = [
    ['/admin/cases', 'staff only', ['therapist', 'interviewer', 'coordinator']],
    ['/admin/templates', 'coordinator only', ['coordinator']],
    ['/interviews/booking', 'patient or coordinator', ['patient', 'coordinator']],
    ['/interviews/manage', 'interviewer or coordinator', ['interviewer', 'coordinator']],
    ['/profile', 'signed in', ['patient', 'therapist', 'interviewer', 'coordinator']],
    ['/messungen/pre', 'open', ['anonymous', 'patient', 'therapist', 'interviewer', 'coordinator']],
  ];
  it.each(table)('%s (%s)', async (path, _rule, allowed) => {
    for (const who of Object.keys(people)) {
      const where = await landing(who, path);
      expect(`${who} → ${where}`).toBe(`${who} → ${allowed.includes(who) ? path : '/login'}`);
    }
  });

  it('returns to the wanted page after signing in', async () => {
    const person = people.coordinator!;
    const { page, context } = await pageAs('anonymous');
    await page.goto(`${t.url}/admin/cases`);
    await page.waitForURL(/\/login\?returnTo=/);
    await page.fill('input[name=username]', person.username);
    await page.fill('input[name=password]', person.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.url}/admin/cases`);
    await context.close();
  });

  it('rechecks when the person changes: signing out on a guarded page leaves it', async () => {
    const { page, context } = await pageAs('therapist');
    await page.goto(`${t.url}/admin/cases`);
    await page.getByRole('heading', { name: en.nav.adminCases }).waitFor();
    await page.getByRole('button', { name: en.nav.signOut }).click();
    await page.waitForURL(/\/login/);
    await context.close();
  });
});

describe('every route', () => {
  const concrete = (path: string) => path.replace(':id', '00000000-0000-4000-8000-000000000000').replace(':caseId', '00000000-0000-4000-8000-000000000001');

  it.each(['anonymous', 'coordinator', 'patient'])('renders without console errors for %s', async (who) => {
    const { page, consoleErrors, context } = await pageAs(who);
    for (const route of ROUTES) {
      await page.goto(t.url + concrete(route.path));
      await page.locator('h1').first().waitFor();
    }
    await page.goto(`${t.url}/no/such/page`);
    await page.getByRole('heading', { name: en.errors.notFoundTitle }).waitFor();
    expect(consoleErrors, JSON.stringify(consoleErrors)).toEqual([]);
    await context.close();
  });

  it('offers a skip link as the first stop of the keyboard', async () => {
    const { page, context } = await pageAs('anonymous', 'en');
    await page.goto(`${t.url}/faq`);
    await page.locator('h1').waitFor();
    const first = await page.evaluate(() => document.querySelector('a[href], button, input, select, textarea')?.textContent);
    expect(first).toBe(en.layout.skipToContent);
    await page.locator('.skip-link').focus();
    const box = await page.locator('.skip-link').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    await page.keyboard.press('Enter');
    expect(new URL(page.url()).hash).toBe('#main');
    await context.close();
  });

  it('sets dir="rtl" in Arabic and "ltr" otherwise, also after switching', async () => {
    for (const locale of ['ar', 'de', 'en'] as const) {
      const { page, context } = await pageAs('anonymous', locale);
      await page.goto(`${t.url}/login`);
      await page.locator('h1').waitFor();
      expect(await page.getAttribute('html', 'dir')).toBe(locale === 'ar' ? 'rtl' : 'ltr');
      await context.close();
    }
    const { page, context } = await pageAs('anonymous', 'ar');
    await page.goto(`${t.url}/login`);
    await page.getByRole('heading', { name: ar.login.title }).waitFor();
    // At 360 px the language is in the menu.
    await page.getByRole('button', { name: ar.shell.menu }).click();
    await page.getByLabel(ar.layout.language).selectOption('de');
    await page.waitForFunction(() => document.documentElement.dir === 'ltr' && document.documentElement.lang === 'de');
    expect(await page.evaluate(() => localStorage.getItem('locale'))).toBe('de');
    await context.close();
  });
});

describe('accessibility and look', () => {
  const accountScreens = ['/login', '/register', '/register-counseling', '/reset-password', '/resend-confirmation', '/confirm-reset?token=x', '/about'];

  it.each(['ar', 'de'] as const)('axe finds no serious or critical violation on the account screens (%s)', async (locale) => {
    const { page, context } = await pageAs('anonymous', locale);
    const found: string[] = [];
    for (const path of accountScreens) {
      await page.goto(t.url + path);
      await page.locator('h1').first().waitFor();
      for (const v of await axeViolations(page)) found.push(`${path}: ${v.id} (${v.impact}) ${v.nodes.join(', ')}`);
    }
    const signedIn = await pageAs('patient', locale);
    for (const path of ['/', '/profile']) {
      await signedIn.page.goto(t.url + path);
      await signedIn.page.locator('h1').first().waitFor();
      for (const v of await axeViolations(signedIn.page)) found.push(`${path}: ${v.id} (${v.impact}) ${v.nodes.join(', ')}`);
    }
    expect(found, found.join('\n')).toEqual([]);
    await signedIn.context.close();
    await context.close();
  });

  it('takes screenshots at 360 px and 1280 px', async () => {
    for (const width of [360, 1280]) {
      for (const [who, path, name] of [
        ['anonymous', '/login', 'login'],
        ['anonymous', '/register', 'register'],
        ['anonymous', '/faq', 'faq'],
        ['coordinator', '/', 'home-coordinator'],
        ['patient', '/profile', 'profile'],
        ['anonymous', '/layout-sample', 'layout-sample'],
        ['anonymous', '/pages/sample2', 'sample2'],
      ] as const) {
        const { page, context } = await pageAs(who, 'ar', width);
        await page.goto(t.url + path);
        await page.locator('h1').first().waitFor();
        // Nothing may be wider than the screen: phones must not scroll sideways.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${path} at ${width}px`).toBeLessThanOrEqual(0);
        await screenshot(page, `${name}-ar-${width}`);
        await context.close();
      }
    }
  });

  it('can be used with the keyboard alone', async () => {
    const person = people.patient!;
    const { page, context } = await pageAs('anonymous', 'en');
    await page.goto(`${t.url}/login`);
    await page.locator('h1').waitFor();
    // After navigation focus sits on the page heading; the next Tab reaches the form.
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('username');
    await page.keyboard.type(person.username);
    await page.keyboard.press('Tab');
    await page.keyboard.type(person.password);
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/`);
    await context.close();
  });
});

describe('failures', () => {
  it('shows a retry when a section fails to load', async () => {
    const { page, context, consoleErrors } = await pageAs('anonymous', 'en');
    await page.route('**/assets/content-*.js', (route) => route.abort());
    await page.goto(`${t.url}/about`);
    await page.getByRole('heading', { name: en.errors.chunkTitle }).waitFor();
    await page.getByText(en.errors.chunkError).waitFor();
    await page.unroute('**/assets/content-*.js');
    consoleErrors.length = 0;
    await page.getByRole('button', { name: en.errors.retry }).click();
    await page.getByRole('heading', { name: 'About Sanad' }).waitFor();
    await context.close();
  });

  it('shows the maintenance screen in Arabic and German when the server is in maintenance', async () => {
    const closed = await startTestApp({ MAINTENANCE: '1' });
    try {
      const { page, context } = await openPage(browser, { locale: 'en' });
      await page.goto(`${closed.url}/login`);
      await page.getByText('الموقع مغلق مؤقتًا للصيانة').waitFor();
      await page.getByText('Die Seite ist wegen Wartungsarbeiten geschlossen').waitFor();
      await page.getByText('Ihre Daten sind sicher', { exact: false }).waitFor();
      await screenshot(page, 'maintenance-360');
      await context.close();
    } finally {
      await closed.close();
    }
  });
});

describe('uncaught errors', () => {
  it('lists them and clears them one by one', async () => {
    const { page, context } = await pageAs('anonymous', 'en');
    await page.goto(`${t.url}/faq`);
    await page.locator('h1').waitFor();
    await page.evaluate(() => {
      void Promise.reject(new Error('First failure'));
      void Promise.reject(new Error('Second failure'));
    });
    const list = page.getByRole('region', { name: en.errors.listLabel });
    await list.getByText('First failure').waitFor();
    await list.getByText('Second failure').waitFor();
    await list.getByRole('alert').filter({ hasText: 'First failure' }).getByRole('button', { name: en.errors.dismiss }).click();
    await list.getByText('First failure').waitFor({ state: 'detached' });
    expect(await list.getByText('Second failure').isVisible()).toBe(true);
    await context.close();
  });
});
