/** Safety keys built from data (risk values, problem codes, task keys, sources) exist in English. */
import { describe, expect, it } from 'vitest';
import { RISK_VALUES } from '../../../domain/safety';
import en from '../../i18n/en.json';

const safety = en.safety as unknown as Record<string, Record<string, string> | undefined>;

describe('safety keys built from data', () => {
  it.each([
    ['risk', RISK_VALUES],
    ['errors', ['UNKNOWN_RISK_VALUE', 'SCORE_OUT_OF_RANGE', 'FOLLOW_UP_DATE_NEEDS_CONTACT', 'EXCLUSION_NEEDS_REASON', 'CONTACT_DATE_NEEDS_COORDINATOR',
      'NOT_A_COORDINATOR', 'COORDINATOR_ALREADY_INFORMED', 'PATIENT_ALREADY_EXCLUDED', 'NOT_INVOLVED', 'NO_PATIENT', 'EMERGENCY_CONTACT_EMPTY', 'EMERGENCY_CONTACT_TOO_LONG']],
    ['taskNames', ['safetySignalTask', 'reviewSuicideCall', 'suicideCallFollowUp']],
    ['source', ['phq9', 'bdi2', 'sbqr', 'interview_report']],
    ['group', ['therapists', 'interviewers', 'coordinators']],
    ['time', ['screening', 'pre', 'post', 'fu1', 'fu2']],
  ] as const)('safety.%s is complete', (family, names) => {
    expect(names.filter((name) => typeof safety[family]?.[name] !== 'string')).toEqual([]);
  });
});
