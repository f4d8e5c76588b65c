import { describe, expect, it } from 'vitest';
import { ITQ, LEC5, PCL5, PMBS, score, TAQ, TRAUMALISTENEU, TRGI, validateAnswers, withOverrides } from './index';
import { filled, vector, withItems } from './testing';

describe('PCL-5 (INSTRUMENTS.md §3)', () => {
  it('sums the total and the clusters B (1–5), C (6–7), D (8–14), E (15–20)', () => {
    const result = score(PCL5, vector([1, 1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4]));
    expect(result.total).toBe(5 + 4 + 21 + 24);
    expect(result.subscales).toEqual({ cluster_b: 5, cluster_c: 4, cluster_d: 21, cluster_e: 24 });
  });

  it('cut-point method: 32 is not, 33 is a provisional diagnosis (default cut-point)', () => {
    const at32 = withItems(20, 1, { 1: 4, 2: 4, 3: 4, 4: 4, 5: 1, 6: 1 }); // 4×4 + 16 = 32
    const at33 = withItems(20, 1, { 1: 4, 2: 4, 3: 4, 4: 4, 5: 2 }); // 16 + 2 + 15 = 33
    expect(score(PCL5, at32).total).toBe(32);
    expect(score(PCL5, at33).total).toBe(33);
    expect(score(PCL5, at32).diagnoses?.provisional_ptsd_cutoff).toBe(false);
    expect(score(PCL5, at33).diagnoses?.provisional_ptsd_cutoff).toBe(true);
  });

  it('cut-point is trial configuration (e.g. 23 for an Arabic-speaking sample)', () => {
    const arabic = withOverrides(PCL5, { cutOff: 23 });
    expect(score(arabic, withItems(20, 1, { 1: 3, 2: 1 })).diagnoses?.provisional_ptsd_cutoff).toBe(false); // 22
    expect(score(arabic, withItems(20, 1, { 1: 3, 2: 2 })).diagnoses?.provisional_ptsd_cutoff).toBe(true); // 23
    expect(PCL5.config.cutOff).toBe(33);
  });

  it('DSM-5 rule: exactly 1 B, 1 C, 2 D and 2 E items at ≥ 2 suffice', () => {
    const minimal = withItems(20, 0, { 1: 2, 6: 2, 8: 2, 9: 2, 15: 2, 16: 2 });
    expect(score(PCL5, minimal).total).toBe(12);
    expect(score(PCL5, minimal).diagnoses).toEqual({ provisional_ptsd_cutoff: false, provisional_ptsd_dsm5: true });
  });

  it.each([
    ['no B', { 6: 2, 8: 2, 9: 2, 15: 2, 16: 2 }],
    ['no C', { 1: 2, 8: 2, 9: 2, 15: 2, 16: 2 }],
    ['one D', { 1: 2, 6: 2, 8: 2, 15: 2, 16: 2 }],
    ['one E', { 1: 2, 6: 2, 8: 2, 9: 2, 15: 2 }],
    ['a D item at 1', { 1: 2, 6: 2, 8: 2, 9: 1, 15: 2, 16: 2 }],
  ])('DSM-5 rule fails with %s', (_, set) => {
    expect(score(PCL5, withItems(20, 0, set)).diagnoses?.provisional_ptsd_dsm5).toBe(false);
  });

  it('the two methods can disagree both ways', () => {
    // high total from intrusion items only: cut-point yes, DSM-5 rule no
    const intrusions = withItems(20, 1, { 1: 4, 2: 4, 3: 4, 4: 4, 5: 4 }); // 20 + 15 = 35
    expect(score(PCL5, intrusions).diagnoses).toEqual({ provisional_ptsd_cutoff: true, provisional_ptsd_dsm5: false });
    expect(score(PCL5, withItems(20, 0, { 1: 2, 6: 2, 8: 2, 9: 2, 15: 2, 16: 2 })).diagnoses).toEqual({ provisional_ptsd_cutoff: false, provisional_ptsd_dsm5: true });
  });

  it('has no diagnosis and no total when an item is missing', () => {
    const answers = filled(20, 4);
    delete answers.item20;
    expect(score(PCL5, answers)).toMatchObject({ complete: false, diagnoses: { provisional_ptsd_cutoff: undefined, provisional_ptsd_dsm5: undefined } });
    expect(score(PCL5, answers).subscales.cluster_e).toBeUndefined();
    expect(score(PCL5, answers).subscales.cluster_b).toBe(20);
  });
});

describe('ITQ (INSTRUMENTS.md §3)', () => {
  const zero = { ...filled(9, 0, 'p'), ...filled(9, 0, 'c') };
  const itq = (set: Record<string, number>) => score(ITQ, { ...zero, ...set });
  const ptsdCriteria = { p1: 2, p3: 2, p5: 2, p7: 2 };
  const dsoCriteria = { c1: 2, c3: 2, c5: 2, c7: 2 };

  it('PTSD: one item of each PTSD cluster and one impairment item at ≥ 2, without DSO', () => {
    expect(itq(ptsdCriteria).diagnoses).toEqual({ ptsd: true, cptsd: false });
    expect(itq({ p2: 4, p4: 2, p6: 3, p9: 2 }).diagnoses).toEqual({ ptsd: true, cptsd: false });
  });

  it('CPTSD: PTSD and DSO criteria, never both diagnoses', () => {
    expect(itq({ ...ptsdCriteria, ...dsoCriteria }).diagnoses).toEqual({ ptsd: false, cptsd: true });
  });

  it('DSO alone is no diagnosis', () => {
    expect(itq(dsoCriteria).diagnoses).toEqual({ ptsd: false, cptsd: false });
  });

  it.each([
    ['no re-experiencing', { p3: 2, p5: 2, p7: 2 }],
    ['no avoidance', { p1: 2, p5: 2, p7: 2 }],
    ['no threat', { p1: 2, p3: 2, p7: 2 }],
    ['no functional impairment', { p1: 2, p3: 2, p5: 2, p7: 1, p8: 1, p9: 1 }],
    ['a symptom at 1 only', { p1: 1, p2: 1, p3: 2, p5: 2, p7: 2 }],
  ])('no PTSD with %s', (_, set) => {
    expect(itq(set).diagnoses).toEqual({ ptsd: false, cptsd: false });
  });

  it('PTSD, not CPTSD, when DSO lacks its impairment item', () => {
    expect(itq({ ...ptsdCriteria, c1: 2, c3: 2, c5: 2 }).diagnoses).toEqual({ ptsd: true, cptsd: false });
  });

  it('reports cluster sums and the PTSD and DSO severities named in spec §3', () => {
    const result = itq({ p1: 4, p2: 3, p3: 2, p4: 1, p5: 0, p6: 4, c1: 1, c2: 1, c3: 2, c4: 2, c5: 3, c6: 4 });
    expect(result.subscales).toEqual({ reexperience: 7, avoidance: 3, threat: 4, affective_disturbance: 2, negative_self_concept: 4, disturbed_relationships: 7, ptsd: 14, dso: 13 });
    expect(result.total).toBeUndefined();
  });

  it('leaves the diagnoses open while an item is missing', () => {
    expect(score(ITQ, ptsdCriteria).diagnoses).toEqual({ ptsd: undefined, cptsd: undefined });
  });
});

describe('LEC-5 (INSTRUMENTS.md §3)', () => {
  const none = filled(17, ['not_applicable']);

  it('counts events per exposure kind and flags direct exposure', () => {
    const answers = { ...none, item6: ['happened', 'witnessed'], item10: ['happened'], item14: ['learned'], item3: ['job', 'unsure'] };
    expect(validateAnswers(LEC5, answers)).toEqual([]);
    const result = score(LEC5, answers);
    expect(result.subscales).toEqual({ happened: 2, witnessed: 1, learned: 1, job: 1, unsure: 1 });
    expect(result.flags).toEqual(['direct_exposure']);
    expect(result.complete).toBe(true);
  });

  it('counts only a complete checklist, but flags direct exposure at once', () => {
    const partial = score(LEC5, { item6: ['happened'] });
    expect(partial).toMatchObject({ complete: false, flags: ['direct_exposure'] });
    expect(partial.subscales).toEqual({ happened: undefined, witnessed: undefined, learned: undefined, job: undefined, unsure: undefined });
  });

  it('has no direct exposure when events were only learned about', () => {
    expect(score(LEC5, { ...none, item14: ['learned'] }).flags).toEqual([]);
  });

  it('refuses "does not apply" combined with another kind, and unknown kinds', () => {
    expect(validateAnswers(LEC5, { ...none, item1: ['not_applicable', 'happened'] })).toEqual([expect.objectContaining({ field: 'item1', code: 'exclusive_option' })]);
    expect(validateAnswers(LEC5, { ...none, item1: ['happened', 'happened'] })).toEqual([expect.objectContaining({ field: 'item1', code: 'duplicate_option' })]);
    expect(validateAnswers(LEC5, { ...none, item1: ['seen_on_tv'] })).toEqual([expect.objectContaining({ field: 'item1', code: 'unknown_option' })]);
    expect(validateAnswers(LEC5, { ...none, item1: 'happened' })).toEqual([expect.objectContaining({ field: 'item1', code: 'wrong_type' })]);
  });

  it('asks for a description of the other event only when it applies', () => {
    expect(validateAnswers(LEC5, { ...none, item17_description: 'x' })).toEqual([expect.objectContaining({ field: 'item17_description', code: 'not_applicable' })]);
    expect(validateAnswers(LEC5, { ...none, item17: ['happened'], item17_description: 'x' })).toEqual([]);
  });
});

describe('trauma record (traumalisteneu, spec §3)', () => {
  const record = { worst_event: 'war', time_since: '1to5y', to_whom: 'self', danger_of_death: false, serious_injury: false, sexual_violence: false };

  it('derives DSM-5 criterion A from death, serious injury or sexual violence', () => {
    expect(score(TRAUMALISTENEU, record).diagnoses).toEqual({ dsm5_criterion_a: false });
    expect(score(TRAUMALISTENEU, { ...record, serious_injury: true }).diagnoses).toEqual({ dsm5_criterion_a: true });
    expect(score(TRAUMALISTENEU, { worst_event: 'war', sexual_violence: true }).diagnoses).toEqual({ dsm5_criterion_a: true });
    expect(score(TRAUMALISTENEU, { worst_event: 'war', sexual_violence: false }).diagnoses).toEqual({ dsm5_criterion_a: undefined });
  });

  it('flags an event less than one month ago (rejection reason 2)', () => {
    expect(score(TRAUMALISTENEU, { ...record, time_since: 'lt1m' }).flags).toEqual(['trauma_under_one_month']);
    expect(score(TRAUMALISTENEU, record).flags).toEqual([]);
  });

  it('takes the worst event from the LEC-5 event kinds and validates the other fields', () => {
    expect(validateAnswers(TRAUMALISTENEU, { ...record, description: 'text', close_persons: true, comparable_events: 3 })).toEqual([]);
    expect(validateAnswers(TRAUMALISTENEU, { ...record, worst_event: 'earthquake' })).toEqual([expect.objectContaining({ field: 'worst_event', code: 'unknown_option' })]);
    expect(validateAnswers(TRAUMALISTENEU, { ...record, comparable_events: 1.5 })).toEqual([expect.objectContaining({ field: 'comparable_events', code: 'not_integer' })]);
    expect(validateAnswers(TRAUMALISTENEU, { ...record, description: 'x'.repeat(2001) })).toEqual([expect.objectContaining({ field: 'description', code: 'too_long' })]);
  });
});

describe('PMBS (INSTRUMENTS.md §3)', () => {
  it('sums the total; subscales stay empty until their membership is configured', () => {
    const result = score(PMBS, filled(15, 4));
    expect(result.total).toBe(60);
    expect(result.subscales).toEqual({ threat_of_harm: undefined, self_worth: undefined, reliability: undefined });
  });

  it('scores configured subscales as sums of 5 items with reversed items as 8 − points', () => {
    const pmbs = withOverrides(PMBS, { threatOfHarm: [1, 4, 7, 10, 13], selfWorth: [2, 5, 8, 11, 14], reliability: [3, 6, 9, 12, 15], reversed: [3] });
    const result = score(pmbs, withItems(15, 7, { 3: 1 }));
    expect(result.subscales).toEqual({ threat_of_harm: 35, self_worth: 35, reliability: 35 });
    expect(result.total).toBe(105);
    expect(score(pmbs, filled(15, 1)).total).toBe(14 + 7);
  });
});

describe('TRGI and TAQ (unverified structure, INSTRUMENTS.md §3)', () => {
  it('TRGI scales are item means once their items are configured', () => {
    expect(score(TRGI, filled(32, 2)).subscales.global_guilt).toBeUndefined();
    const trgi = withOverrides(TRGI, { scales: [{ id: 'global_guilt', items: [1, 2, 3, 4] }, { id: 'distress', items: [5, 6], reversed: [6] }] });
    const result = score(trgi, withItems(32, 0, { 1: 4, 2: 3, 3: 2, 4: 1, 5: 4, 6: 4 }));
    expect(result.subscales).toEqual({ global_guilt: 2.5, distress: 2 });
    expect(result.total).toBeUndefined();
  });

  it('TAQ item count and range are configuration', () => {
    const taq = withOverrides(TAQ, { itemCount: 10, min: 1, max: 5, scales: [{ id: 'shame', items: [1, 2] }] });
    expect(taq.items).toHaveLength(10);
    expect(score(taq, withItems(10, 1, { 1: 5, 2: 4 })).subscales).toEqual({ shame: 4.5 });
    expect(validateAnswers(taq, filled(10, 0))).toHaveLength(10);
  });
});
