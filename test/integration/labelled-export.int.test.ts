/**
 * Labelled statistics exports (issue 33): SPSS, Stata and R syntax beside the research CSV, one
 * codebook shape for questionnaires and reports, and undeterminable flags left empty. The SPSS
 * file is run by a real reader, GNU PSPP, and the R script by R with haven, when installed
 * (.ci/run installs both from Debian's packages).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { CODEBOOK_COLUMNS } from '../../src/domain/export/dictionary';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects, parseCsv } from '../helpers/csv';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let patient: Person, other: Person, therapist: Person, coordinator: Person;
let dir: string;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const PHQ9_PRE = { item1: 2, item2: 2, item3: 2, item4: 2, item5: 2, item6: 2, item7: 2, item8: 1, item9: 1, item10: 'very' };

function installed(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const HAS_PSPP = installed('pspp', ['--version']);
const HAS_R_HAVEN = installed('Rscript', ['-e', 'library(haven)']);

async function post(person: Person, collection: string, body: object) {
  const response = await t.api('POST', `/api/${collection}`, { body: { case_id: person.caseId, ...body }, token: person.token, headers: UPSERT });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
}

async function download(path: string, token?: string) {
  const response = await fetch(t.url + path, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as { error: string; message: string } };
}

/** The data file and a syntax file saved side by side, as a statistician would. */
async function saveBoth(code: string, format: 'sps' | 'do' | 'R', locale: string): Promise<{ syntax: string; dataFile: string }> {
  const data = await fetch(`${t.url}/api/export/${code}.csv`, { headers: { authorization: `Bearer ${coordinator.token}` } });
  const dataFile = /filename="([^"]+)"/.exec(data.headers.get('content-disposition')!)![1]!;
  writeFileSync(join(dir, dataFile), new Uint8Array(await data.arrayBuffer()));
  const syntax = await download(`/api/export/${code}/syntax.${format}?locale=${locale}`, coordinator.token);
  expect(syntax.status).toBe(200);
  expect(syntax.text).toContain(dataFile);
  const path = join(dir, `${code}.${format}`);
  writeFileSync(path, syntax.text);
  return { syntax: path, dataFile };
}

beforeAll(async () => {
  t = await startTestApp();
  dir = mkdtempSync(join(tmpdir(), 'sanad-labelled-'));
  patient = await t.user({ flags: ['patient'] });
  other = await t.user({ flags: ['patient'] });
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
  coordinator = await t.user({ flags: ['coordinator'] });
  await post(patient, 'phq9', { time_of_measurement: 'pre', ...PHQ9_PRE });
  await post(other, 'phq9', { time_of_measurement: 'screening', item1: 3, item2: 0 }); // item 9 unanswered
  await post(other, 'demographics', { time_of_measurement: 'screening', internet_access: true, email: true, age: 30, gender: 'FEMALE', country_of_origin: 'سوريا، حلب', country_of_residence: 'Deutschland', past_treatment: ['psychotherapy', 'medication'], fled: false, loss: false });
});

afterAll(async () => {
  await t?.close();
  if (dir) if (!process.env.KEEP_EXPORT_DIR) rmSync(dir, { recursive: true, force: true });
});

describe('labelled syntax files', () => {
  const paths = ['/api/export/phq9/syntax.sps', '/api/export/gad7/syntax.do?locale=de', '/api/export/interview_reports/syntax.R?locale=ar'];

  it.each(paths)('%s: coordinator 200; anonymous 401; patient and therapist 403', async (path) => {
    const ok = await download(path, coordinator.token);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-disposition')).toMatch(/^attachment; filename="sanad-[a-z0-9_]+-\d{4}-\d{2}-\d{2}-labels-(ar|de|en)\.(sps|do|R)"$/);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect((await download(path)).status).toBe(401);
    for (const person of [patient, therapist]) {
      const refused = await download(path, person.token);
      expect(refused.status).toBe(403);
      expect(refused.json()).toMatchObject({ error: 'forbidden', message: expect.stringContaining('Only coordinators') });
    }
  });

  it('answers an unknown file with 404 and a list, and an unknown locale with 400', async () => {
    const missing = await download('/api/export/nope/syntax.sps', coordinator.token);
    expect(missing.status).toBe(404);
    expect(missing.json().message).toContain('interview_reports');
    const badLocale = await download('/api/export/phq9/syntax.do?locale=fr', coordinator.token);
    expect(badLocale.status).toBe(400);
    expect(badLocale.json()).toMatchObject({ error: 'locale_unsupported' });
  });

  it('contains no case data, only the dictionary', async () => {
    for (const format of ['sps', 'do', 'R']) {
      const file = await download(`/api/export/phq9/syntax.${format}?locale=en`, coordinator.token);
      expect(file.text).not.toContain(patient.caseId!);
      expect(file.text).toContain('item9');
    }
  });

  it('Stata: long names cut to 32 characters, coded strings become labelled numbers', async () => {
    const file = (await download('/api/export/phq9/syntax.do?locale=de', coordinator.token)).text;
    expect(file).toContain('rename v15 diagnosis_major_depressive_syndr\n');
    expect(file).toMatch(/replace band = 2 if band_code == `"mild"'/);
    expect(file).toContain('label define item1 0 `"überhaupt nicht"\'');
    expect(file).not.toMatch(/^rename v\d+ \S{33,}$/m);
  });

  it.skipIf(!HAS_PSPP)('PSPP reads the CSV with the SPSS syntax: labels in the locale, unknown flags missing, Arabic intact', async () => {
    const { syntax } = await saveBoth('phq9', 'sps', 'de');
    writeFileSync(syntax, readFileSync(syntax, 'utf8') + 'DISPLAY DICTIONARY /VARIABLES=item1 band flag_suicide_item.\nLIST /VARIABLES=case_id total band flag_suicide_item flag_phq2_positive item9 item10.\n');
    const out = join(dir, 'phq9-out.csv');
    execFileSync('pspp', [syntax, '-o', out], { cwd: dir });
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('item1,17,Item 1: Interesse oder Freude,Ordinal');
    expect(text).toMatch(/Item 1: Interesse oder Freude,0,überhaupt nicht/);
    expect(text).toMatch(/,mild,mild/);
    const list = parseCsv(text.slice(text.indexOf('Table: Data List') + 'Table: Data List'.length).trim().replaceAll('\n', '\r\n'));
    const rows = Object.fromEntries(list.slice(1).map((row) => [row[0], row]));
    expect(rows[patient.caseId!]!.slice(1)).toEqual(['16.000', 'moderately_severe', '1', '1', '1', 'very']);
    // Item 9 unanswered: the suicide flag is system-missing (.), not 0.
    expect(rows[other.caseId!]!.slice(1).map((cell: string) => cell.trim())).toEqual(['.', '', '.', '1', '.', '']);

    const demo = await saveBoth('demographics', 'sps', 'ar');
    writeFileSync(demo.syntax, readFileSync(demo.syntax, 'utf8') + 'LIST /VARIABLES=age country_of_origin past_treatment.\n');
    const demoOut = join(dir, 'demo-out.csv');
    execFileSync('pspp', [demo.syntax, '-o', demoOut], { cwd: dir });
    expect(readFileSync(demoOut, 'utf8')).toContain('30,سوريا، حلب,psychotherapy;medication');
  });

  it.skipIf(!HAS_R_HAVEN)('R with haven reads the CSV with the R script: labels and missing flags', async () => {
    const { syntax } = await saveBoth('phq9', 'R', 'ar');
    const probe = `source(${JSON.stringify(syntax)}, encoding = "UTF-8", chdir = TRUE)
cat(attr(data$item1, "label"), "\\n")
cat(names(attr(data$item1, "labels")), sep = "|"); cat("\\n")
cat(haven::as_factor(data$band)[data$case_id == ${JSON.stringify(patient.caseId)}] |> as.character(), "\\n")
cat(is.na(data$flag_suicide_item[data$case_id == ${JSON.stringify(other.caseId)}]), "\\n")
cat(class(data$item1), "\\n")`;
    const out = execFileSync('Rscript', ['-e', probe], { cwd: dir, encoding: 'utf8' }).split('\n').map((line) => line.trim());
    expect(out[0]).toBe('البند 1: الاهتمام أو المتعة');
    expect(out[1]).toBe('إطلاقاً|عدة أيام|أكثر من نصف الأيام|كل يوم تقريباً');
    expect(out[2]).toBe('متوسط الشدة');
    expect(out[3]).toBe('TRUE');
    expect(out[4]).toContain('haven_labelled');
  });
});

describe('one codebook shape', () => {
  it('questionnaires and reports share the columns; report choices are value-label rows', async () => {
    const books = await Promise.all(['/api/export/phq9/codebook.csv?locale=en', '/api/export/interview_reports/codebook.csv?locale=en', '/api/export/feedback_interview_reports/codebook.csv?locale=en'].map((path) => download(path, coordinator.token)));
    for (const book of books) {
      expect(book.status).toBe(200);
      expect(parseCsv(book.text.replace('\uFEFF', ''))[0]).toEqual([...CODEBOOK_COLUMNS]);
    }
    const report = csvObjects(books[1]!.text.replace('\uFEFF', ''));
    const risk = report.filter((r) => r.variable === 'suicidality_risk');
    expect(risk[0]).toMatchObject({ kind: 'field', type: 'code', derivation: expect.stringContaining('computed') });
    expect(risk.slice(1).map((r) => r.value)).toEqual(expect.arrayContaining(['low', 'moderate', 'high']));
    for (const row of report) expect(row.value).not.toMatch(/[|;]/);
    const phq9 = csvObjects(books[0]!.text.replace('\uFEFF', ''));
    expect(phq9.find((r) => r.variable === 'flag_suicide_item' && r.kind === 'flag')).toMatchObject({ missing: expect.stringContaining('never 0'), derivation: 'item9 >= 1' });
  });
});
