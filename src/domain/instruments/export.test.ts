import { describe, expect, it } from 'vitest';
import { COMMENT, DEMOGRAPHICS, INSTRUMENT_CODES, INSTRUMENTS, LEC5, PHQ9, score } from './index';
import { CODEBOOK_COLUMNS } from '../export/dictionary';
import { codebookCsv, CSV_BOM, flagCell, instrumentDataset, csvField, exportCell, exportColumns, exportCsv, exportCsvChunks, exportFileName, guardFormula, itemsInOrder, shownIfText, toCsv, type ExportRecord } from './export';
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
    // Item 9 unanswered: the suicide flag cannot be determined, so it is empty, never 0 (issue 33).
    expect(cell('flag_suicide_item')).toBeNull();
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
  const variablesOf = (locale: 'ar' | 'de' | 'en', definition: InstrumentDefinition = PHQ9) => new Map(instrumentDataset(definition, locale).variables.map((v) => [v.name, v]));

  it('describes every exported column, in the export’s order', () => {
    for (const code of INSTRUMENT_CODES) {
      const definition = INSTRUMENTS[code];
      expect(instrumentDataset(definition, 'en').variables.map((v) => v.name)).toEqual(exportColumns(definition).map((c) => c.name));
    }
  });

  it('gives kind, type, label, range, value labels as data, missing meaning and derivation', () => {
    const vars = variablesOf('en');
    expect(vars.get('item1')).toMatchObject({
      kind: 'item',
      type: 'integer',
      label: 'Item 1: interest or pleasure',
      min: 0,
      max: 3,
      values: [
        { value: 0, label: 'not at all' },
        { value: 1, label: 'on several days' },
        { value: 2, label: 'on more than half the days' },
        { value: 3, label: 'nearly every day' },
      ],
      required: true,
      shownIf: '',
      missing: expect.stringContaining('not answered'),
    });
    expect(vars.get('item10')).toMatchObject({ type: 'code', required: false, values: expect.arrayContaining([{ value: 'not_difficult', label: 'not difficult at all' }]) });
    expect(vars.get('total')).toMatchObject({ kind: 'score', type: 'number', label: 'PHQ-9 total', min: 0, max: 27, derivation: 'sum(item1, item2, item3, item4, item5, item6, item7, item8, item9)' });
    expect(vars.get('band')).toMatchObject({ derivation: expect.stringContaining('mild if total >= 5; moderate if total >= 10'), values: expect.arrayContaining([{ value: 'mild', label: 'mild' }]) });
    expect(vars.get('subscale_phq2')).toMatchObject({ kind: 'subscale', min: 0, max: 6 });
    expect(vars.get('flag_suicide_item')).toMatchObject({ kind: 'flag', type: 'boolean', values: [{ value: 1, label: 'raised' }, { value: 0, label: 'not raised' }], derivation: 'item9 >= 1', missing: expect.stringContaining('cannot be determined') });
    expect(vars.get('flag_screen_positive')).toMatchObject({ derivation: 'total >= 10' });
    expect(vars.get('diagnosis_major_depressive_syndrome')).toMatchObject({ kind: 'diagnosis', missing: expect.stringContaining('never 0') });
    expect(vars.get('exclude_from_analysis')).toMatchObject({ kind: 'case', values: [{ value: 1, label: 'yes' }, { value: 0, label: 'no' }] });
    expect(vars.get('time_of_measurement')?.values.slice(0, 2)).toEqual([{ value: 'screening', label: 'screening' }, { value: 'pre', label: 'before treatment' }]);
  });

  it('labels in the chosen locale, with the same codes', () => {
    expect(variablesOf('ar').get('item1')).toMatchObject({ label: 'البند 1: الاهتمام أو المتعة', values: expect.arrayContaining([{ value: 0, label: 'إطلاقاً' }]) });
    expect(instrumentDataset(PHQ9, 'ar').title).toBe('استبيان صحة المريض (PHQ-9)');
    expect(variablesOf('de').get('exclude_from_analysis')?.values).toEqual([{ value: 1, label: 'ja' }, { value: 0, label: 'nein' }]);
  });

  it('writes display conditions over export values', () => {
    expect(shownIfText(DEMOGRAPHICS, DEMOGRAPHICS.items.find((i) => i.id === 'flight_reason')!.showIf)).toBe('fled = 1');
    expect(shownIfText(LEC5, LEC5.items.find((i) => i.id === 'item17_description')!.showIf)).toBe('item17 has any of (happened, witnessed, learned, job, unsure)');
    expect(shownIfText(PHQ9, { item: 'item9', atLeast: 1 })).toBe('item9 >= 1');
    expect(shownIfText(PHQ9, { item: 'item10', anyOf: ['very', 'extremely'] })).toBe('item10 in (very, extremely)');
    const multi = variablesOf('en', DEMOGRAPHICS).get('past_treatment')!;
    expect(multi.type).toBe('codes');
    expect(multi.values[0]).toEqual({ value: 'none', label: 'no earlier treatment' });
  });

  it('is one CSV table: a variable row, then one row per value label', () => {
    const text = codebookCsv(PHQ9, 'de');
    expect(text.startsWith(`${CSV_BOM}${CODEBOOK_COLUMNS.join(',')}\r\n`)).toBe(true);
    const rows = parseCsv(text.slice(1));
    const dataset = instrumentDataset(PHQ9, 'de');
    expect(rows).toHaveLength(1 + dataset.variables.reduce((n, v) => n + 1 + v.values.length, 0));
    const item1 = rows.findIndex((row) => row[0] === 'item1');
    expect(rows[item1]!.slice(0, 9)).toEqual(['item1', 'phq9', 'item', 'integer', 'Item 1: Interesse oder Freude', '', '', '0', '3']);
    expect(rows[item1 + 1]!.slice(0, 7)).toEqual(['item1', 'phq9', '', '', '', '0', 'überhaupt nicht']);
  });
});

describe('flags that cannot be determined', () => {
  const base = { caseId: 'c', timeOfMeasurement: 'pre', createdAt: '', updatedAt: '', excludeFromAnalysis: false, isDropout: false, band: null, subscales: {}, diagnoses: {} };
  const suicide = PHQ9.flags.find((f) => f.code === 'suicide_item')!;
  const screen = PHQ9.flags.find((f) => f.code === 'screen_positive')!;
  const answers = (values: Record<string, number>) => itemsInOrder(PHQ9, values);

  it('are empty, not 0, when the answers they read are missing', () => {
    const partial: ExportRecord = { ...base, complete: false, total: null, flags: [], items: answers({ item1: 3, item2: 0 }) };
    expect(flagCell(PHQ9, suicide, partial)).toBeNull();
    expect(flagCell(PHQ9, screen, partial)).toBeNull();
  });

  it('are 0 when their answers are in and 1 when raised', () => {
    const done: ExportRecord = { ...base, complete: true, total: 4, flags: [], items: answers({ item1: 1, item2: 1, item3: 1, item4: 1, item5: 0, item6: 0, item7: 0, item8: 0, item9: 0 }) };
    expect(flagCell(PHQ9, suicide, done)).toBe(0);
    expect(flagCell(PHQ9, screen, done)).toBe(0);
    expect(flagCell(PHQ9, suicide, { ...done, flags: ['suicide_item'] })).toBe(1);
    expect(flagCell(PHQ9, suicide, { ...done, flags: null })).toBeNull();
  });
});

it('names files by instrument and day', () => {
  const day = new Date('2026-11-22T23:30:00Z');
  expect(exportFileName('phq9', day)).toBe('sanad-phq9-2026-11-22.csv');
  expect(exportFileName('phq9', day, 'ar')).toBe('sanad-phq9-codebook-ar-2026-11-22.csv');
});
