import { describe, expect, it } from 'vitest';
import { CDRISK10, COMMENT, DEMOGRAPHICS, DISCLOSURE, EUROHIS, EVALUATION, INEP, LSAS, MSPSS, PATHEV, PG13, SBQR, SCALING, score, SEWIP, TGISRPLUS, validateAnswers, WAI, withOverrides } from './index';
import { filled, spread, vector, withItems } from './testing';

describe('MSPSS (INSTRUMENTS.md §5)', () => {
  it('reports total and the three subscales as means', () => {
    // significant other 1, 2, 5, 10 · family 3, 4, 8, 11 · friends 6, 7, 9, 12
    const result = score(MSPSS, withItems(12, 4, { 1: 7, 2: 7, 5: 7, 10: 7, 3: 1, 4: 1, 8: 1, 11: 1 }));
    expect(result.subscales).toEqual({ significant_other: 7, family: 1, friends: 4 });
    expect(result.total).toBe(4);
    expect(score(MSPSS, withItems(12, 5, { 3: 6, 4: 6, 9: 3 })).subscales).toEqual({ significant_other: 5, family: 5.5, friends: 4.5 });
  });

  it('bands the total mean: low below 3, moderate 3–5, high above 5', () => {
    expect(score(MSPSS, withItems(12, 3, { 1: 2 })).total).toBeCloseTo(35 / 12);
    expect(score(MSPSS, withItems(12, 3, { 1: 2 })).band).toBe('low');
    expect(score(MSPSS, filled(12, 3)).band).toBe('moderate');
    expect(score(MSPSS, filled(12, 5)).band).toBe('moderate');
    expect(score(MSPSS, withItems(12, 5, { 1: 6 })).total).toBeCloseTo(61 / 12);
    expect(score(MSPSS, withItems(12, 5, { 1: 6 })).band).toBe('high');
    expect(score(MSPSS, filled(12, 1)).band).toBe('low');
  });
});

describe('WAI-SR (INSTRUMENTS.md §5)', () => {
  // task 1, 2, 10, 12 · bond 3, 5, 7, 9 · goal 4, 6, 8, 11
  const answers = withItems(12, 3, { 1: 5, 2: 5, 10: 5, 12: 5, 3: 1, 5: 1, 7: 1, 9: 1 });

  it('sums the task, bond and goal subscales and the total', () => {
    expect(score(WAI, answers)).toMatchObject({ subscales: { task: 20, bond: 4, goal: 12 }, total: 36 });
  });

  it('gives means when configured, and has no reversed item by default', () => {
    expect(score(withOverrides(WAI, { aggregate: 'mean' }), answers)).toMatchObject({ subscales: { task: 5, bond: 1, goal: 3 }, total: 3 });
    expect(score(withOverrides(WAI, { reversed: [4] }), withItems(12, 3, { 4: 1 }))).toMatchObject({ subscales: { goal: 14 }, total: 38 });
    expect(score(WAI, withItems(12, 3, { 4: 1 }))).toMatchObject({ subscales: { goal: 10 }, total: 34 });
  });
});

describe('CD-RISC-10 and EUROHIS-QOL 8 (INSTRUMENTS.md §5)', () => {
  it('CD-RISC-10 sums 0–40 without bands', () => {
    expect(score(CDRISK10, filled(10, 4))).toMatchObject({ total: 40, complete: true });
    expect(score(CDRISK10, withItems(10, 2, { 1: 0 })).total).toBe(18);
    expect(score(CDRISK10, filled(10, 4)).band).toBeUndefined();
  });

  it('EUROHIS sums 8–40 and reports the mean', () => {
    expect(score(EUROHIS, withItems(8, 4, { 1: 5, 2: 1 }))).toMatchObject({ total: 30, subscales: { mean: 3.75 } });
    expect(validateAnswers(EUROHIS, filled(8, 0))).toHaveLength(8);
  });
});

describe('LSAS (INSTRUMENTS.md §5)', () => {
  const ids = LSAS.items.map((item) => item.id);
  const at = (total: number) => score(LSAS, spread(ids, total, 0, 3));
  const uniform = (fear: number, avoidance: number) => Object.fromEntries(ids.map((id) => [id, id.endsWith('_fear') ? fear : avoidance]));

  it('totals fear, avoidance, performance and social interaction', () => {
    const result = score(LSAS, uniform(2, 1));
    expect(result.total).toBe(72);
    expect(result.subscales).toMatchObject({ fear: 48, avoidance: 24, performance_fear: 26, performance_avoidance: 13, social_fear: 22, social_avoidance: 11, performance: 39, social: 33 });
  });

  it.each([
    [39, 'minimal'],
    [40, 'mild'],
    [54, 'mild'],
    [55, 'moderate'],
    [64, 'moderate'],
    [65, 'marked'],
    [79, 'marked'],
    [80, 'severe'],
    [94, 'severe'],
    [95, 'very_severe'],
  ])('total %i is %s', (total, band) => {
    expect(at(total)).toMatchObject({ total, band });
  });

  it('flags the research cut-offs 30 and 60', () => {
    expect(at(29).flags).toEqual([]);
    expect(at(30).flags).toEqual(['sad_cutoff']);
    expect(at(59).flags).toEqual(['sad_cutoff']);
    expect(at(60).flags).toEqual(['sad_cutoff', 'generalized_sad_cutoff']);
  });
});

describe('SBQ-R (INSTRUMENTS.md §5)', () => {
  it('scores the option codes of items 1 and 3 by their number', () => {
    expect(score(SBQR, { item1: '1', item2: 1, item3: '1', item4: 0 })).toMatchObject({ total: 3, flags: [] });
    expect(score(SBQR, { item1: '4b', item2: 5, item3: '3a', item4: 6 }).total).toBe(18);
    expect(score(SBQR, { item1: '3a', item2: 1, item3: '2b', item4: 0 }).total).toBe(6);
  });

  it('flags the total at 7, not 6, and item 1 at 3a/3b or higher', () => {
    expect(score(SBQR, { item1: '2', item2: 2, item3: '1', item4: 1 })).toMatchObject({ total: 6, flags: [] });
    expect(score(SBQR, { item1: '2', item2: 2, item3: '2a', item4: 1 })).toMatchObject({ total: 7, flags: ['suicide_risk_cutoff'] });
    expect(score(SBQR, { item1: '3b', item2: 1, item3: '1', item4: 0 }).flags).toEqual(['suicide_item1']);
    expect(score(withOverrides(SBQR, { cutOff: 8 }), { item1: '2', item2: 2, item3: '2a', item4: 1 }).flags).toEqual([]);
  });

  it('flags a likely future attempt (item 4 ≥ 4) even when the record is incomplete', () => {
    expect(score(SBQR, { item4: 4 })).toMatchObject({ complete: false, flags: ['suicide_item4'] });
    expect(score(SBQR, { item4: 3 }).flags).toEqual([]);
  });

  it('refuses codes of the other item', () => {
    expect(validateAnswers(SBQR, { item1: '2a', item2: 1, item3: '4a', item4: 0 }).map((e) => [e.field, e.code])).toEqual([
      ['item1', 'unknown_option'],
      ['item3', 'unknown_option'],
    ]);
  });
});

describe('PG-13 and PG-13-R (INSTRUMENTS.md §4)', () => {
  const original = (set: Record<number, number | boolean>) => withItems(13, 1, { 3: true, 13: true, ...set });

  it('PG-13 totals items 1, 2 and 4–12 (11–55)', () => {
    expect(score(PG13, original({})).total).toBe(11);
    expect(score(PG13, withItems(13, 5, { 3: false, 13: false })).total).toBe(55);
  });

  it('PG-13 diagnosis: distress ≥ 4, six months, 5 of 9 symptoms ≥ 4, impairment', () => {
    const met = original({ 1: 4, 4: 4, 5: 4, 6: 4, 7: 4, 8: 4 });
    expect(score(PG13, met).diagnoses).toEqual({ pgd: true });
    expect(score(PG13, { ...met, item8: 3 }).diagnoses).toEqual({ pgd: false });
    expect(score(PG13, { ...met, item1: 3 }).diagnoses).toEqual({ pgd: false });
    expect(score(PG13, { ...met, item3: false }).diagnoses).toEqual({ pgd: false });
    expect(score(PG13, { ...met, item13: false }).diagnoses).toEqual({ pgd: false });
  });

  const revised = withOverrides(PG13, { version: 'PG-13-R' });
  const afterLoss = (set: Record<number, number | boolean>) => withItems(13, 1, { 1: true, 2: 14, 13: true, ...set });

  it('PG-13-R totals items 3–12 (10–50) and flags ≥ 30', () => {
    expect(revised.version).toContain('PG-13-R');
    expect(score(revised, afterLoss({})).total).toBe(10);
    expect(score(revised, afterLoss({ 3: 5, 4: 5, 5: 5, 6: 5, 7: 4 })).total).toBe(29);
    expect(score(revised, afterLoss({ 3: 5, 4: 5, 5: 5, 6: 5, 7: 4 })).flags).toEqual([]);
    expect(score(revised, afterLoss({ 3: 5, 4: 5, 5: 5, 6: 5, 7: 5 })).flags).toEqual(['probable_pgd']);
  });

  it('PG-13-R diagnosis needs ≥ 12 months, yearning or preoccupation, 3 of items 5–12, impairment', () => {
    const met = afterLoss({ 4: 4, 5: 4, 6: 4, 7: 4 });
    expect(score(revised, met).diagnoses).toEqual({ pgd: true });
    expect(score(revised, { ...met, item2: 11 }).diagnoses).toEqual({ pgd: false });
    expect(score(revised, { ...met, item7: 3 }).diagnoses).toEqual({ pgd: false });
    expect(score(revised, { ...met, item13: false }).diagnoses).toEqual({ pgd: false });
  });

  it('PG-13-R asks nothing more without a loss', () => {
    expect(score(revised, { item1: false })).toMatchObject({ complete: true, diagnoses: { pgd: false } });
    expect(score(revised, { item1: false }).total).toBeUndefined();
    expect(validateAnswers(revised, { item1: false, item3: 2 })).toEqual([expect.objectContaining({ field: 'item3', code: 'not_applicable' })]);
    expect(validateAnswers(revised, { item1: true }).filter((e) => e.code === 'required')).toHaveLength(12);
  });

  it('refuses an unknown version', () => {
    expect(() => withOverrides(PG13, { version: 'PG-14' as 'PG-13' })).toThrow(/unknown version/);
  });
});

describe('TGI-SR+ (INSTRUMENTS.md §4)', () => {
  it('applies the German cut-offs (ICD-11 ≥ 60, DSM-5-TR ≥ 65) to the total', () => {
    const at = (total: number) => score(TGISRPLUS, spread(TGISRPLUS.items.map((i) => i.id), total, 1, 5));
    expect(at(59)).toMatchObject({ total: 59, diagnoses: { probable_pgd_icd11: false, probable_pgd_dsm5tr: false } });
    expect(at(60).diagnoses).toMatchObject({ probable_pgd_icd11: true, probable_pgd_dsm5tr: false });
    expect(at(64).diagnoses).toMatchObject({ probable_pgd_dsm5tr: false });
    expect(at(65).diagnoses).toMatchObject({ probable_pgd_icd11: true, probable_pgd_dsm5tr: true });
    // the diagnostic rule waits for its item mapping
    expect(at(65).diagnoses).toMatchObject({ pgd_dsm5tr_rule: undefined, pgd_icd11_rule: undefined });
  });

  it('runs the diagnostic rule once its items are configured', () => {
    const tgi = withOverrides(TGISRPLUS, { yearningItems: [1, 2], dsm5trAccompanyingItems: [3, 4, 5, 6, 7, 8, 9, 10], icd11AccompanyingItems: [3, 4, 5, 6], impairmentItems: [22] });
    const met = withItems(22, 1, { 1: 4, 3: 4, 4: 4, 5: 4, 22: 5 });
    expect(score(tgi, met).diagnoses).toMatchObject({ pgd_dsm5tr_rule: true, pgd_icd11_rule: true });
    expect(score(tgi, { ...met, item5: 3 }).diagnoses).toMatchObject({ pgd_dsm5tr_rule: false, pgd_icd11_rule: true });
    expect(score(tgi, { ...met, item22: 3 }).diagnoses).toMatchObject({ pgd_dsm5tr_rule: false, pgd_icd11_rule: false });
    expect(score(withOverrides(TGISRPLUS, { cutOffIcd11: 75, cutOffDsm5tr: 71 }), filled(22, 3)).diagnoses).toMatchObject({ probable_pgd_icd11: false, probable_pgd_dsm5tr: false });
  });
});

describe('INEP (INSTRUMENTS.md §5)', () => {
  const base = { ...filled(15, 0), ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`item${16 + i}`, 0])) };

  it('counts negative and positive changes, side effects and misconduct', () => {
    const answers = { ...base, item1: -2, item1_attribution: 'therapy', item2: -1, item2_attribution: 'other', item3: 3, item3_attribution: 'therapy', item16: 1, item20: 3 };
    expect(validateAnswers(INEP, answers)).toEqual([]);
    const result = score(INEP, answers);
    expect(result.subscales).toEqual({ negative_changes: 2, positive_changes: 1, side_effects: 1, misconduct: 2 });
    expect(result.flags).toEqual(['side_effects', 'misconduct']);
  });

  it('asks the attribution only for a change, and then requires it', () => {
    expect(validateAnswers(INEP, { ...base, item1_attribution: 'therapy' })).toEqual([expect.objectContaining({ field: 'item1_attribution', code: 'not_applicable' })]);
    expect(validateAnswers(INEP, { ...base, item1: -1 })).toEqual([expect.objectContaining({ field: 'item1_attribution', code: 'required' })]);
    expect(score(INEP, { ...base, item1: -1 }).subscales.side_effects).toBeUndefined();
    expect(score(INEP, base)).toMatchObject({ subscales: { negative_changes: 0, positive_changes: 0, side_effects: 0, misconduct: 0 }, flags: [] });
  });
});

describe('unverified structures: SEWIP and PATHEV', () => {
  it('score nothing until their scales are configured, then item means', () => {
    expect(Object.values(score(SEWIP, filled(21, 2)).subscales).every((v) => v === undefined)).toBe(true);
    const pathev = withOverrides(PATHEV, { scales: [{ id: 'hope', items: [1, 2, 3, 4] }, { id: 'fear_of_change', items: [5, 6, 7] }, { id: 'suitability', items: [8, 9, 10, 11] }] });
    expect(score(pathev, withItems(11, 3, { 1: 5, 2: 5, 5: 1 })).subscales).toEqual({ hope: 4, fear_of_change: 7 / 3, suitability: 3 });
  });
});

describe('project-defined questionnaires', () => {
  it('disclosure: three 2-item mean scales', () => {
    expect(score(DISCLOSURE, vector([4, 2, 0, 1, 3, 3])).subscales).toEqual({ reluctance: 3, urge: 0.5, emotional_reactions: 3 });
  });

  it('evaluation: satisfaction mean and a deterioration flag', () => {
    const answers = { satisfaction: 5, helpfulness: 4, recommendation: 3, change: 1, suggestions: 'more sessions' };
    expect(score(EVALUATION, answers)).toMatchObject({ subscales: { satisfaction_score: 4 }, flags: [], complete: true });
    expect(score(EVALUATION, { ...answers, change: -1 }).flags).toEqual(['reported_deterioration']);
    expect(score(EVALUATION, { ...answers, change: 0 }).flags).toEqual([]);
  });

  it('scaling: one rating 0–10 is the total', () => {
    expect(score(SCALING, { item1: 7, topic: 'sleep' }).total).toBe(7);
    expect(validateAnswers(SCALING, { item1: 11 })).toEqual([expect.objectContaining({ field: 'item1', code: 'out_of_range' })]);
    expect(score(withOverrides(SCALING, { max: 100 }), { item1: 64 }).total).toBe(64);
  });

  it('comment: required free text with a maximum length', () => {
    expect(validateAnswers(COMMENT, { comment: 'ok' })).toEqual([]);
    expect(validateAnswers(COMMENT, { comment: '   ' })).toEqual([expect.objectContaining({ field: 'comment', code: 'required' })]);
    expect(validateAnswers(COMMENT, { comment: 'ب'.repeat(5001) })).toEqual([expect.objectContaining({ field: 'comment', code: 'too_long' })]);
    expect(validateAnswers(COMMENT, { comment: 'ب'.repeat(5000) })).toEqual([]);
    expect(score(COMMENT, { comment: 'x' })).toEqual({ subscales: {}, flags: [], complete: true, missingRequired: [] });
  });

  it('demographics: every field of spec §3, details shown only after flight or loss', () => {
    const answers = { internet_access: true, email: true, age: 30, gender: 'MALE', country_of_origin: 'Iraq', country_of_residence: 'Iraq', fled: true, flight_reason: 'war', flight_months_ago: 24, refugee_hostel: false, loss: true, loss_relationship: 'sibling', loss_months_ago: 30, loss_cause: 'violence', past_treatment: ['none'], device: ['smartphone'], found_via: 'other', found_via_other: 'radio' };
    expect(validateAnswers(DEMOGRAPHICS, answers)).toEqual([]);
    expect(score(DEMOGRAPHICS, answers)).toMatchObject({ complete: true, flags: [] });
    expect(validateAnswers(DEMOGRAPHICS, { ...answers, fled: false }).map((e) => e.field)).toEqual(['flight_reason', 'flight_months_ago', 'refugee_hostel']);
    expect(validateAnswers(DEMOGRAPHICS, { ...answers, past_treatment: ['none', 'psychotherapy'] })).toEqual([expect.objectContaining({ field: 'past_treatment', code: 'exclusive_option' })]);
    expect(validateAnswers(DEMOGRAPHICS, { ...answers, gender: 'female' })).toEqual([expect.objectContaining({ field: 'gender', code: 'unknown_option' })]);
    expect(score(DEMOGRAPHICS, { ...answers, age: 17, internet_access: false }).flags).toEqual(['no_internet_access', 'minor']);
    const ids = DEMOGRAPHICS.items.map((i) => i.id);
    for (const field of ['internet_access', 'email', 'age', 'gender', 'country_of_origin', 'country_of_residence', 'residence_kind', 'employment', 'education', 'family_status', 'children', 'siblings', 'past_treatment', 'fled', 'flight_reason', 'flight_months_ago', 'refugee_hostel', 'loss', 'loss_relationship', 'loss_months_ago', 'loss_cause', 'internet_reliability', 'knowledge', 'device', 'most_frequent_activity', 'found_via']) {
      expect(ids).toContain(field);
    }
  });
});
