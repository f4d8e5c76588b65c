/**
 * Issue 30 items 5 and 6 in a real browser. A coordinator (German, desk) sees the allocation's
 * commitment to publish, goes live and unblinds with a reason, each confirmed. A blinded
 * assessor (Arabic, 360 px) sees their case without anything that names its arm, enters the
 * post assessment and records a guess. Screenshots of both.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolateLatin } from '../../src/domain/bidi';
import { addMember } from '../../src/server/admin/accounts';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectNoOverflow, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';
import { trialDriver } from '../helpers/trial';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, assessor: Person, interviewer: Person;
let caseId: string;
const opened: WatchedPage[] = [];

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  coordinator = await t.user({ flags: ['coordinator'], locale: 'de', timeZone: 'Europe/Berlin' });
  assessor = await t.user({ flags: ['assessor'], locale: 'ar', alias: 'ليلى', timeZone: 'Asia/Baghdad' });
  interviewer = await t.user({ flags: ['interviewer'] });
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE', alias: 'Salma' });
  caseId = patient.caseId!;
  await addMember(t.database.db.pool, caseId, interviewer.username, ['interviewer']);
  const configured = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } });
  expect(configured.status).toBe(201);
  await t.api('POST', '/api/blinding/assignments', { token: coordinator.token, body: { caseId, assessorId: assessor.id } });
}, 120_000);

afterAll(async () => {
  for (const watched of opened) await watched.context.close();
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de', width: number): Promise<Page> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched.page;
}

describe('verifiable allocation and blinded assessment', () => {
  it('the coordinator publishes the commitment, goes live and unblinds with a reason', { timeout: 180_000 }, async () => {
    const page = await pageAs(coordinator, 'de', 1280);
    await page.goto(`${t.url}/admin/cases`);
    const panel = page.getByRole('region', { name: de.blinding.commitment.title });
    await panel.getByText(de.blinding.commitment.beforeGoLive).waitFor();
    await expect(panel.locator('code').first().textContent()).resolves.toMatch(/^[0-9a-f]{64}$/);
    await panel.getByRole('button', { name: de.blinding.commitment.goLive }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(de.blinding.commitment.goLiveMessage).waitFor();
    await dialog.getByRole('button', { name: de.blinding.commitment.goLive }).click();
    await panel.getByText(de.blinding.commitment.fixedNow).waitFor();
    await screenshot(page, 'blinding-commitment-de-desktop');
    // The case is randomized in its step while the trial runs.
    const trial = trialDriver(() => t);
    await trial.atRandomization(caseId, interviewer, 'ptsd');
    expect((await t.api('POST', `/api/trial/cases/${caseId}/randomize`, { token: coordinator.token })).status).toBe(201);
    await panel.getByRole('button', { name: de.blinding.commitment.unblind }).click();
    await dialog.getByLabel(de.blinding.commitment.reason).fill('Primäranalyse abgeschlossen');
    await dialog.getByRole('button', { name: de.blinding.commitment.unblind }).click();
    await panel.getByText(de.blinding.commitment.unblindedNow).waitFor();
    await panel.getByText(de.blinding.commitment.seed).waitFor();
    await screenshot(page, 'blinding-unblinded-de-desktop');
  });

  it('the assessor sees the case without its arm, enters the post assessment and guesses', { timeout: 180_000 }, async () => {
    const page = await pageAs(assessor, 'ar', 360);
    await page.goto(`${t.url}/`);
    await page.getByText(ar.blinding.assessor.intro).waitFor();
    await expect(page.locator('html').getAttribute('dir')).resolves.toBe('rtl');
    const text = (await page.locator('body').innerText()).toLowerCase();
    const armNames = [ar, de, en].flatMap((locale) => Object.values(locale.careTeam.arms));
    for (const name of armNames) expect(text.includes(name.toLowerCase()), name).toBe(false);
    expect(text).not.toMatch(/(^|[^a-z])(cbt|ipt)([^a-z]|$)/);
    await expectNoOverflow(page, 'assessor home');
    await screenshot(page, 'blinding-assessor-ar-360');

    await page.getByLabel(isolateLatin(ar.blinding.assessor.ptsd)).fill('34');
    await page.getByLabel(isolateLatin(ar.blinding.assessor.depression)).fill('20');
    await page.getByRole('button', { name: ar.blinding.assessor.save }).click();
    await page.getByRole('button', { name: ar.blinding.assessor.guessOpen }).click();
    await page.getByLabel(ar.blinding.assessor.guessLabel).selectOption('dont_know');
    await page.getByRole('button', { name: ar.blinding.assessor.guessSave }).click();
    await page.getByRole('dialog').getByRole('button', { name: ar.blinding.assessor.guessSave }).click();
    await page.getByText(ar.blinding.assessor.guessed).waitFor();
    await expectNoOverflow(page, 'assessor after guess');
    await screenshot(page, 'blinding-assessor-guessed-ar-360');
    const index = await t.api('GET', '/api/blinding/index', { token: coordinator.token });
    expect(index.body.arms).toEqual([expect.objectContaining({ guesses: 1, dontKnow: 1, bangIndex: 0 })]);
  });
});
