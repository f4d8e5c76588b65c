import { describe, expect, it } from 'vitest';
import { GAD2, GAD7, PHQ15, PHQ9, score, withOverrides } from './index';
import { filled, vector, withItems } from './testing';

describe('PHQ-9 (INSTRUMENTS.md §2)', () => {
  const phq9 = (values: number[]) => score(PHQ9, vector(values));

  it.each([
    [[1, 1, 1, 1, 0, 0, 0, 0, 0], 4, 'minimal'],
    [[1, 1, 1, 1, 1, 0, 0, 0, 0], 5, 'mild'],
    [[2, 2, 2, 1, 1, 1, 0, 0, 0], 9, 'mild'],
    [[2, 2, 2, 1, 1, 1, 1, 0, 0], 10, 'moderate'],
    [[2, 2, 2, 2, 2, 2, 2, 0, 0], 14, 'moderate'],
    [[3, 2, 2, 2, 2, 2, 2, 0, 0], 15, 'moderately_severe'],
    [[3, 3, 3, 2, 2, 2, 2, 2, 0], 19, 'moderately_severe'],
    [[3, 3, 3, 3, 2, 2, 2, 2, 0], 20, 'severe'],
    [[3, 3, 3, 3, 3, 3, 3, 3, 3], 27, 'severe'],
  ])('scores %j as %i (%s)', (values, total, band) => {
    const result = phq9(values);
    expect(result.total).toBe(total);
    expect(result.band).toBe(band);
    expect(result.complete).toBe(true);
  });

  it('flags a positive screen from 10', () => {
    expect(phq9([2, 2, 2, 1, 1, 1, 0, 0, 0]).flags).not.toContain('screen_positive');
    expect(phq9([2, 2, 2, 1, 1, 1, 1, 0, 0]).flags).toContain('screen_positive');
  });

  it('raises the safety flag for item 9 ≥ 1 whatever the total, even when incomplete', () => {
    expect(phq9([0, 0, 0, 0, 0, 0, 0, 0, 1]).flags).toEqual(['suicide_item']);
    expect(phq9([0, 0, 0, 0, 0, 0, 0, 0, 0]).flags).toEqual([]);
    const partial = score(PHQ9, { item9: 2 });
    expect(partial.complete).toBe(false);
    expect(partial.total).toBeUndefined();
    expect(partial.flags).toEqual(['suicide_item']);
  });

  it('applies the PHQ-2 cut-off of 3 to items 1 and 2', () => {
    expect(phq9([1, 1, 0, 0, 0, 0, 0, 0, 0]).subscales.phq2).toBe(2);
    expect(phq9([1, 1, 0, 0, 0, 0, 0, 0, 0]).flags).not.toContain('phq2_positive');
    expect(phq9([2, 1, 0, 0, 0, 0, 0, 0, 0]).flags).toContain('phq2_positive');
    expect(score(withOverrides(PHQ9, { phq2CutOff: 2 }), vector([1, 1, 0, 0, 0, 0, 0, 0, 0])).flags).toContain('phq2_positive');
  });

  it('runs the diagnostic algorithm: items 1–8 count at ≥ 2, item 9 at ≥ 1, item 1 or 2 required', () => {
    const diagnoses = (values: number[]) => phq9(values).diagnoses;
    expect(diagnoses([2, 2, 2, 2, 2, 0, 0, 0, 0])).toEqual({ major_depressive_syndrome: true, other_depressive_syndrome: false });
    expect(diagnoses([2, 0, 2, 2, 0, 0, 0, 0, 1])).toEqual({ major_depressive_syndrome: false, other_depressive_syndrome: true });
    expect(diagnoses([2, 2, 2, 2, 0, 0, 0, 0, 1])).toEqual({ major_depressive_syndrome: true, other_depressive_syndrome: false });
    expect(diagnoses([2, 2, 2, 2, 1, 1, 1, 1, 0])).toEqual({ major_depressive_syndrome: false, other_depressive_syndrome: true });
    expect(diagnoses([0, 1, 2, 2, 2, 2, 2, 2, 1])).toEqual({ major_depressive_syndrome: false, other_depressive_syndrome: false });
    expect(diagnoses([2, 0, 0, 0, 0, 0, 0, 0, 0])).toEqual({ major_depressive_syndrome: false, other_depressive_syndrome: false });
    expect(diagnoses([1, 1, 1, 1, 1, 1, 1, 1, 0])).toEqual({ major_depressive_syndrome: false, other_depressive_syndrome: false });
    expect(score(PHQ9, { item1: 3 }).diagnoses).toEqual({ major_depressive_syndrome: undefined, other_depressive_syndrome: undefined });
  });

  it('stores the difficulty item without scoring it', () => {
    const result = score(PHQ9, { ...vector([1, 1, 1, 1, 1, 0, 0, 0, 0]), item10: 'very' });
    expect(result.total).toBe(5);
    expect(score(PHQ9, vector([1, 1, 1, 1, 1, 0, 0, 0, 0])).complete).toBe(true);
  });
});

describe('GAD-7 and GAD-2 (INSTRUMENTS.md §2)', () => {
  it.each([
    [[1, 1, 1, 1, 0, 0, 0], 4, 'minimal'],
    [[1, 1, 1, 1, 1, 0, 0], 5, 'mild'],
    [[2, 2, 1, 1, 1, 1, 1], 9, 'mild'],
    [[2, 2, 2, 1, 1, 1, 1], 10, 'moderate'],
    [[2, 2, 2, 2, 2, 2, 2], 14, 'moderate'],
    [[3, 2, 2, 2, 2, 2, 2], 15, 'severe'],
    [[3, 3, 3, 3, 3, 3, 3], 21, 'severe'],
  ])('GAD-7 scores %j as %i (%s)', (values, total, band) => {
    const result = score(GAD7, vector(values));
    expect(result.total).toBe(total);
    expect(result.band).toBe(band);
  });

  it('GAD-7 screens positive from 10 and carries GAD-2 with its cut-off 3', () => {
    expect(score(GAD7, vector([2, 2, 1, 1, 1, 1, 1])).flags).toEqual(['gad2_positive']);
    expect(score(GAD7, vector([2, 2, 2, 1, 1, 1, 1])).flags).toEqual(['screen_positive', 'gad2_positive']);
    expect(score(GAD7, vector([1, 1, 3, 3, 0, 0, 0])).flags).toEqual([]);
    expect(score(GAD7, vector([1, 1, 3, 3, 0, 0, 0])).subscales.gad2).toBe(2);
  });

  it('GAD-2 on its own: 2 is negative, 3 positive', () => {
    expect(score(GAD2, vector([1, 1]))).toMatchObject({ total: 2, flags: [] });
    expect(score(GAD2, vector([2, 1]))).toMatchObject({ total: 3, flags: ['screen_positive'] });
    expect(score(GAD2, vector([3, 3]))).toMatchObject({ total: 6, flags: ['screen_positive'] });
  });
});

describe('PHQ-15 (INSTRUMENTS.md §2)', () => {
  it.each([
    [4, 'minimal'],
    [5, 'low'],
    [9, 'low'],
    [10, 'medium'],
    [14, 'medium'],
    [15, 'high'],
    [30, 'high'],
  ])('total %i is %s', (total, band) => {
    // total points spread over items: as many 2s as fit, then one 1
    const values = Array.from({ length: 15 }, (_, i) => Math.max(0, Math.min(2, total - 2 * i)));
    const result = score(PHQ15, vector(values));
    expect(result.total).toBe(total);
    expect(result.band).toBe(band);
  });

  it('scores 14 items without proration when item 4 (women only) is left empty', () => {
    const answers = withItems(15, 2, {});
    delete answers.item4;
    const result = score(PHQ15, answers);
    expect(result.complete).toBe(true);
    expect(result.total).toBe(28);
    expect(result.band).toBe('high');
  });

  it('counts item 4 when answered, and can require it', () => {
    expect(score(PHQ15, filled(15, 1)).total).toBe(15);
    const strict = withOverrides(PHQ15, { item4Required: true });
    const answers = filled(15, 1);
    delete answers.item4;
    expect(score(strict, answers)).toMatchObject({ complete: false, missingRequired: ['item4'] });
    expect(score(strict, answers).total).toBeUndefined();
  });
});
