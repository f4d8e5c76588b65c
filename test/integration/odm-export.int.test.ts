/**
 * CDISC ODM 1.3.2 export (issue 33): validated against CDISC's schema by xmllint (libxml2),
 * content checked against a seeded trial and the CSV export, coordinators only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, other: Person, therapist: Person, coordinator: Person;
let dir: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const SCHEMA = join(__dirname, '../fixtures/odm-1.3.2/ODM1-3-2.xsd');
const HAS_XMLLINT = (() => {
  try {
    execFileSync('xmllint', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function post(person: Person, collection: string, body: object) {
  const response = await t.api('POST', `/api/${collection}`, { body: { case_id: person.caseId, ...body }, token: person.token, headers: UPSERT });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

async function download(path: string, token?: string) {
  const response = await fetch(t.url + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as { error: string; message: string } };
}

/** xmllint's verdict: '' when the file is valid, its messages otherwise. */
function schemaErrors(xml: string): string {
  const file = join(dir, `odm-${Math.random().toString(36).slice(2)}.xml`);
  writeFileSync(file, xml);
  try {
    execFileSync('xmllint', ['--noout', '--schema', SCHEMA, file], { stdio: 'pipe' });
    return '';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'sanad-odm-'));
  patient = await t.user({ flags: ['patient'] });
  other = await t.user({ flags: ['patient'] });
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  await post(patient, 'phq9', { time_of_measurement: 'pre', item1: 2, item2: 2, item3: 2, item4: 2, item5: 2, item6: 2, item7: 2, item8: 1, item9: 1, item10: 'very' });
  await post(patient, 'phq9', { time_of_measurement: 'post', item1: 1, item2: 1, item3: 1, item4: 0, item5: 0, item6: 1, item7: 0, item8: 0, item9: 0 });
  await post(other, 'phq9', { time_of_measurement: 'screening', item1: 3, item2: 0 });
  await post(other, 'demographics', { time_of_measurement: 'screening', internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'سوريا & <حلب>', country_of_residence: 'Deutschland', past_treatment: ['psychotherapy', 'medication'], fled: false, loss: false });
});

afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('CDISC ODM 1.3.2 export', () => {
  it.skipIf(!HAS_XMLLINT)('is valid against the ODM 1.3.2 schema, for every questionnaire at once and for a chosen few', async () => {
    const all = await download('/api/export/odm.xml', coordinator.token);
    expect(all.status).toBe(200);
    expect(schemaErrors(all.text)).toBe('');
    const some = await download('/api/export/odm.xml?instruments=phq9,demographics', coordinator.token);
    expect(schemaErrors(some.text)).toBe('');
    // The validator is real: a file with items out of the schema's order is refused.
    expect(schemaErrors(some.text.replace('<Protocol>', '<Protocol><Bogus/>'))).toMatch(/Bogus/);
  });

  it('carries metadata from the definitions in ar, de and en, and each record with its audit record', async () => {
    const file = await download('/api/export/odm.xml?instruments=phq9,demographics', coordinator.token);
    expect(file.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="sanad-odm-\d{4}-\d{2}-\d{2}\.xml"$/);
    const xml = file.text;
    expect(xml).toContain('ODMVersion="1.3.2"');
    expect(xml).toMatch(/<ItemDef OID="I\.phq9\.item1" Name="item1" DataType="integer">/);
    expect(xml).toContain('<TranslatedText xml:lang="de">Item 1: Interesse oder Freude</TranslatedText>');
    expect(xml).toContain('<TranslatedText xml:lang="ar">البند 1: الاهتمام أو المتعة</TranslatedText>');
    expect(xml).toMatch(/<CodeList OID="CL\.phq9\.item10" Name="item10" DataType="text">\s*<CodeListItem CodedValue="not_difficult">/);
    expect(xml).not.toContain('FormOID="F.gad7"');

    const csv = csvObjects((await download('/api/export/phq9.csv', coordinator.token)).text.replace('\uFEFF', ''));
    const pre = csv.find((r) => r.case_id === patient.caseId && r.time_of_measurement === 'pre')!;
    const subject = xml.slice(xml.indexOf(`<SubjectData SubjectKey="${patient.caseId}">`));
    const preForm = subject.slice(subject.indexOf('<StudyEventData StudyEventOID="SE.pre">'), subject.indexOf('</StudyEventData>'));
    expect(preForm).toContain(`<DateTimeStamp>${pre.updated_at}</DateTimeStamp>`);
    for (const name of ['total', 'band', 'flag_suicide_item', 'item9', 'item10']) expect(preForm).toContain(`<ItemData ItemOID="I.phq9.${name}" Value="${pre[name]}"/>`);
    // Undeterminable flags have no ItemData, as they are empty in the CSV (never 0).
    const screening = xml.slice(xml.indexOf(`<SubjectData SubjectKey="${other.caseId}">`));
    const phq9Start = screening.slice(screening.indexOf('<FormData FormOID="F.phq9">'));
    const phq9Screening = phq9Start.slice(0, phq9Start.indexOf('</FormData>'));
    expect(phq9Screening).toContain('<ItemData ItemOID="I.phq9.item1" Value="3"/>');
    expect(phq9Screening).not.toContain('I.phq9.flag_suicide_item');
    expect(screening).toContain('Value="سوريا &amp; &lt;حلب&gt;"');
    // Pseudonymous: no account ids or names.
    for (const person of [patient, other]) {
      expect(xml).not.toContain(person.id);
      expect(xml).not.toContain(person.username);
    }
  });

  it('is for coordinators only: anonymous 401, patient and therapist 403', async () => {
    expect((await download('/api/export/odm.xml')).status).toBe(401);
    for (const person of [patient, therapist]) {
      const refused = await download('/api/export/odm.xml', person.token);
      expect(refused.status).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Only coordinators') });
    }
  });

  it('names unknown questionnaires with a 400', async () => {
    const bad = await download('/api/export/odm.xml?instruments=phq9,nope', coordinator.token);
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: 'unknown_questionnaire', message: expect.stringContaining('"nope"') });
    expect((await download('/api/export/odm.xml?instruments=a&instruments=b', coordinator.token)).status).toBe(400);
  });
});
