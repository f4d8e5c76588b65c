import { describe, expect, it } from 'vitest';
import { COMMENT, DEMOGRAPHICS, INSTRUMENT_CODES, INSTRUMENTS, LEC5, PHQ9, score } from './index';
import { CODEBOOK_HEADER, codebookCsv, codebookRows, CSV_BOM, csvField, exportCell, exportColumns, exportCsv, exportCsvChunks, exportFileName, guardFormula, itemsInOrder, shownIfText, toCsv, type ExportRecord } from './export';
import type { InstrumentDefinition } from './types';
import type { Answers } from './types';
import { parseCsv } from '../../../test/helpers/csv';


function record(answers: Answers, overrides: Partial<ExportRecord> = {}, definition: InstrumentDefinition = PHQ9): ExportRecord {
  const scored = score(PHQ9, answers);
  return {
    caseId: '00000000-0000-4000-8000-000000000001',
    timeOfMeasurement: 'pre',
    createdAt: '2026-11-20T09:00:00Z',
    updatedAt: '2026-11-21T10:30:00Z',
    excludeFromAnalysis: false,
    isDropout: true,
    complete: scored.complete,
    total: scored.total ?? null,
    band: scored.band ?? null,
    subscales: scored.subscales,
    flags: scored.flags,
    diagnoses: scored.diagnoses ?? null,
    items: itemsInOrder(definition, answers),
    ...overrides,
  };
}

const PHQ9_ANSWERS = { item1: 2, item2: 2, item3: 2, item4: 2, item5: 2, item6: 2, item7: 2, item8: 1, item9: 1, item10: 'very' };

describe('export columns', () => {
  it('follow the documented order: record, case, scores, subscales, flags, diagnoses, items', () => {
    expect(exportColumns(PHQ9).map((c) => c.name)).toEqual([
      'case_id',
      'time_of_measurement',
      'created_at',
      'updated_at',
      'exclude_from_analysis',
      'is_dropout',
      'treatment',
      'complete',
      'total',
      'band',
      'subscale_phq2',
      'flag_suicide_item',
      'flag_screen_positive',
      'flag_phq2_positive',
      'diagnosis_major_depressive_syndrome',
      'diagnosis_other_depressive_syndrome',
      ...Array.from({ length: 10 }, (_, i) => `item${i + 1}`),
    ]);
  });

  it('leave out total and band where the instrument has none', () => {
    expect(exportColumns(COMMENT).map((c) => c.name)).toEqual(['case_id', 'time_of_measurement', 'created_at', 'updated_at', 'exclude_from_analysis', 'is_dropout', 'treatment', 'complete', 'comment']);
  });

  it.each(INSTRUMENT_CODES)('%s: unique, plain names; no record id, submitter or name', (code) => {
    const names = exportColumns(INSTRUMENTS[code]).map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    for (const hidden of ['id', 'submitter_id', 'username', 'alias', 'user_id']) expect(names).not.toContain(hidden);
  });

  it.each(INSTRUMENT_CODES)('%s: no stored code is altered by the formula guard', (code) => {
    for (const item of INSTRUMENTS[code].items) {
      if (item.scale.kind === 'options' || item.scale.kind === 'multi') for (const o of item.scale.options) expect(guardFormula(o.code)).toBe(o.code);
    }
    for (const band of INSTRUMENTS[code].bands ?? []) expect(guardFormula(band.code)).toBe(band.code);
  });
});

describe('export cells', () => {
  it('write server scores, case facts and stored codes, never labels', () => {
    const columns = exportColumns(PHQ9);
    const cells = Object.fromEntries(columns.map((c) => [c.name, exportCell(c, record(PHQ9_ANSWERS))]));
    expect(cells).toMatchObject({
      case_id: '00000000-0000-4000-8000-000000000001',
      time_of_measurement: 'pre',
      exclude_from_analysis: 0,
      is_dropout: 1,
      complete: 1,
      total: 16,
      band: 'moderately_severe',
      subscale_phq2: 4,
      flag_suicide_item: 1,
      flag_screen_positive: 1,
      flag_phq2_positive: 1,
      diagnosis_major_depressive_syndrome: 1,
      diagnosis_other_depressive_syndrome: 0,
      item1: 2,
      item9: 1,
      item10: 'very',
    });
  });

  it('leave unanswered items, undetermined diagnoses and unscored records empty', () => {
    const partial = record({ item1: 0, item2: 1 });
    const cell = (name: string, r = partial) => exportCell(exportColumns(PHQ9).find((c) => c.name === name)!, r);
    expect(cell('complete')).toBe(0);
    expect(cell('total')).toBeNull();
    expect(cell('band')).toBeNull();
    expect(cell('item3')).toBeNull();
    expect(cell('diagnosis_major_depressive_syndrome')).toBeNull();
    expect(cell('flag_suicide_item')).toBe(0);
    const unscored = record({ item1: 0 }, { complete: null, total: null, band: null, subscales: null, flags: null, diagnoses: null });
    expect(cell('flag_suicide_item', unscored)).toBeNull();
    expect(cell('subscale_phq2', unscored)).toBeNull();
    expect(cell('complete', unscored)).toBeNull();
  });

  it('join a multi-select’s codes with ; and write yes/no as 1/0', () => {
    const columns = exportColumns(DEMOGRAPHICS);
    const answers = { past_treatment: ['psychotherapy', 'medication'], fled: false, loss: true, age: 30, country_of_origin: 'سوريا' };
    const cells = Object.fromEntries(columns.map((c) => [c.name, exportCell(c, record(answers, {}, DEMOGRAPHICS))]));
    expect(cells).toMatchObject({ past_treatment: 'psychotherapy;medication', fled: 0, loss: 1, age: 30, country_of_origin: 'سوريا', flight_reason: null });
  });
});

describe('CSV', () => {
  it('starts with a byte-order mark and ends every line with CRLF', () => {
    const text = toCsv(['a', 'b'], [[1, 'x']]);
    expect(text).toBe(`${CSV_BOM}a,b\r\n1,x\r\n`);
    expect(new TextEncoder().encode(text).slice(0, 3)).toEqual(new Uint8Array([0xef, 0xbb, 0xbf]));
  });

  it('quotes commas, quotes and line breaks as RFC 4180 says', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('line\nbreak')).toBe('"line\nbreak"');
    expect(csvField('crlf\r\nx')).toBe('"crlf\r\nx"');
    expect(csvField('plain')).toBe('plain');
    expect(csvField(null)).toBe('');
    const rows = [['a,b', 'say "hi"', 'two\r\nlines', 'مرحبا، عالم', null, 3.5]];
    expect(parseCsv(toCsv(['w', 'x', 'y', 'z', 'e', 'n'], rows).slice(1))).toEqual([
      ['w', 'x', 'y', 'z', 'e', 'n'],
      ['a,b', 'say "hi"', 'two\r\nlines', 'مرحبا، عالم', '', '3.5'],
    ]);
  });

  it('makes text that a spreadsheet would run inert, and leaves numbers alone', () => {
    expect(csvField('=HYPERLINK("http://evil.example","x")')).toBe(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    expect(csvField('+1')).toBe("'+1");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('\tx')).toBe("'\tx");
    expect(csvField('\rx')).toBe(`"'\rx"`);
    expect(csvField('a=b')).toBe('a=b');
    expect(csvField(-3)).toBe('-3');
    expect(csvField(0)).toBe('0');
    expect(csvField(Number.NaN)).toBe('');
  });

  it('writes a whole instrument file with one line per record', () => {
    const text = exportCsv(COMMENT, [record({ comment: '=1+1' }, { complete: true }, COMMENT)]);
    const [header, line, ...rest] = parseCsv(text.slice(1));
    expect(header).toEqual(exportColumns(COMMENT).map((c) => c.name));
    expect(line).toEqual(['00000000-0000-4000-8000-000000000001', 'pre', '2026-11-20T09:00:00Z', '2026-11-21T10:30:00Z', '0', '1', '', '1', "'=1+1"]);
    expect(rest).toEqual([]);
  });
});

it('streams the same file in chunks of lines', () => {
  const records = Array.from({ length: 5 }, (_, i) => record({ ...PHQ9_ANSWERS, item1: i % 4 }));
  const chunks = [...exportCsvChunks(PHQ9, records, 2)];
  expect(chunks).toHaveLength(4); // header, 2 + 2 + 1 lines
  expect(chunks[0]).toBe(`${CSV_BOM}${exportColumns(PHQ9).map((c) => c.name).join(',')}\r\n`);
  expect(chunks.join('')).toBe(exportCsv(PHQ9, records));
  expect(parseCsv(chunks.join('').slice(1))).toHaveLength(6);
});

describe('codebook', () => {
  const rowsOf = (locale: 'ar' | 'de' | 'en') => new Map(codebookRows(PHQ9, locale).map((row) => [row[0], Object.fromEntries(CODEBOOK_HEADER.map((h, i) => [h, row[i]]))]));

  it('describes every exported column, in the export’s order', () => {
    for (const code of INSTRUMENT_CODES) {
      const definition = INSTRUMENTS[code];
      expect(codebookRows(definition, 'en').map((row) => row[0])).toEqual(exportColumns(definition).map((c) => c.name));
    }
  });

  it('gives kind, type, label, values and the instrument’s version and licence', () => {
    const rows = rowsOf('en');
    expect(rows.get('item1')).toEqual({
      variable: 'item1',
      kind: 'item',
      type: 'integer',
      label: 'Item 1: interest or pleasure',
      values: '0–3 (0=not at all; 1=on several days; 2=on more than half the days; 3=nearly every day)',
      required: 1,
      shown_if: '',
      instrument: 'phq9',
      instrument_title: 'Patient Health Questionnaire (PHQ-9)',
      instrument_version: PHQ9.version,
      verification: 'partly_verified',
      licence: `free: ${PHQ9.licence.note}`,
    });
    expect(rows.get('item10')).toMatchObject({ type: 'code', required: 0, values: expect.stringContaining('not_difficult=not difficult at all; somewhat=') });
    expect(rows.get('total')).toMatchObject({ kind: 'score', type: 'number', label: 'PHQ-9 total', values: '0–27' });
    expect(rows.get('band')).toMatchObject({ values: expect.stringContaining('mild=mild (≥ 5); moderate=moderate (≥ 10)') });
    expect(rows.get('subscale_phq2')).toMatchObject({ kind: 'subscale', values: '0–6' });
    expect(rows.get('flag_suicide_item')).toMatchObject({ kind: 'flag', type: 'boolean', values: '1=raised; 0=not raised' });
    expect(rows.get('diagnosis_major_depressive_syndrome')).toMatchObject({ kind: 'diagnosis', values: expect.stringMatching(/^1=criteria met; 0=criteria not met; empty/) });
    expect(rows.get('exclude_from_analysis')).toMatchObject({ kind: 'case', values: '1=yes; 0=no' });
    expect(rows.get('time_of_measurement')).toMatchObject({ kind: 'record', values: expect.stringContaining('screening=screening; pre=before treatment') });
  });

  it('labels in the chosen locale, with the same codes', () => {
    expect(rowsOf('ar').get('item1')).toMatchObject({ label: 'البند 1: الاهتمام أو المتعة', values: expect.stringContaining('0=إطلاقاً'), instrument_title: 'استبيان صحة المريض (PHQ-9)' });
    expect(rowsOf('de').get('exclude_from_analysis')).toMatchObject({ values: '1=ja; 0=nein' });
  });

  it('writes display conditions over export values', () => {
    expect(shownIfText(DEMOGRAPHICS, DEMOGRAPHICS.items.find((i) => i.id === 'flight_reason')!.showIf)).toBe('fled = 1');
    expect(shownIfText(LEC5, LEC5.items.find((i) => i.id === 'item17_description')!.showIf)).toBe('item17 has any of (happened, witnessed, learned, job, unsure)');
    expect(shownIfText(PHQ9, { item: 'item9', atLeast: 1 })).toBe('item9 >= 1');
    expect(shownIfText(PHQ9, { item: 'item10', anyOf: ['very', 'extremely'] })).toBe('item10 in (very, extremely)');
    const multi = codebookRows(DEMOGRAPHICS, 'en').find((row) => row[0] === 'past_treatment')!;
    expect(multi[4]).toMatch(/^codes of every selected option, separated by ;: none=no earlier treatment; psychotherapy=/);
  });

  it('is a CSV file with the header first', () => {
    const text = codebookCsv(PHQ9, 'de');
    expect(text.startsWith(`${CSV_BOM}${CODEBOOK_HEADER.join(',')}\r\n`)).toBe(true);
    expect(parseCsv(text.slice(1))).toHaveLength(1 + exportColumns(PHQ9).length);
  });
});

it('names files by instrument and day', () => {
  const day = new Date('2026-11-22T23:30:00Z');
  expect(exportFileName('phq9', day)).toBe('sanad-phq9-2026-11-22.csv');
  expect(exportFileName('phq9', day, 'ar')).toBe('sanad-phq9-codebook-ar-2026-11-22.csv');
});
