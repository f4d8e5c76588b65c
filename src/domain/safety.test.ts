import { describe, expect, it } from 'vitest';
import { INSTRUMENTS } from './instruments';
import { callProblems, isRiskValue, safetyFlags } from './safety';

const CALL = { riskOfSuicide: null, suicideScore: null, followUpContact: false, followUpDate: null, excludePatient: false, exclusionReason: null };

describe('call rules', () => {
  it('accepts an empty call and the fixed risk values', () => {
    expect(callProblems(CALL)).toEqual([]);
    for (const risk of ['none', 'low', 'moderate', 'high']) expect(callProblems({ ...CALL, riskOfSuicide: risk })).toEqual([]);
    expect(isRiskValue('extreme')).toBe(false);
  });

  it('names each broken rule', () => {
    expect(callProblems({ ...CALL, riskOfSuicide: 'extreme' })).toEqual(['UNKNOWN_RISK_VALUE']);
    expect(callProblems({ ...CALL, suicideScore: 34 })).toEqual(['SCORE_OUT_OF_RANGE']);
    expect(callProblems({ ...CALL, suicideScore: 33 })).toEqual([]);
    expect(callProblems({ ...CALL, followUpDate: '2027-01-01T10:00:00Z' })).toEqual(['FOLLOW_UP_DATE_NEEDS_CONTACT']);
    expect(callProblems({ ...CALL, followUpContact: true, followUpDate: '2027-01-01T10:00:00Z' })).toEqual([]);
    expect(callProblems({ ...CALL, excludePatient: true, exclusionReason: '  ' })).toEqual(['EXCLUSION_NEEDS_REASON']);
    expect(callProblems({ ...CALL, excludePatient: true, exclusionReason: 'inpatient care' })).toEqual([]);
  });
});

describe('safety flags of answers', () => {
  it('PHQ-9 item 9 at 1 signals, at 0 not, even before the questionnaire is complete', () => {
    expect(safetyFlags(INSTRUMENTS.phq9, { item9: 1 })).toEqual(['suicide_item']);
    expect(safetyFlags(INSTRUMENTS.phq9, { item9: 0, item1: 3 })).toEqual([]);
  });

  it('BDI-II item 9 at 1 signals', () => {
    expect(safetyFlags(INSTRUMENTS.bdi2, { item9: 1 })).toEqual(['suicide_item']);
    expect(safetyFlags(INSTRUMENTS.bdi2, { item9: 0 })).toEqual([]);
  });

  it('SBQ-R at its cut-off of 7 signals, at 6 not', () => {
    expect(safetyFlags(INSTRUMENTS.sbqr, { item1: '2', item2: 1, item3: '1', item4: 3 })).toEqual(['suicide_risk_cutoff']);
    expect(safetyFlags(INSTRUMENTS.sbqr, { item1: '2', item2: 1, item3: '1', item4: 2 })).toEqual([]);
  });

  it('instruments without a safety flag never signal', () => {
    expect(safetyFlags(INSTRUMENTS.gad7, { item1: 3, item2: 3 })).toEqual([]);
  });
});
