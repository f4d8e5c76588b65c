/**
 * Issue 25's crisis panel in a real browser, on an Arabic phone (360×740) and a German desktop:
 * the moment a risk answer is given the panel shows above the question and "Next" (above the
 * fold on the phone); the hotline is a `tel:` link that reads left to right inside Arabic; after
 * the questionnaire is sent the crisis entry is still one tap away on the home page and on
 * every other patient page, reached by the menu and tiles (no typed address).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver } from '../helpers/trial';

let t: TestApp;
let browser: Browser;
const trial = trialDriver(() => t);
const opened: WatchedPage[] = [];
const catalogs = { ar, de } as const;

beforeAll(async () => {
  t = await startTestApp({ MEASUREMENTS_SCREENING: 'phq9' });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  for (const w of opened) expect(w.consoleErrors.filter((e) => !/Failed to load resource/.test(e)), 'console errors').toEqual([]);
  await browser?.close();
  await t?.close();
});

/** The hotline link of a panel: a tel: address, laid out left to right as one isolated unit. */
async function expectTappableNumber(panel: ReturnType<Page['locator']>): Promise<void> {
  // The emergency number (112) is a link too; this is the hotline of the shipped contacts (0121).
  const link = panel.locator('a[href="tel:08001110111"]').first();
  await link.waitFor();
  expect((await link.innerText()).trim()).toBe('0800 111 0 111');
  const style = await link.evaluate((el) => ({ direction: getComputedStyle(el).direction, bidi: getComputedStyle(el).unicodeBidi, wrap: getComputedStyle(el).whiteSpace }));
  expect(style).toEqual({ direction: 'ltr', bidi: 'isolate', wrap: 'nowrap' });
  // Read on screen: the first group "0800" is left of the last group "111" (not "111 0 111 0800").
  const order = await link.evaluate((el) => {
    const text = el.firstChild!;
    const range = document.createRange();
    range.setStart(text, 0);
    range.setEnd(text, 1);
    const first = range.getBoundingClientRect().left;
    range.setStart(text, (text.textContent ?? '').length - 1);
    range.setEnd(text, (text.textContent ?? '').length);
    return { first, last: range.getBoundingClientRect().left };
  });
  expect(order.first).toBeLessThan(order.last);
}

describe.each([
  ['ar', 360, 740],
  ['de', 1280, 900],
] as const)('the crisis panel in %s at %i px', (locale, width, height) => {
  it('shows on the risk answer, above the fold, with the number tappable and in order, and stays reachable after sending', { timeout: 180_000 }, async () => {
    const strings = catalogs[locale];
    const { patient } = await trial.newTrialCase([], { locale, alias: locale === 'ar' ? 'هدى' : 'Hanna' });
    const watched = await openSignedInPage(browser, patient.token, { locale, width, height });
    opened.push(watched);
    const { page } = watched;
    await page.goto(`${t.url}/`);
    await page.locator('.patient-path__next a.button').click();
    await page.getByRole('button', { name: strings.measurements.start }).click();

    const answer = async (n: number, value: number) => page.locator(`[data-item="item${n}"] input[value="${value}"]`).check();
    for (let n = 1; n <= 9; n += 1) {
      await page.locator(`[data-item="item${n}"]`).waitFor();
      await answer(n, n === 9 ? 2 : 0);
      if (n < 9 && width < 600) {
        await page.getByRole('button', { name: strings.measurements.next, exact: true }).click();
        await page.waitForFunction((id) => !document.querySelector(`[data-item="${id}"]`), `item${n}`);
      }
    }
    // At once: the panel, with the shipped contacts in the patient's language.
    const panel = page.getByRole('region', { name: strings.safety.crisis.title });
    await panel.waitFor();
    await expectTappableNumber(panel);
    const box = (await panel.boundingBox())!;
    if (width < 600) {
      // Above the fold on the phone, and above the question and "Next".
      const scrollTop = await page.evaluate(() => window.scrollY);
      expect(box.y - scrollTop).toBeLessThan(height);
      const nextButton = (await page.getByRole('button', { name: strings.measurements.toReview, exact: true }).or(page.getByRole('button', { name: strings.measurements.next, exact: true })).first().boundingBox())!;
      expect(box.y).toBeLessThan(nextButton.y);
    }
    await expectNoOverflow(page, `crisis panel (${locale})`);
    await screenshot(page, `crisis-panel-${locale}-${width}`);

    // Sent: on the phone the optional difficulty item is passed over, then the review and "send".
    if (width < 600) {
      await page.getByRole('button', { name: strings.measurements.next, exact: true }).click();
      await page.locator('[data-item="item10"]').waitFor();
      await page.getByRole('button', { name: strings.measurements.next, exact: true }).click();
    } else {
      await page.getByRole('button', { name: strings.measurements.toReview, exact: true }).click();
    }
    await page.locator('#review-heading').waitFor();
    await page.getByRole('button', { name: strings.measurements.submit }).click();
    await page.getByText(strings.measurements.allDone).waitFor();

    // Home: the crisis entry at the top; one tap opens the contacts.
    await page.locator('header a.brand').click();
    const entry = page.getByRole('region', { name: strings.patientPath.crisis.region });
    await entry.waitFor();
    await entry.getByRole('button', { name: strings.patientPath.crisis.show }).click();
    await expectTappableNumber(entry);
    await expectAccessible(page, `home with the crisis entry (${locale})`);
    await screenshot(page, `crisis-entry-home-${locale}-${width}`);

    // Another patient page, reached by its tile: the entry is there too.
    await page.locator('a.tile').filter({ has: page.locator('.tile__title', { hasText: new RegExp(`^${strings.nav.surveys}$`) }) }).click();
    await page.getByRole('heading', { level: 1, name: strings.nav.surveys }).waitFor();
    const again = page.getByRole('region', { name: strings.patientPath.crisis.region });
    await again.getByRole('button', { name: strings.patientPath.crisis.show }).click();
    await expectTappableNumber(again);
    await expectNoOverflow(page, `surveys with the crisis entry (${locale})`);
    await screenshot(page, `crisis-entry-surveys-${locale}-${width}`);
  });
});
