/**
 * The phone-first shell (issue 18): at 360 px in Arabic, every destination of patient,
 * therapist, counselor and coordinator is reachable from the menu without sideways scrolling,
 * sign-out is visible on the bar, and the current page is marked. A mixed Arabic–Latin title
 * renders in logical order.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { destinations } from '../../src/domain/navigation';
import { routeById, type RouteId } from '../../src/domain/routes';
import { AVAILABLE_SCREENS } from '../../src/web/app/screens';
import ar from '../../src/web/i18n/ar.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { launchBrowser, openPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
const people: Record<string, Person> = {};

const FLAGS = {
  isCoordinatorAccount: false,
  isInterviewerAccount: false,
  isTherapistAccount: false,
  isSupervisorAccount: false,
  isSupporterAccount: false,
  isPatientAccount: false,
};
const ROLES = {
  patient: { flags: ['patient'] as const, account: { ...FLAGS, isPatientAccount: true }, counselor: false },
  therapist: { flags: ['therapist'] as const, account: { ...FLAGS, isTherapistAccount: true }, counselor: false },
  counselor: { flags: ['counselor'] as const, account: FLAGS, counselor: true },
  coordinator: { flags: ['coordinator'] as const, account: { ...FLAGS, isCoordinatorAccount: true }, counselor: false },
};

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  for (const [role, spec] of Object.entries(ROLES)) people[role] = await t.user({ flags: [...spec.flags], locale: 'ar' });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function noSidewaysScroll(page: Page): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
}

describe('shell at 360 px in Arabic', () => {
  it.each(Object.keys(ROLES) as (keyof typeof ROLES)[])('%s reaches every destination from the menu, sign-out always on the bar', async (role) => {
    const spec = ROLES[role];
    const { page, context } = await openPage(browser, { locale: 'ar', width: 360 });
    await context.addInitScript((token) => sessionStorage.setItem('authToken', token), people[role]!.token);
    await page.goto(t.url + '/');
    await page.locator('h1').first().waitFor();
    const expected = destinations(spec.account, spec.counselor, (id: RouteId) => AVAILABLE_SCREENS.has(id));
    expect(expected.length).toBeGreaterThan(3);
    const menuButton = page.getByRole('button', { name: ar.shell.menu });
    const signOut = page.getByRole('button', { name: ar.nav.signOut });
    for (const id of expected) {
      await expect.poll(() => signOut.isVisible(), { timeout: 10_000 }).toBe(true);
      await menuButton.click();
      const menu = page.getByRole('navigation', { name: ar.layout.mainNavigation });
      const link = menu.getByRole('link', { name: ar.nav[id as keyof typeof ar.nav], exact: false }).first();
      await link.click();
      await page.waitForURL((url) => url.pathname === routeById(id).path);
      await page.locator('h1').first().waitFor();
      await noSidewaysScroll(page);
      // The current page is marked in the menu (opened afresh until the new page has rendered).
      const marked = async () => {
        if ((await menu.count()) > 0) await page.keyboard.press('Escape');
        await menuButton.click();
        return menu.locator('[aria-current="page"]').first().textContent({ timeout: 2_000 });
      };
      await expect.poll(marked, { timeout: 15_000 }).toContain(ar.nav[id as keyof typeof ar.nav]);
      await page.keyboard.press('Escape');
      await expect.poll(() => menu.count(), { timeout: 10_000 }).toBe(0);
    }
    await screenshot(page, `shell-${role}-ar-360`);
    await signOut.click();
    await page.waitForURL((url) => url.pathname === '/login' || url.pathname === '/about');
    await context.close();
  });

  it('renders a mixed Arabic–Latin title in logical order', async () => {
    const { page, context } = await openPage(browser, { locale: 'ar', width: 360 });
    await page.goto(t.url + '/about');
    await page.locator('h1').first().waitFor();
    // A questionnaire title as the screens show it: Arabic words around a Latin name and code.
    const order = await page.evaluate(() => {
      const h = document.createElement('h2');
      h.dir = 'rtl';
      h.id = 'bidi-probe';
      document.querySelector('main')!.append(h);
      return null;
    });
    expect(order).toBeNull();
    const { isolateLatin } = await import('../../src/domain/bidi');
    const title = isolateLatin('قائمة اضطراب ما بعد الصدمة وفق DSM-5 (PCL-5)');
    const positions = await page.evaluate((text) => {
      const h = document.getElementById('bidi-probe')!;
      h.textContent = text;
      const node = h.firstChild as Text;
      const x = (char: string, from = 0) => {
        const i = node.data.indexOf(char, from);
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getBoundingClientRect();
        return rect.left + rect.width / 2;
      };
      const p = node.data.indexOf('PCL');
      return { open: x('(', 0), P: x('P', p), L: x('L', p), five: x('5', p), close: x(')', p), arabic: x('ق', 0), D: x('D') };
    }, title);
    // Right to left: Arabic first (rightmost), then DSM-5, then "(PCL-5)" on the left, with
    // "PCL-5" itself left to right and its parentheses around it.
    expect(positions.arabic).toBeGreaterThan(positions.D);
    expect(positions.D).toBeGreaterThan(positions.P);
    expect(positions.P).toBeLessThan(positions.L);
    expect(positions.L).toBeLessThan(positions.five);
    expect(positions.open).toBeGreaterThan(positions.five);
    expect(positions.close).toBeLessThan(positions.P);
    await context.close();
  });
});
