/**
 * Questionnaire wording in a real browser: a coordinator (German, desktop) installs wording for
 * GAD-7 in German in the template editor, after a refused attempt that names the missing
 * options; the patient's German screening form then shows that wording, and the neutral label
 * where none was installed. The texts are invented: the repository ships no licensed wording.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSTRUMENTS } from '../../src/domain/instruments';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, expectNoOverflow, launchBrowser, openSignedInPage, screenshot } from '../helpers/browser';

let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  t = await startTestApp({ MEASUREMENTS_SCREENING: 'gad7' });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe('questionnaire wording', () => {
  it('is installed by a coordinator in the editor and shown on the patient\'s German form', { timeout: 300_000 }, async () => {
    const coordinator = await t.user({ flags: ['coordinator'], locale: 'de' });
    const patient = await t.user({ flags: ['patient'], locale: 'de' });

    const { page } = await openSignedInPage(browser, coordinator.token, { locale: 'de', width: 1280, height: 900 });
    await page.goto(`${t.url}/admin/templates`);
    await page.getByRole('heading', { level: 1, name: de.therapy.templatesTitle }).waitFor();
    await page.getByLabel(de.therapy.templateType).selectOption('WORDING');
    await page.getByRole('heading', { name: de.wording.heading }).waitFor();
    await page.getByLabel(de.wording.instrument, { exact: true }).selectOption('gad7');
    await page.getByLabel(de.wording.language, { exact: true }).selectOption('de');
    await page.getByLabel(de.wording.title, { exact: true }).fill('Erfundener Beispielbogen');
    await page.getByLabel(/^Item item1 \(/).fill('Erfundene Aussage für den Test');

    // Without its answer texts the item is refused, naming what is missing; nothing is stored.
    await page.getByRole('button', { name: de.common.save }).click();
    await page.getByText(de.wording.refused).waitFor();
    await page.getByText(/Item "item1": missing "options"/).waitFor();
    expect((await t.api('GET', '/api/wording/gad7?locale=de')).body.texts).toEqual({});

    for (const option of ['0', '1', '2', '3']) await page.getByLabel(new RegExp(`^item1, Antwort ${option} \\(`)).fill(`Erfundene Antwort ${option}`);
    await page.getByRole('button', { name: de.common.save }).click();
    await page.getByText(de.wording.saved).waitFor();
    await expectAccessible(page, 'wording editor (de)');
    await screenshot(page, 'wording-editor-de-1280');
    expect((await t.api('GET', '/api/wording/gad7?locale=de')).body.texts['instr-gad7-item1-o-2']).toBe('Erfundene Antwort 2');

    // One installed text, opened as an ordinary page, is saved through the same wording check.
    await page.getByLabel(de.therapy.templateType).selectOption('PAGE');
    await page.getByRole('button', { name: 'instr-gad7-item1-o-2 · DE' }).click();
    await page.getByText(de.therapy.wordingTextHint).waitFor();
    const content = page.getByRole('textbox', { name: de.therapy.templateContent });
    await content.fill('   ');
    await page.getByRole('button', { name: de.common.save }).click();
    await page.getByText(/option "2": expected a non-empty text/).waitFor();
    expect((await t.api('GET', '/api/wording/gad7?locale=de')).body.texts['instr-gad7-item1-o-2']).toBe('Erfundene Antwort 2');
    await content.fill('Erfundene Antwort zwei');
    await page.getByRole('button', { name: de.common.save }).click();
    await page.getByText(de.therapy.templateSaved).waitFor();
    await screenshot(page, 'wording-single-text-de-1280');
    expect((await t.api('GET', '/api/wording/gad7?locale=de')).body.texts['instr-gad7-item1-o-2']).toBe('Erfundene Antwort zwei');
    // Restoring the earlier version goes through the check too.
    await page.getByRole('button', { name: 'Version 1 wiederherstellen' }).click();
    await page.locator('dialog.confirm').getByRole('button', { name: de.therapy.restore }).click();
    await expect.poll(async () => (await t.api('GET', '/api/wording/gad7?locale=de')).body.texts['instr-gad7-item1-o-2']).toBe('Erfundene Antwort 2');
    await expect.poll(() => content.inputValue()).toBe('Erfundene Antwort 2');
    await page.getByRole('button', { name: de.therapy.openWordingForm }).click();
    await page.getByRole('heading', { name: de.wording.heading }).waitFor();

    // On a phone in Arabic the editor reads right to left and fits 360 px.
    const phone = (await openSignedInPage(browser, coordinator.token, { locale: 'ar', width: 360, height: 740 })).page;
    await phone.goto(`${t.url}/admin/templates`);
    await phone.getByLabel(ar.therapy.templateType).selectOption('WORDING');
    await phone.getByRole('heading', { name: ar.wording.heading }).waitFor();
    expect(await phone.evaluate(() => document.documentElement.dir)).toBe('rtl');
    await expectNoOverflow(phone, 'wording editor (ar, 360)');
    await screenshot(phone, 'wording-editor-ar-360');

    const form = (await openSignedInPage(browser, patient.token, { locale: 'de', width: 1280, height: 900 })).page;
    await form.goto(`${t.url}/messungen/screening`);
    await form.getByRole('button', { name: de.measurements.start }).click();
    await form.getByText('Erfundener Beispielbogen').first().waitFor();
    await form.getByText('Erfundene Aussage für den Test').waitFor();
    await form.getByText('Erfundene Antwort 3').waitFor();
    await form.getByText('Erfundene Antwort 2').waitFor();
    await screenshot(form, 'wording-form-de-1280');
    // Item 2 has no installed wording: its neutral label stays.
    await form.locator('[data-item="item2"]').getByText(INSTRUMENTS.gad7.items[1]!.labels.de).waitFor();
    expect(await form.getByText('Erfundene Aussage für den Test').count()).toBe(1);
  });
});
