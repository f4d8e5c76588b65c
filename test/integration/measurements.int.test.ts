/**
 * What the measurement screens read besides the records: the schedule this installation runs
 * (defaults, a trial's settings, a refused setting) and a trial's installed item wording.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE } from '../../src/domain/measurements';
import { loadConfig } from '../../src/server/config';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ MEASUREMENTS_PRE: 'gad7,phq9', MEASUREMENTS_FU2: '' });
  const insert = `insert into app_public.content_templates (type, code, language_code, title, content) values ('PAGE', $1, $2, $3, $4)`;
  await t.database.db.pool.query(insert, ['instr-phq9-item9', 'de', 'PHQ-9 Item 9', 'Installierter Wortlaut']);
  await t.database.db.pool.query(insert, ['instr-phq9-item1-o-2', 'de', 'PHQ-9 Item 1 Option 2', 'Option zwei']);
  await t.database.db.pool.query(insert, ['instr-phq9-item9', 'ar', 'PHQ-9 9', 'نص مرخّص']);
  await t.database.db.pool.query(insert, ['instr-phq15-item1', 'de', 'PHQ-15 Item 1', 'anderes Instrument']);
});
afterAll(async () => {
  await t?.close();
});

describe('measurement schedule', () => {
  it('is open and follows the settings, other times keeping their defaults', async () => {
    const response = await t.api('GET', '/api/measurements/schedule');
    expect(response.status).toBe(200);
    expect(response.body.times).toEqual(['screening', 'pre', 'post', 'fu1', 'fu2']);
    expect(response.body.schedule).toEqual({ ...DEFAULT_SCHEDULE, pre: ['gad7', 'phq9'], fu2: [] });
  });

  it('refuses an unknown questionnaire at start, naming the setting', () => {
    expect(() => loadConfig({ MEASUREMENTS_SCREENING: 'demographics,bdi' })).toThrow('Setting MEASUREMENTS_SCREENING lists unknown questionnaires: bdi');
  });
});

describe('installed wording', () => {
  it('returns the instrument’s texts in the asked language only', async () => {
    const de = await t.api('GET', '/api/wording/phq9?locale=de');
    expect(de.status).toBe(200);
    expect(de.body).toEqual({ instrument: 'phq9', locale: 'de', texts: { 'instr-phq9-item9': 'Installierter Wortlaut', 'instr-phq9-item1-o-2': 'Option zwei' } });
    const ar = await t.api('GET', '/api/wording/phq9?locale=ar');
    expect(ar.body.texts).toEqual({ 'instr-phq9-item9': 'نص مرخّص' });
  });

  it('is empty where nothing is installed', async () => {
    const response = await t.api('GET', '/api/wording/gad7?locale=en');
    expect(response.status).toBe(200);
    expect(response.body.texts).toEqual({});
  });

  it('refuses an unknown instrument or locale with a 400', async () => {
    expect((await t.api('GET', '/api/wording/phq8?locale=de')).status).toBe(400);
    expect((await t.api('GET', '/api/wording/phq9?locale=fr')).status).toBe(400);
  });
});
