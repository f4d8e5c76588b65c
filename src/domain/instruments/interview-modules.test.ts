import { describe, expect, it } from 'vitest';
import { AUDIT, DAST10, scoreAudit, scoreDast10, validateAnswers, withOverrides } from './index';
import type { AnswerValue } from './types';
import { filled, vector, withItems } from './testing';

/** AUDIT answers: items 1–8 points, items 9 and 10 codes. */
function audit(points: readonly number[], item9 = '0', item10 = '0'): Record<string, AnswerValue> {
  return { ...vector(points), item9, item10 };
}

describe('AUDIT (INSTRUMENTS.md §5, interview report)', () => {
  it.each([
    [[1, 1, 1, 1, 1, 1, 1, 0], 7, 'zone_1'],
    [[2, 1, 1, 1, 1, 1, 1, 0], 8, 'zone_2'],
    [[4, 4, 4, 1, 1, 1, 0, 0], 15, 'zone_2'],
    [[4, 4, 4, 1, 1, 1, 1, 0], 16, 'zone_3'],
    [[4, 4, 4, 1, 1, 1, 4, 0], 19, 'zone_3'],
    [[4, 4, 4, 1, 1, 1, 4, 1], 20, 'zone_4'],
  ])('items %j score %i (%s)', (points, total, band) => {
    const result = scoreAudit(audit(points));
    expect(result.total).toBe(total);
    expect(result.band).toBe(band);
  });

  it('scores items 9 and 10 by their codes 0, 2 and 4', () => {
    expect(scoreAudit(audit([0, 0, 0, 0, 0, 0, 0, 0], '2', '0')).total).toBe(2);
    expect(scoreAudit(audit([0, 0, 0, 0, 0, 0, 0, 0], '4', '2')).total).toBe(6);
    expect(scoreAudit(audit([4, 4, 4, 4, 4, 4, 4, 4], '4', '4')).total).toBe(40);
    expect(validateAnswers(AUDIT, audit([0, 0, 0, 0, 0, 0, 0, 0], '1'))).toEqual([expect.objectContaining({ field: 'item9', code: 'unknown_option' })]);
    expect(validateAnswers(AUDIT, { ...audit([0, 0, 0, 0, 0, 0, 0, 0]), item10: 4 })).toEqual([expect.objectContaining({ field: 'item10', code: 'wrong_type' })]);
    expect(validateAnswers(AUDIT, { ...audit([0, 0, 0, 0, 0, 0, 0, 0]), item1: 5 })).toEqual([expect.objectContaining({ field: 'item1', code: 'out_of_range' })]);
  });

  it('reaches the cut-off at 8, not 7 (suggests rejection reason 15)', () => {
    expect(scoreAudit(audit([1, 1, 1, 1, 1, 1, 1, 0])).flags).not.toContain('cutoff_exceeded');
    expect(scoreAudit(audit([2, 1, 1, 1, 1, 1, 1, 0])).flags).toContain('cutoff_exceeded');
  });

  it('lowers the cut-off to 7 for women and people older than 65', () => {
    const seven = audit([1, 1, 1, 1, 1, 1, 1, 0]);
    expect(scoreAudit(seven, { gender: 'FEMALE' }).flags).toContain('cutoff_exceeded');
    expect(scoreAudit(seven, { gender: 'MALE', age: 66 }).flags).toContain('cutoff_exceeded');
    expect(scoreAudit(seven, { gender: 'MALE', age: 65 }).flags).not.toContain('cutoff_exceeded');
    expect(scoreAudit(seven, { gender: 'DIVERSE' }).flags).not.toContain('cutoff_exceeded');
    const inclusive = withOverrides(AUDIT, { lowerThresholdGenders: ['FEMALE', 'DIVERSE'] });
    expect(scoreAudit(seven, { gender: 'DIVERSE' }, inclusive).flags).toContain('cutoff_exceeded');
    expect(scoreAudit(audit([1, 1, 1, 1, 1, 1, 0, 0]), { gender: 'FEMALE' }).flags).not.toContain('cutoff_exceeded');
  });

  it('flags likely dependence at 15 for men and 13 for women', () => {
    const thirteen = audit([4, 4, 4, 1, 0, 0, 0, 0]);
    expect(scoreAudit(thirteen, { gender: 'FEMALE' }).flags).toContain('likely_dependence');
    expect(scoreAudit(thirteen, { gender: 'MALE' }).flags).not.toContain('likely_dependence');
    expect(scoreAudit(audit([4, 4, 4, 1, 1, 1, 0, 0]), { gender: 'MALE' }).flags).toContain('likely_dependence');
  });

  it('flags AUDIT-C (items 1–3) at 4 for men and 3 for women', () => {
    const three = audit([1, 1, 1, 0, 0, 0, 0, 0]);
    expect(scoreAudit(three).subscales.consumption).toBe(3);
    expect(scoreAudit(three, { gender: 'FEMALE' }).flags).toContain('audit_c_positive');
    expect(scoreAudit(three, { gender: 'MALE' }).flags).not.toContain('audit_c_positive');
    expect(scoreAudit(audit([2, 1, 1, 0, 0, 0, 0, 0]), { gender: 'MALE' }).flags).toContain('audit_c_positive');
  });

  it('signals dependence for items 4–6 ≥ 2 and raises the intervention level for item 9 or 10 = 4', () => {
    expect(scoreAudit(audit([0, 0, 0, 0, 2, 0, 0, 0])).flags).toEqual(['dependence_signal', 'next_intervention_level']);
    expect(scoreAudit(audit([0, 0, 0, 1, 1, 1, 0, 0])).flags).toEqual([]);
    expect(scoreAudit(audit([0, 0, 0, 0, 0, 0, 0, 0], '0', '4')).flags).toEqual(['next_intervention_level']);
    expect(scoreAudit(audit([0, 0, 0, 0, 0, 0, 0, 0], '2', '2')).flags).toEqual([]);
  });

  it('reports the domain sums', () => {
    expect(scoreAudit(audit([1, 2, 3, 1, 1, 1, 2, 2], '2', '4')).subscales).toEqual({ consumption: 6, dependence: 3, harm: 10 });
  });
});

describe('DAST-10 (INSTRUMENTS.md §5, interview report)', () => {
  const yes = (...numbers: number[]) => withItems(10, false, Object.fromEntries(numbers.map((n) => [n, true])));

  it('scores item 3 reversed: "no" (cannot stop) counts 1, "yes" counts 0', () => {
    expect(scoreDast10(yes(1)).total).toBe(2);
    expect(scoreDast10(yes(1, 3)).total).toBe(1);
    expect(scoreDast10(filled(10, true)).total).toBe(9);
    expect(scoreDast10(yes(1, 2, 4, 5, 6, 7, 8, 9, 10)).total).toBe(10);
  });

  it.each([
    [yes(1, 3), 1, 'low'],
    [yes(1), 2, 'low'],
    [yes(1, 2), 3, 'moderate'],
    [yes(1, 2, 4, 5), 5, 'moderate'],
    [yes(1, 2, 4, 5, 6), 6, 'substantial'],
    [yes(1, 2, 4, 5, 6, 7, 8), 8, 'substantial'],
    [yes(1, 2, 4, 5, 6, 7, 8, 9), 9, 'severe'],
  ])('%j scores %i (%s)', (answers, total, band) => {
    expect(scoreDast10(answers)).toMatchObject({ total, band });
  });

  it('flags 3 or more (suggests rejection reason 16), not 2', () => {
    expect(scoreDast10(yes(1)).flags).toEqual([]);
    expect(scoreDast10(yes(1, 2)).flags).toEqual(['cutoff_reached']);
  });

  it('scores 0 when item 1 is "no" and the other items are skipped', () => {
    expect(scoreDast10({ item1: false })).toMatchObject({ total: 0, band: 'none', complete: true, flags: [] });
    expect(validateAnswers(DAST10, { item1: false, item3: false })).toEqual([expect.objectContaining({ field: 'item3', code: 'not_applicable' })]);
  });

  it('without skip logic an all-"no" record scores 1 through item 3', () => {
    expect(scoreDast10(filled(10, false), withOverrides(DAST10, { skipWhenNoUse: false })).total).toBe(1);
  });

  it('takes yes/no as booleans only', () => {
    expect(validateAnswers(DAST10, { ...yes(1), item2: 'yes' })).toEqual([expect.objectContaining({ field: 'item2', code: 'wrong_type' })]);
    expect(validateAnswers(DAST10, { ...yes(1), item2: 1 })).toEqual([expect.objectContaining({ field: 'item2', code: 'wrong_type' })]);
  });
});
