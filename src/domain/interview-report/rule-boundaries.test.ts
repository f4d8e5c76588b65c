/**
 * Issue 27, "every rule has a test at its boundary": one table per hard rule of the intake report,
 * each row a value just below, exactly at and just above its threshold, and for the scales whose
 * cut-off can be certain before every item is answered (DAST-10, AUDIT, MINI suicidality), the
 * partial rows: the rule fires as soon as the answered items decide it, not before. The
 * thresholds are those of the instrument facts the trial uses (DAST-10 ≥ 3; AUDIT ≥ 8, or ≥ 7 for
 * women and people over 65; MINI 5 suicidality bands 1–5 low, 6–9 moderate, ≥ 10 high).
 */
import { describe, expect, it } from 'vitest';
import { decisionSupport, outcomeProblems } from './decision';
import type { ReportValues } from './validation';

const DAY = '2026-11-24';
const support = (values: ReportValues) => decisionSupport(values, DAY);
/** DAST answers: the listed items "yes" (item 3, reversed, scores with "no"); the others as given. */
const dast = (scoring: number[], answered = 10) =>
  Object.fromEntries(
    Array.from({ length: answered }, (_, i) => i + 1).map((n) => [`dast${n}`, n === 3 ? !scoring.includes(3) : scoring.includes(n)]),
  );
const audit = (points: Record<number, number>) => Object.fromEntries(Object.entries(points).map(([n, p]) => [`audit${n}`, n === '9' || n === '10' ? String(p) : p]));
const mini = (yes: number[], answered = [1, 2, 3, 4, 5, 6]) => Object.fromEntries(answered.map((n) => [`suicidality_c${n}`, yes.includes(n)]));

const ASSESSED = mini([]);
const PTSD_ACCEPTED = {
  age: 30, sex: 'MALE', ...ASSESSED, trauma_criterion_a: true, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd',
  ...Object.fromEntries([14, 19, 21, 22, 28, 29, 34, 36, 39, 40].map((n) => [`ptsd_g${n}`, true])),
};
/** The hard rules an acceptance with these extra answers breaks. */
const broken = (extra: ReportValues) => {
  const values = { ...PTSD_ACCEPTED, ...extra };
  return outcomeProblems(values, support(values)).map((p) => p.rule);
};

describe('DAST-10 ≥ 3 (rule "drugs")', () => {
  it.each([
    // complete scale: below, at, above
    ['2 of 10', dast([1, 2]), false],
    ['3 of 10', dast([1, 2, 4]), true],
    ['4 of 10', dast([1, 2, 4, 5]), true],
    ['item 3 "no" counts: 1, 2, 3', dast([1, 2, 3]), true],
    // partial scale: three scoring answers decide; two do not yet
    ['3 "yes" of 3 answered', { dast1: true, dast2: true, dast4: true }, true],
    ['2 "yes" of 4 answered', { dast1: true, dast2: true, dast3: true, dast4: false }, false],
    ['2 "yes" and item 3 "no" of 3 answered', { dast1: true, dast2: true, dast3: false }, true],
    ['no drug use (item 1 "no"): the rest scores 0', { dast1: false, dast2: true, dast4: true, dast5: true }, false],
  ])('%s', (_, values, fires) => {
    expect(support(values).dast.atLeastCutOff).toBe(fires);
    expect(broken(values).includes('drugs')).toBe(fires);
  });
});

describe('AUDIT ≥ 8, ≥ 7 for women and people over 65 (rule "alcohol")', () => {
  it.each([
    ['man, 7 of 8 items answered: 7', 'MALE', 40, audit({ 1: 4, 2: 3 }), 8, false],
    ['man, partial: 8', 'MALE', 40, audit({ 1: 4, 2: 4 }), 8, true],
    ['man, partial: 9', 'MALE', 40, audit({ 1: 4, 2: 4, 3: 1 }), 8, true],
    ['man, complete: 7', 'MALE', 40, audit({ 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 0, 9: 0, 10: 0 }), 8, false],
    ['man, complete: 8', 'MALE', 40, audit({ 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 0, 10: 0 }), 8, true],
    ['woman, partial: 6', 'FEMALE', 40, audit({ 1: 4, 2: 2 }), 7, false],
    ['woman, partial: 7', 'FEMALE', 40, audit({ 1: 4, 2: 3 }), 7, true],
    ['man of 65, partial: 7', 'MALE', 65, audit({ 1: 4, 2: 3 }), 8, false],
    ['man of 66, partial: 7', 'MALE', 66, audit({ 1: 4, 2: 3 }), 7, true],
    ['item 9 scores 4 on its own scale (0, 2, 4)', 'MALE', 40, audit({ 1: 4, 9: 4 }), 8, true],
  ])('%s', (_, sex, age, values, cutOff, fires) => {
    const result = support({ sex, age, ...values }).audit;
    expect([result.cutOff, result.exceeded]).toEqual([cutOff, fires]);
    expect(broken({ sex, age, ...values }).includes('alcohol')).toBe(fires);
  });
});

describe('MINI suicidality: high risk, or an attempt within 3 years (rule "suicidality")', () => {
  it.each([
    ['moderate at its top (9: C1, C2, C3)', mini([1, 2, 3]), undefined, false],
    ['high at 10 (C4 alone)', mini([4]), undefined, true],
    ['high above (C4, C5)', mini([4, 5]), undefined, true],
    ['low with a serious attempt within 3 years', mini([1]), true, true],
    ['low without one', mini([1]), false, false],
    ['partial: C4 "yes" answered alone is already high', mini([4], [4]), undefined, true],
    ['partial: C3 "yes" alone is moderate, not yet high', mini([3], [3]), undefined, false],
  ])('%s', (_, values, attempt, rejects) => {
    const withAttempt = attempt === undefined ? values : { ...values, suicidality_serious_attempt_3y: attempt };
    expect(support(withAttempt).suicidalityRejects).toBe(rejects);
  });

  it('an acceptance needs the section assessed: five of six items answered is not enough, six are', () => {
    expect(broken({ ...mini([], [1, 2, 3, 4, 5]), suicidality_c6: null })).toContain('suicidality_not_assessed');
    expect(broken(mini([], [1, 2, 3, 4, 5, 6]))).not.toContain('suicidality_not_assessed');
  });
});

describe('age ≥ 18 (rule "minor")', () => {
  it.each([
    [17, true],
    [18, false],
    [19, false],
  ])('%i → minor %s', (age, minor) => {
    expect(support({ age }).minor).toBe(minor);
  });
});
