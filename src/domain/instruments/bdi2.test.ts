import { describe, expect, it } from 'vitest';
import { BDI2, score, validateAnswers } from './index';
import type { AnswerValue } from './types';

/** BDI-II answers from 21 points; items 16 and 18 take a code (default: the number as code). */
function bdi(points: readonly number[], codes: { item16?: string; item18?: string } = {}): Record<string, AnswerValue> {
  const answers: Record<string, AnswerValue> = {};
  points.forEach((p, index) => {
    const n = index + 1;
    answers[`item${n}`] = n === 16 || n === 18 ? String(p) : p;
  });
  if (codes.item16) answers.item16 = codes.item16;
  if (codes.item18) answers.item18 = codes.item18;
  return answers;
}

/** `total` points spread over the items other than 9, 16 and 18, at most 3 each. */
function spread(total: number): number[] {
  const points = Array.from({ length: 21 }, () => 0);
  let left = total;
  for (let n = 1; n <= 21 && left > 0; n++) {
    if (n === 9 || n === 16 || n === 18) continue;
    points[n - 1] = Math.min(3, left);
    left -= points[n - 1]!;
  }
  return points;
}

describe('BDI-II (INSTRUMENTS.md §2)', () => {
  it.each([
    [0, 'minimal'],
    [13, 'minimal'],
    [14, 'mild'],
    [19, 'mild'],
    [20, 'moderate'],
    [28, 'moderate'],
    [29, 'severe'],
    [44, 'severe'],
    [45, 'severe'],
  ])('total %i is %s', (total, band) => {
    const result = score(BDI2, bdi(spread(total)));
    expect(result.total).toBe(total);
    expect(result.band).toBe(band);
    expect(result.flags).not.toContain('suicide_item');
  });

  it('scores items 16 and 18 by the number of their code and stores the letter', () => {
    const answers = bdi(spread(10), { item16: '3b', item18: '1a' });
    expect(validateAnswers(BDI2, answers)).toEqual([]);
    expect(score(BDI2, answers).total).toBe(14);
    expect(score(BDI2, answers).band).toBe('mild');
    expect(answers.item16).toBe('3b');
    // the a/b variants score alike
    expect(score(BDI2, bdi(spread(10), { item16: '3a', item18: '1b' })).total).toBe(14);
    // 13/14 boundary reached through a lettered code
    expect(score(BDI2, bdi(spread(12), { item16: '1a' })).band).toBe('minimal');
    expect(score(BDI2, bdi(spread(12), { item16: '2b' })).band).toBe('mild');
  });

  it('accepts only the seven codes on items 16 and 18 and plain 0–3 elsewhere', () => {
    expect(validateAnswers(BDI2, { ...bdi(spread(0)), item16: '1c' })).toEqual([expect.objectContaining({ field: 'item16', code: 'unknown_option' })]);
    expect(validateAnswers(BDI2, { ...bdi(spread(0)), item16: 1 })).toEqual([expect.objectContaining({ field: 'item16', code: 'wrong_type' })]);
    expect(validateAnswers(BDI2, { ...bdi(spread(0)), item1: '1a' })).toEqual([expect.objectContaining({ field: 'item1', code: 'wrong_type' })]);
    expect(validateAnswers(BDI2, { ...bdi(spread(0)), item2: 4 })).toEqual([expect.objectContaining({ field: 'item2', code: 'out_of_range' })]);
  });

  it('raises the safety flag for item 9 ≥ 1', () => {
    const points = spread(0);
    points[8] = 1;
    expect(score(BDI2, bdi(points)).flags).toEqual(['suicide_item']);
    expect(score(BDI2, { item9: 3 }).flags).toEqual(['suicide_item']);
  });

  it('flags the exclusion threshold at 45, not 44', () => {
    expect(score(BDI2, bdi(spread(44))).flags).toEqual([]);
    expect(score(BDI2, bdi(spread(45))).flags).toEqual(['exclusion_high_score']);
  });

  it('gives no total when an item is missing (no proration)', () => {
    const answers = bdi(spread(20));
    delete answers.item21;
    expect(score(BDI2, answers)).toMatchObject({ complete: false, missingRequired: ['item21'] });
    expect(score(BDI2, answers).total).toBeUndefined();
    expect(score(BDI2, answers).band).toBeUndefined();
  });
});
