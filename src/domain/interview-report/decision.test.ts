import { describe, expect, it } from 'vitest';
import { addDays, decisionSupport, derivedColumns, miniSuicidality, outcomeProblems, proposedReinviteDate, trialOutcome } from './decision';
import { INPUT_FIELDS, REPORT_FIELDS, REPORT_SECTIONS } from './definition';
import { validateReportValues, type ReportValues } from './validation';

const DAY = '2026-11-24';
const support = (values: ReportValues) => decisionSupport(values, DAY);
const auditItems = (points: number[], nine = '0', ten = '0') =>
  Object.fromEntries([...points.map((p, i) => [`audit${i + 1}`, p]), ['audit9', nine], ['audit10', ten]]);
const dastItems = (yesItems: number[]) => Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`dast${i + 1}`, i === 2 ? !yesItems.includes(3) : yesItems.includes(i + 1)]));

describe('interview report definition', () => {
  it('has unique column names, eight sections and only known sections', () => {
    const ids = REPORT_FIELDS.map((f) => f.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(REPORT_SECTIONS).toHaveLength(8);
    for (const f of REPORT_FIELDS) expect(REPORT_SECTIONS).toContain(f.section);
    for (const id of ids) expect(id).toMatch(/^[a-z][a-z0-9_]{0,62}$/);
  });
  it('holds every item range the spec names', () => {
    const ids = new Set(REPORT_FIELDS.map((f) => f.id));
    for (const id of ['suicidality_c1', 'suicidality_c6', 'ptsd_g14', 'ptsd_g40', 'mde_a1', 'mde_a12', 'pdd_a78', 'pdd_a90', 'pdd_b6', 'psychosis_b19', 'hra1', 'hra6', 'audit10', 'dast10']) {
      expect(ids.has(id), id).toBe(true);
    }
  });
});

describe('validation', () => {
  it('refuses unknown fields, derived fields, unknown codes, bad dates and out-of-range numbers', () => {
    const problems = validateReportValues({ nope: 1, suicidality_risk: 'low', status: 'maybe', worst_event_on: '2026-02-30', age: 130, rejected_reasons: ['minor', 'nope'], c: null });
    expect(problems.map((p) => [p.field, p.code])).toEqual([
      ['nope', 'unknown_field'],
      ['suicidality_risk', 'not_writable'],
      ['status', 'unknown_option'],
      ['worst_event_on', 'bad_date'],
      ['age', 'out_of_range'],
      ['rejected_reasons', 'unknown_option'],
      ['c', 'unknown_field'],
    ]);
    expect(validateReportValues({ age: 30, status: 'accepted', medication: null, rejected_reasons: [] })).toEqual([]);
    expect(INPUT_FIELDS.some((f) => f.derived)).toBe(false);
  });
});

describe('MINI suicidality bands', () => {
  const only = (...yes: number[]) => Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, yes.includes(n)]));
  it.each([
    [[], 0, 'none'],
    [[1], 1, 'low'],
    [[6], 4, 'low'],
    [[1, 6], 5, 'low'],
    [[3], 6, 'moderate'],
    [[1, 2, 3], 9, 'moderate'],
    [[4], 10, 'high'],
    [[1, 2, 3, 4, 5, 6], 33, 'high'],
  ])('yes to %j scores %i (%s)', (yes, score, risk) => {
    expect(miniSuicidality(only(...yes))).toEqual({ score, risk });
  });
  it('has no risk before any item is answered', () => expect(miniSuicidality({})).toEqual({ score: null, risk: null }));
  it('rejects high risk, and low or moderate risk with a serious attempt within 3 years', () => {
    expect(support(only(4)).suicidalityRejects).toBe(true);
    expect(support(only(1)).suicidalityRejects).toBe(false);
    expect(support({ ...only(1), suicidality_serious_attempt_3y: true }).suicidalityRejects).toBe(true);
    expect(support({ ...only(), suicidality_serious_attempt_3y: true }).suicidalityRejects).toBe(false);
  });
});

describe('thresholds at their boundaries', () => {
  it('AUDIT cut-off 8 for men (7 no, 8 yes), 7 for women (6 no, 7 yes)', () => {
    expect(support({ sex: 'MALE', age: 30, ...auditItems([1, 1, 1, 1, 1, 1, 1, 0]) }).audit).toMatchObject({ total: 7, exceeded: false, cutOff: 8 });
    expect(support({ sex: 'MALE', age: 30, ...auditItems([2, 1, 1, 1, 1, 1, 1, 0]) }).audit).toMatchObject({ total: 8, exceeded: true });
    expect(support({ sex: 'FEMALE', age: 30, ...auditItems([1, 1, 1, 1, 1, 1, 0, 0]) }).audit).toMatchObject({ total: 6, exceeded: false, cutOff: 7 });
    expect(support({ sex: 'FEMALE', age: 30, ...auditItems([1, 1, 1, 1, 1, 1, 1, 0]) }).audit).toMatchObject({ total: 7, exceeded: true });
    expect(support({ sex: 'MALE', ...auditItems([2, 1, 1, 1, 1, 1, 1, 0]) }).proposedRejectedReasons).toContain('alcohol');
  });
  it('DAST 2 passes, 3 rejects', () => {
    expect(support(dastItems([1, 2])).dast).toMatchObject({ total: 2, atLeastCutOff: false });
    expect(support(dastItems([1, 2, 4])).dast).toMatchObject({ total: 3, atLeastCutOff: true });
    expect(support(dastItems([1, 2, 4])).proposedRejectedReasons).toContain('drugs');
  });
  it('age 17 is a minor, 18 is not', () => {
    expect(support({ age: 17 }).minor).toBe(true);
    expect(support({ age: 17 }).proposedFutureReasons).toContain('minor');
    expect(support({ age: 18 }).minor).toBe(false);
  });
  it('a trauma 30 days ago is too recent, 31 days ago is not; it expires one month after', () => {
    const s = support({ worst_event_on: addDays(DAY, -30) });
    expect(s.traumaRecent).toBe(true);
    expect(s.futureReasonExpiry.trauma_recent).toBe(addDays(DAY, 1));
    expect(support({ worst_event_on: addDays(DAY, -31) }).traumaRecent).toBe(false);
  });
  it('medication stable 27 days is unstable, 28 days is stable; a change in 27 days is unstable, in 28 is not', () => {
    expect(support({ medication: true, medication_stable_since: addDays(DAY, -27) }).medicationUnstableBefore).toBe(true);
    expect(support({ medication: true, medication_stable_since: addDays(DAY, -27) }).futureReasonExpiry.medication_before).toBe(addDays(DAY, 1));
    expect(support({ medication: true, medication_stable_since: addDays(DAY, -28) }).medicationUnstableBefore).toBe(false);
    expect(support({ medication: false, medication_stable_since: addDays(DAY, -2) }).medicationUnstableBefore).toBe(false);
    expect(support({ medication: true, medication_change_planned_on: addDays(DAY, 27) }).medicationUnstableAfter).toBe(true);
    expect(support({ medication: true, medication_change_planned_on: addDays(DAY, 28) }).medicationUnstableAfter).toBe(false);
  });
  it('earlier treatment ended 89 days ago is too recent, 91 days ago is not', () => {
    expect(support({ earlier_treatment: 'depression', earlier_treatment_ended_on: addDays(DAY, -89) }).earlierTreatmentRecent).toBe(true);
    expect(support({ earlier_treatment: 'depression', earlier_treatment_ended_on: addDays(DAY, -91) }).earlierTreatmentRecent).toBe(false);
    expect(support({ earlier_treatment: 'none', earlier_treatment_ended_on: addDays(DAY, -10) }).earlierTreatmentRecent).toBe(false);
  });
});

const yesTo = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, true]));
const PTSD_ALL = { ...yesTo('ptsd_g', [14, 19, 21, 22, 28, 29, 34, 36, 39, 40]), trauma_criterion_a: true };

describe('diagnostic rules', () => {
  it('PTSD needs B≥1, C≥1, D≥2, E≥2 and F, G, H', () => {
    const s = support(PTSD_ALL);
    expect(s.ptsd.criteriaMet).toBe(true);
    expect(s.ptsd.total).toBe(10);
    const oneD = support({ ...PTSD_ALL, ptsd_g22: false });
    expect(oneD.ptsd.groups.d).toBe(false);
    expect(oneD.ptsd.criteriaMet).toBe(false);
    expect(support({ ...PTSD_ALL, trauma_criterion_a: false }).ptsdDiagnosis).toBe(false);
  });
  it('major depression criterion A: five of nine including A1 or A2', () => {
    expect(support(yesTo('mde_a', [1, 3, 4, 5, 6])).mde.criterionA).toBe(true);
    expect(support(yesTo('mde_a', [1, 3, 4, 5])).mde.criterionA).toBe(false);
    expect(support(yesTo('mde_a', [3, 4, 5, 6, 7, 8])).mde.criterionA).toBe(false);
    expect(support(yesTo('mde_a', [2, 3, 4, 5, 6, 10, 11])).mde.current).toBe(true);
  });
  it('any psychosis item rejects', () => {
    expect(support({ psychosis_b19: true }).proposedRejectedReasons).toContain('psychosis');
    expect(support({ psychosis_b19: false }).psychosis).toBe(false);
  });
  it('bipolar rules 10–14', () => {
    const past = yesTo('past_mde_a', [1, 2, 3, 4, 5]);
    const current = yesTo('mde_a', [1, 2, 3, 4, 5, 10, 11]);
    expect(support({ ...past, mania_current: true }).proposedRejectedReasons).toContain('bipolar_current_mania');
    expect(support({ mania_current: true }).proposedRejectedReasons).not.toContain('bipolar_current_mania');
    expect(support({ ...current, mania_past: true }).proposedRejectedReasons).toContain('bipolar_past_mania');
    expect(support({ ...past, hypomania_current: true }).proposedRejectedReasons).toContain('bipolar_current_hypomania');
    expect(support({ ...current, hypomania_current: true }).proposedRejectedReasons).not.toContain('bipolar_current_hypomania');
    expect(support({ ...current, hypomania_past: true }).proposedRejectedReasons).toContain('bipolar_past_hypomania');
    expect(support({ bipolar_specified: true }).proposedRejectedReasons).toContain('bipolar_specified');
  });
  it('proposes the primary problem', () => {
    expect(support(PTSD_ALL).proposedPrimaryProblem).toBe('ptsd');
    expect(support({ ...PTSD_ALL, ...yesTo('mde_a', [1, 2, 3, 4, 5, 10, 11]) }).proposedPrimaryProblem).toBe('ptsd_mde_current');
    expect(support(yesTo('mde_a', [1, 2, 3, 4, 5, 10, 11])).proposedPrimaryProblem).toBe('mde_current');
    expect(support(yesTo('pdd_criterion_', [])).proposedPrimaryProblem).toBe('other');
    expect(support({}).proposedRejectedReasons).toContain('no_depression_or_ptsd');
  });
});

const ASSESSED = Object.fromEntries([1, 2, 3, 4, 5, 6].map((n) => [`suicidality_c${n}`, false]));

describe('outcome rules', () => {
  // Every suicidality item asked: an acceptance needs the assessment (issue 27).
  const accepted = { ...PTSD_ALL, ...ASSESSED, age: 30, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd' };
  it('accepts a consistent PTSD acceptance', () => {
    expect(outcomeProblems(accepted, support(accepted))).toEqual([]);
    expect(trialOutcome(accepted)).toBe('ptsd');
  });
  it('refuses acceptance when DAST is 3 or the patient is 17, naming the rule (overridable)', () => {
    const drugs = { ...accepted, ...dastItems([1, 2, 4]) };
    expect(outcomeProblems(drugs, support(drugs))).toEqual([expect.objectContaining({ rule: 'drugs', overridable: true, message: expect.stringContaining('DAST') })]);
    const minor = { ...accepted, age: 17 };
    expect(outcomeProblems(minor, support(minor))).toEqual([expect.objectContaining({ rule: 'minor', overridable: true })]);
  });
  it('needs reasons and consistent choices', () => {
    const rejected = { primary_problem: 'other', status: 'rejected' };
    expect(outcomeProblems(rejected, support(rejected)).map((p) => p.rule)).toEqual(['incomplete_rejected_reasons']);
    const later = { primary_problem: 'ptsd', status: 'rejected', register_again: true, register_again_reasons: ['other'] };
    expect(outcomeProblems(later, support(later)).map((p) => p.rule)).toEqual(['incomplete_register_again_text', 'incomplete_register_again_on']);
    const both = { ...accepted, rejected_reasons: ['refuses'] };
    expect(outcomeProblems(both, support(both)).map((p) => p.rule)).toEqual(['conflict_accepted_rejected']);
    expect(outcomeProblems({}, support({})).map((p) => p.rule)).toEqual(['incomplete_primary_problem', 'incomplete_status']);
  });
  it('maps the result to the trial outcome', () => {
    expect(trialOutcome({ status: 'accepted', accepted_reason: 'depression_mde' })).toBe('depression');
    expect(trialOutcome({ status: 'rejected', counseling_accepted: true })).toBe('counseling');
    expect(trialOutcome({ status: 'rejected', register_again: true })).toBe('later');
    expect(trialOutcome({ status: 'rejected', rejected_reasons: ['psychosis'] })).toBe('rejected');
  });
  it('proposes the latest expiry of the chosen reasons as the invitation date', () => {
    const s = support({ worst_event_on: addDays(DAY, -10), medication: true, medication_stable_since: addDays(DAY, -1) });
    expect(proposedReinviteDate(['trauma_recent', 'medication_before'], s)).toBe(addDays(DAY, 27));
    expect(proposedReinviteDate(['other'], s)).toBeNull();
  });
  it('stores the derived columns', () => {
    expect(derivedColumns({ ...PTSD_ALL, suicidality_c3: true }, DAY)).toMatchObject({ suicidality_score: 6, suicidality_risk: 'moderate', ptsd_total: 10, ptsd_b_fulfilled: true, audit_total: null });
  });
});

describe('acceptance rules at their boundaries (issue 27)', () => {
  const accepted = { ...PTSD_ALL, ...ASSESSED, age: 30, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd' };
  const rules = (values: ReportValues) => outcomeProblems(values, support(values)).map((p) => p.rule);
  const overridable = (values: ReportValues) => outcomeProblems(values, support(values)).every((p) => p.overridable);

  it('suicidality assessed: all six items, and the attempt question with a low or moderate risk', () => {
    expect(rules(accepted)).toEqual([]);
    const fiveOfSix = { ...accepted, suicidality_c6: null };
    expect(rules(fiveOfSix)).toEqual(['suicidality_not_assessed']);
    expect(overridable(fiveOfSix)).toBe(true);
    const withoutC1: Record<string, unknown> = { ...accepted };
    delete withoutC1.suicidality_c1;
    expect(rules(withoutC1 as ReportValues)).toEqual(['suicidality_not_assessed']);
    const low = { ...accepted, suicidality_c1: true };
    expect(rules(low)).toEqual(['suicidality_not_assessed']);
    expect(rules({ ...low, suicidality_serious_attempt_3y: false })).toEqual([]);
    // A low risk with a serious attempt within 3 years rejects (spec §4 reason 6).
    expect(rules({ ...low, suicidality_serious_attempt_3y: true })).toEqual(['suicidality']);
    // High risk needs no attempt question: it rejects anyway.
    expect(rules({ ...accepted, suicidality_c4: true })).toEqual(['suicidality']);
  });

  it('a diagnosis section consistent with the primary problem', () => {
    // One PTSD item short in group D (needs 2): the PTSD diagnosis fails.
    const short = { ...accepted, ptsd_g28: false, ptsd_g29: false, ptsd_g34: false };
    expect(support(short).ptsdDiagnosis).toBe(false);
    expect(rules(short)).toEqual(expect.arrayContaining(['diagnosis_inconsistent']));
    expect(rules({ ...accepted, primary_problem: 'ptsd_mde_current' })).toEqual(['diagnosis_inconsistent']);
    const mde = { ...accepted, ...yesTo('mde_a', [1, 2, 3, 4, 5, 10, 11]), primary_problem: 'ptsd_mde_current' };
    expect(rules(mde)).toEqual([]);
    const fourSymptoms = { ...mde, mde_a5: false };
    expect(rules(fourSymptoms)).toEqual(['diagnosis_inconsistent']);
  });

  it('trauma criterion A for PTSD: answered yes, not merely unanswered', () => {
    expect(rules({ ...accepted, trauma_criterion_a: null })).toEqual(['ptsd_without_trauma']);
    const noTrauma = { ...accepted, trauma_criterion_a: false };
    expect(rules(noTrauma)).toEqual(expect.arrayContaining(['no_trauma', 'ptsd_without_trauma']));
  });

  it('"no trauma" and "no depression or PTSD" are hard rules', () => {
    const nothing = { ...ASSESSED, age: 30, primary_problem: 'mde_current', status: 'accepted', accepted_reason: 'depression_mde', trauma_criterion_a: false };
    expect(rules(nothing)).toEqual(['no_trauma', 'no_depression_or_ptsd', 'diagnosis_inconsistent']);
    expect(overridable(nothing)).toBe(true);
    // Every PTSD criterion "no" with PTSD accepted (the case): refused.
    const allNo = { ...ASSESSED, ...Object.fromEntries(Array.from({ length: 27 }, (_, i) => [`ptsd_g${i + 14}`, false])), trauma_criterion_a: true, age: 30, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd' };
    expect(rules(allNo)).toEqual(['no_depression_or_ptsd', 'diagnosis_inconsistent']);
  });
});

describe('DAST-10 and AUDIT cut-offs as soon as they are certain (issue 27)', () => {
  it('DAST: three "yes" of the answered items reach 3; two do not yet; a "no" to item 1 scores 0', () => {
    expect(support({ dast1: true, dast2: true, dast4: true }).dast).toMatchObject({ total: null, atLeastCutOff: true, possible: { min: 3, max: 10 } });
    expect(support({ dast1: true, dast2: true }).dast).toMatchObject({ total: null, atLeastCutOff: false, possible: { min: 2, max: 10 } });
    // Item 3 is reversed: "no" (cannot stop) scores.
    expect(support({ dast1: true, dast2: true, dast3: false }).dast.atLeastCutOff).toBe(true);
    expect(support({ dast1: true, dast2: true, dast3: true }).dast.atLeastCutOff).toBe(false);
    expect(support({ dast1: false, dast2: true, dast4: true, dast5: true }).dast).toMatchObject({ atLeastCutOff: false, possible: { min: 0, max: 0 } });
    // All ten answered: the total decides, exactly at the boundary.
    expect(support(dastItems([1, 2, 4])).dast).toMatchObject({ total: 3, atLeastCutOff: true });
    expect(support(dastItems([1, 2])).dast).toMatchObject({ total: 2, atLeastCutOff: false });
  });

  it('DAST: a partial scale at the cut-off refuses an acceptance (rule drugs)', () => {
    const accepted = { ...PTSD_ALL, ...ASSESSED, age: 30, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd' };
    const partial = { ...accepted, dast1: true, dast2: true, dast4: true };
    expect(outcomeProblems(partial, support(partial)).map((p) => p.rule)).toEqual(['drugs']);
    const below = { ...accepted, dast1: true, dast2: true };
    expect(outcomeProblems(below, support(below))).toEqual([]);
  });

  it('AUDIT: the answered points reach the cut-off (8, or 7 for women) before all items are answered', () => {
    const men = (points: Record<string, number | string>) => support({ sex: 'MALE', age: 40, ...points }).audit;
    expect(men({ audit1: 4, audit2: 4 })).toMatchObject({ total: null, exceeded: true, cutOff: 8, possible: { min: 8, max: 40 } });
    expect(men({ audit1: 4, audit2: 3 })).toMatchObject({ total: null, exceeded: false, possible: { min: 7, max: 39 } });
    expect(men({ audit1: 4, audit9: '4' })).toMatchObject({ exceeded: true });
    const women = support({ sex: 'FEMALE', age: 40, audit1: 4, audit2: 3 }).audit;
    expect(women).toMatchObject({ cutOff: 7, exceeded: true });
    expect(support({ sex: 'FEMALE', age: 40, audit1: 4, audit2: 2 }).audit.exceeded).toBe(false);
    // Complete scales: the total at the boundary, as before.
    expect(support({ sex: 'MALE', age: 40, ...auditItems([1, 1, 1, 1, 1, 1, 1, 1]) }).audit).toMatchObject({ total: 8, exceeded: true });
    expect(support({ sex: 'MALE', age: 40, ...auditItems([1, 1, 1, 1, 1, 1, 1, 0]) }).audit).toMatchObject({ total: 7, exceeded: false });
  });
});
