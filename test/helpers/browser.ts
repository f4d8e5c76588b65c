/**
 * A real browser for end-to-end tests: Debian's chromium driven by playwright-core (no
 * browser download is possible here). Each page collects console errors and failed
 * requests, so a test can insist there were none.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean) as string[];

export function chromiumPath(): string | undefined {
  return CANDIDATES.find((candidate) => fs.existsSync(candidate));
}

export async function launchBrowser(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('No chromium found: install it with `apt-get install chromium` (or set CHROMIUM_PATH).');
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
}

export async function openPage(browser: Browser, options: { locale?: 'ar' | 'de' | 'en'; width?: number; height?: number } = {}): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: options.width ?? 360, height: options.height ?? 780 }, timezoneId: 'Europe/Berlin' });
  if (options.locale) {
    const locale = options.locale;
    await context.addInitScript((l) => {
      if (!localStorage.getItem('locale')) localStorage.setItem('locale', l);
    }, locale);
  }
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  return { context, page, consoleErrors };
}

export const SCREENSHOT_DIR = path.resolve('test-results/screenshots');

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Runs axe-core in the page and returns the serious and critical violations. */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string; nodes: string[] }[]> {
  const source = fs.readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
  // Evaluated by the test driver, so the page's Content Security Policy (rightly) stays on.
  await page.evaluate(source);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A page signed in as the holder of `token`, kept in session storage as the app keeps it. */
export async function openSignedInPage(
  browser: Browser,
  token: string,
  options: { locale?: 'ar' | 'de' | 'en'; width?: number; height?: number } = {},
): Promise<WatchedPage> {
  const watched = await openPage(browser, options);
  await watched.context.addInitScript((stored) => sessionStorage.setItem('authToken', stored), token);
  return watched;
}

/** Fails with every serious or critical axe violation on the page, named by `what`. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  const found = (await axeViolations(page)).map((v) => `${what}: ${v.id} (${v.impact}) ${v.nodes.join(', ')}`);
  expect(found, found.join('\n')).toEqual([]);
}

/** Fails when the page scrolls sideways (a screen must fit 360 px). */
export async function expectNoOverflow(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${what} scrolls sideways`).toBeLessThanOrEqual(0);
}

/** Opens the menu named `label` where the screen is narrow: below 48rem the destinations are behind it (opened once; it stays open until one is chosen). */
export async function openMenu(page: Page, label: string): Promise<void> {
  const button = page.getByRole('button', { name: label });
  if ((await button.count()) === 0) return; // a wide screen shows them inline
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
}

/**
 * Issue 30: gives the electronic signature a signed act asks for, in the app's own signing
 * dialog (the act was clicked; the dialog opened from the server's "signature needed"): the
 * password, then "sign"; waits until the dialog is gone (the app repeats the act with it).
 */
export async function signElectronically(page: Page, options: { password?: string; keyboard?: boolean } = {}): Promise<void> {
  const password = options.password ?? 'correct horse battery';
  const dialog = page.locator('dialog.signing');
  await dialog.waitFor({ state: 'visible' });
  if (options.keyboard) {
    // The dialog opens with the focus in the password field; Enter signs.
    await expect.poll(() => page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe('password');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
  } else {
    await dialog.locator('input[type=password]').fill(password);
    await dialog.locator('button[type=submit]').click();
  }
  await dialog.waitFor({ state: 'detached' });
}
