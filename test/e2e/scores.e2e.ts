/**
 * Staff read a case's questionnaire scores in a real browser (issue "Questionnaires and
 * measurements", item 7): the case detail shows each instrument's totals with bands and flags
 * per time of measurement and charts of PHQ-9, GAD-7 and PCL-5, in English on a desk and in
 * Arabic on a phone (the time axis mirrored), without sideways scrolling or accessibility
 * violations; the case list's scores overview shows DetailedCases.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { expectAccessible, launchBrowser, openSignedInPage, screenshot, type WatchedPage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person;
let therapist: Person;
const opened: WatchedPage[] = [];

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const items = (count: number, points: number[]) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`item${i + 1}`, points[i % points.length]]));

beforeAll(async () => {
  t = await startTestApp();
  browser = await launchBrowser();
  patient = await t.user({ flags: ['patient'], locale: 'ar', alias: 'ليلى' });
  therapist = await t.user({ flags: ['therapist'], locale: 'en', alias: 'Dr. Hana' });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  const records: [string, string, object][] = [
    ['phq9', 'screening', items(9, [2, 2, 2, 1])], // 16, item 9 = 2: the suicide item
    ['phq9', 'pre', items(9, [2, 1, 2, 1])],
    ['phq9', 'post', items(9, [1, 0, 0])],
    ['gad7', 'pre', items(7, [2, 1])],
    ['gad7', 'post', items(7, [0, 1, 0])],
    ['pcl5', 'pre', items(20, [3, 2])],
    ['pcl5', 'post', items(20, [1, 0])],
  ];
  for (const [collection, time, answers] of records) {
    const response = await t.api('POST', `/api/${collection}`, {
      body: { case_id: patient.caseId, time_of_measurement: time, ...answers },
      token: patient.token,
      headers: UPSERT,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
  }
});

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function pageAs(person: Person, locale: 'ar' | 'de' | 'en', width: number): Promise<WatchedPage> {
  const watched = await openSignedInPage(browser, person.token, { locale, width });
  opened.push(watched);
  return watched;
}


describe('scores on the case detail', () => {
  it('shows totals, bands, the safety flag and three charts to the therapist', { timeout: 120_000 }, async () => {
    const { page } = await pageAs(therapist, 'en', 1200);
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    const section = page.getByRole('region', { name: 'Questionnaire scores' });
    await section.waitFor();
    const phq9Row = section.getByRole('row', { name: /PHQ-9/ });
    await expect.poll(() => phq9Row.innerText()).toContain('16 · moderately severe');
    expect(await phq9Row.innerText()).toContain('item 9 (thoughts of death or self-harm) answered ≥ 1');
    expect(await section.getByRole('row', { name: /GAD-7/ }).innerText()).toMatch(/11 · moderate/);
    // Three charts, each labelled with its instrument.
    const charts = page.locator('figure.score-chart');
    expect(await charts.count()).toBe(3);
    expect(await charts.locator('figcaption').allInnerTexts()).toEqual([
      'Patient Health Questionnaire (PHQ-9)',
      expect.stringContaining('GAD-7'),
      expect.stringContaining('PCL-5'),
    ]);
    expect(await charts.first().locator('circle').count()).toBe(3);
    await expectAccessible(page, 'case detail with scores');
    await screenshot(page, 'case-scores-en');

    // The scores overview of the case list (DetailedCases).
    await page.goto(`${t.url}/admin/cases`);
    await page.getByText('Scores overview: PHQ-9 and GAD-7').click();
    const overview = page.getByRole('region', { name: 'Scores overview: PHQ-9 and GAD-7' });
    await overview.waitFor();
    expect(await overview.locator('tbody tr').first().innerText()).toMatch(/16\s+14\s+3\s+–\s+–\s+–\s+11\s+2\s+–\s+–/);
    await expectAccessible(page, 'case list with the scores overview');
  });

  it('reads right to left in Arabic on a phone, with the time axis mirrored', { timeout: 120_000 }, async () => {
    const coordinator = await t.user({ flags: ['coordinator'], locale: 'ar' });
    const { page } = await pageAs(coordinator, 'ar', 360);
    await page.goto(`${t.url}/admin/cases/${patient.caseId}`);
    await page.locator('figure.score-chart').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.dir)).toBe('rtl');
    // Screening sits on the right and the later times to its left.
    const positions = await page.locator('figure.score-chart').first().locator('circle').evaluateAll((circles) => circles.map((c) => Number(c.getAttribute('cx'))));
    expect(positions[0]).toBeGreaterThan(positions[1]!);
    expect(positions[1]).toBeGreaterThan(positions[2]!);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'case detail with scores, Arabic phone');
    await screenshot(page, 'case-scores-ar-phone');
    expect(opened.flatMap((o) => o.consoleErrors)).toEqual([]);
  });
});
