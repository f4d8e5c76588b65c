import { describe, expect, it } from 'vitest';
import { clearHidden, defineInstrument, PHQ9, score, validateAnswers } from './index';
import { labels, option } from './labels';
import { DATE, integerScale, multiScale, optionsScale, textScale, yesNo } from './scales';
import { vector } from './testing';

/** A definition with one item of every kind, for the validation rules themselves. */
const SAMPLE = defineInstrument({}, () => ({
  code: 'sample',
  version: 'test',
  kind: 'questionnaire' as const,
  labels: labels('Sample', 'Beispiel', 'مثال'),
  verification: 'project' as const,
  licence: { class: 'project' as const, itemText: 'project' as const, note: 'test' },
  items: [
    { id: 'rating', labels: labels('rating', 'Bewertung', 'تقييم'), scale: integerScale(0, 3), required: true },
    { id: 'choice', labels: labels('choice', 'Auswahl', 'اختيار'), scale: optionsScale([option('a', 'a', 'a', 'أ', { points: 1 }), option('b', 'b', 'b', 'ب', { points: 2 })]), required: false },
    { id: 'gate', labels: labels('gate', 'Filter', 'بوابة'), scale: yesNo(), required: true },
    { id: 'detail', labels: labels('detail', 'Detail', 'تفصيل'), scale: textScale(5), required: true, showIf: { item: 'gate', anyOf: [true] } },
    { id: 'when', labels: labels('date', 'Datum', 'تاريخ'), scale: DATE, required: false },
    { id: 'kinds', labels: labels('kinds', 'Arten', 'أنواع'), scale: multiScale([option('x', 'x', 'x', 'س'), option('none', 'none', 'keine', 'لا شيء', { exclusive: true })]), required: false },
    { id: 'high', labels: labels('only if rating ≥ 2', 'nur bei Bewertung ≥ 2', 'فقط إذا كان التقييم ≥ 2'), scale: integerScale(0, 1), required: false, showIf: { item: 'rating', atLeast: 2 } },
  ],
  subscales: [{ id: 'part', labels: labels('part', 'Teil', 'جزء'), items: ['rating'], aggregate: 'sum' as const }],
  total: { labels: labels('total', 'Summe', 'المجموع'), items: ['rating', 'choice'], aggregate: 'sum' as const },
  flags: [],
  diagnoses: [],
  assumptions: ['test only'],
}));

const valid = { rating: 2, choice: 'b', gate: false, when: '2026-02-28', kinds: ['x'], high: 1 };
const codes = (answers: unknown, partial = false) => validateAnswers(SAMPLE, answers, { partial }).map((e) => `${e.field}:${e.code}`);

describe('validateAnswers', () => {
  it('accepts valid answers and leaves optional items empty', () => {
    expect(validateAnswers(SAMPLE, valid)).toEqual([]);
    expect(validateAnswers(SAMPLE, { rating: 0, gate: false })).toEqual([]);
    expect(validateAnswers(SAMPLE, { rating: 0, gate: false, choice: null, when: '', kinds: [] })).toEqual([]);
  });

  it('refuses values outside the scale', () => {
    expect(codes({ ...valid, rating: 4 })).toEqual(['rating:out_of_range']);
    expect(codes({ ...valid, rating: -1 })).toEqual(['rating:out_of_range']);
    expect(codes({ ...valid, rating: 1.5 })).toEqual(['rating:not_integer']);
    expect(codes({ ...valid, choice: 'c' })).toEqual(['choice:unknown_option']);
    expect(codes({ ...valid, kinds: ['x', 'none'] })).toEqual(['kinds:exclusive_option']);
  });

  it('refuses values of the wrong type', () => {
    expect(codes({ ...valid, rating: '2' })).toEqual(['rating:wrong_type']);
    expect(codes({ ...valid, rating: Number.NaN })).toEqual(['rating:wrong_type']);
    expect(codes({ ...valid, rating: Number.POSITIVE_INFINITY })).toEqual(['rating:wrong_type']);
    expect(codes({ ...valid, rating: '' })).toEqual(['rating:wrong_type']);
    expect(codes({ ...valid, rating: true })).toEqual(['rating:wrong_type']);
    expect(codes({ ...valid, choice: 2 })).toEqual(['choice:wrong_type']);
    expect(codes({ ...valid, gate: 'no' })).toEqual(['gate:wrong_type']);
    expect(codes({ ...valid, kinds: 'x' })).toEqual(['kinds:wrong_type']);
    expect(codes({ ...valid, kinds: [1] })).toEqual(['kinds:wrong_type']);
    expect(codes({ ...valid, when: 20260228 })).toEqual(['when:wrong_type']);
    expect(codes({ ...valid, rating: { value: 2 } })).toEqual(['rating:wrong_type']);
  });

  it('checks dates as calendar dates written YYYY-MM-DD', () => {
    expect(codes({ ...valid, when: '2026-02-29' })).toEqual(['when:invalid_date']);
    expect(codes({ ...valid, when: '2024-02-29' })).toEqual([]);
    expect(codes({ ...valid, when: '28.02.2026' })).toEqual(['when:invalid_date']);
    expect(codes({ ...valid, when: '2026-2-28' })).toEqual(['when:invalid_date']);
  });

  it('measures text length in characters', () => {
    expect(codes({ ...valid, gate: true, detail: 'سلام!' })).toEqual([]);
    expect(codes({ ...valid, gate: true, detail: 'سلامٌ!' })).toEqual(['detail:too_long']);
  });

  it('refuses unknown items, and scores sent by a client with their own code', () => {
    expect(codes({ ...valid, item99: 1 })).toEqual(['item99:unknown_item']);
    // record fields are the caller's, not answers
    expect(codes({ ...valid, case_id: 'c1' })).toEqual(['case_id:unknown_item']);
    expect(codes({ ...valid, total: 5, part: 2, band: 'x', flags: [], score: 3 })).toEqual(['total:computed_field', 'part:computed_field', 'band:computed_field', 'flags:computed_field', 'score:computed_field']);
    expect(validateAnswers(PHQ9, { ...vector([0, 0, 0, 0, 0, 0, 0, 0, 0]), total: 0, phq2: 0 }).map((e) => e.code)).toEqual(['computed_field', 'computed_field']);
  });

  it('treats prototype names as plain unknown keys', () => {
    const hostile = JSON.parse('{"__proto__": {"rating": 1}, "constructor": 1, "rating": 1, "gate": false}') as unknown;
    expect(codes(hostile)).toEqual(['__proto__:unknown_item', 'constructor:unknown_item']);
    expect(codes({ gate: false })).toEqual(['rating:required']);
  });

  it('reports missing required items, except for a draft', () => {
    expect(codes({})).toEqual(['rating:required', 'gate:required']);
    expect(codes({}, true)).toEqual([]);
    expect(codes({ rating: 1, gate: true })).toEqual(['detail:required']);
  });

  it('refuses answers to items that are not shown', () => {
    expect(codes({ ...valid, detail: 'x' })).toEqual(['detail:not_applicable']);
    expect(codes({ ...valid, rating: 1, high: 0 })).toEqual(['high:not_applicable']);
    expect(clearHidden(SAMPLE, { ...valid, rating: 1, detail: 'x' })).toEqual({ rating: 1, choice: 'b', gate: false, when: '2026-02-28', kinds: ['x'] });
  });

  it('never throws on bad input', () => {
    for (const input of [null, undefined, 0, 'x', [], [1, 2], true, () => 1, new Date(), Object.create(null)]) {
      expect(() => validateAnswers(SAMPLE, input)).not.toThrow();
      expect(() => score(SAMPLE, input)).not.toThrow();
    }
    expect(codes(null)).toEqual([':not_an_object']);
    expect(codes([])).toEqual([':not_an_object']);
    expect(codes('answers')).toEqual([':not_an_object']);
    expect(codes(Object.create(null))).toEqual(['rating:required', 'gate:required']);
  });
});

describe('score and missing data', () => {
  it('gives no total when a required item is missing, and says which', () => {
    const result = score(SAMPLE, { gate: true, detail: 'ok', choice: 'a' });
    expect(result).toEqual({ subscales: { part: undefined }, flags: [], complete: false, missingRequired: ['rating'] });
  });

  it('leaves optional unanswered items out of the total', () => {
    expect(score(SAMPLE, { rating: 3, gate: false })).toMatchObject({ total: 3, complete: true });
    expect(score(SAMPLE, { rating: 3, gate: false, choice: 'b' }).total).toBe(5);
  });

  it('counts an invalid answer as missing', () => {
    expect(score(SAMPLE, { rating: 9, gate: false })).toMatchObject({ complete: false, missingRequired: ['rating'] });
    const phq9 = score(PHQ9, { ...vector([3, 3, 3, 3, 3, 3, 3, 3]), item9: '3' });
    expect(phq9).toMatchObject({ complete: false, missingRequired: ['item9'] });
    expect(phq9.flags).not.toContain('suicide_item');
  });

  it('ignores answers to hidden items', () => {
    expect(score(SAMPLE, { rating: 1, gate: false, detail: 'x' })).toMatchObject({ complete: true, missingRequired: [] });
  });
});

describe('errors behind an invalid answer', () => {
  it('reports the invalid gate answer, not the items it would show or hide', () => {
    expect(codes({ ...valid, gate: 'yes', detail: 'x' })).toEqual(['gate:wrong_type']);
    expect(codes({ ...valid, gate: 'yes' })).toEqual(['gate:wrong_type']);
    expect(codes({ ...valid, rating: 7, high: 1 })).toEqual(['rating:out_of_range']);
    // the dependent item's own type is still checked
    expect(codes({ ...valid, rating: 7, high: 'one' })).toEqual(['rating:out_of_range', 'high:wrong_type']);
  });
});
