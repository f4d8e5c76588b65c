import { describe, expect, it } from 'vitest';
import { anyTrauma, BDI2, DEMOGRAPHICS, score, screeningExclusions, screeningInputsFromDemographics, screeningInputsFromLec5, screeningInputsFromTraumaRecord } from './index';

const eligible = { hasEmail: true, hasInternetAccess: true, age: 30, upcomingTreatment: false, bdi2Total: 25, hasTrauma: true };

describe('screening exclusions (spec §4, §9)', () => {
  it('excludes nobody who meets every condition', () => {
    expect(screeningExclusions(eligible)).toEqual({ flags: [], undetermined: [], excluded: false });
  });

  it('excludes for lack of email, lack of internet, minor age and upcoming treatment', () => {
    expect(screeningExclusions({ ...eligible, hasEmail: false }).flags).toEqual(['excludedForLackOfEmail']);
    expect(screeningExclusions({ ...eligible, hasInternetAccess: false }).flags).toEqual(['excludedForLackOfInternetAccess']);
    expect(screeningExclusions({ ...eligible, upcomingTreatment: true }).flags).toEqual(['excludedForUpcomingTreatment']);
  });

  it('excludes under 18, not at 18', () => {
    expect(screeningExclusions({ ...eligible, age: 17 }).flags).toEqual(['excludedForMinorAge']);
    expect(screeningExclusions({ ...eligible, age: 18 }).flags).toEqual([]);
  });

  it('excludes a BDI-II total of 45, not 44', () => {
    expect(screeningExclusions({ ...eligible, bdi2Total: 44 }).flags).toEqual([]);
    expect(screeningExclusions({ ...eligible, bdi2Total: 45 })).toMatchObject({ flags: ['excludedForBdiGte45'], excluded: true });
  });

  it('by default excludes only with neither a trauma nor a depression score above 13 (issue 27)', () => {
    // A criterion-A trauma with BDI-II 10 stays: PTSD alone is a primary problem (spec §4).
    expect(screeningExclusions({ ...eligible, hasTrauma: true, bdi2Total: 10 }).flags).toEqual([]);
    expect(screeningExclusions({ ...eligible, hasTrauma: true, bdi2Total: 13 }).flags).toEqual([]);
    // No trauma: the depression score decides, at its boundary 13 / 14.
    expect(screeningExclusions({ ...eligible, hasTrauma: false, bdi2Total: 13 }).flags).toEqual(['excludedForNoTraumaOrBdiLte13']);
    expect(screeningExclusions({ ...eligible, hasTrauma: false, bdi2Total: 14 }).flags).toEqual([]);
  });

  it('can read the spec’s literal "or" instead (configuration `either`)', () => {
    const either = { minimumAge: 18, bdiExcludeAtLeast: 45, bdiExcludeAtMost: 13, lowScoreRule: 'either' as const };
    expect(screeningExclusions({ ...eligible, hasTrauma: false }, either).flags).toEqual(['excludedForNoTraumaOrBdiLte13']);
    expect(screeningExclusions({ ...eligible, bdi2Total: 13 }, either).flags).toEqual(['excludedForNoTraumaOrBdiLte13']);
    expect(screeningExclusions({ ...eligible, bdi2Total: 14 }, either).flags).toEqual([]);
  });

  it('takes other thresholds from configuration', () => {
    const config = { minimumAge: 21, bdiExcludeAtLeast: 40, bdiExcludeAtMost: 10, lowScoreRule: 'either' as const };
    expect(screeningExclusions({ ...eligible, age: 20, bdi2Total: 40 }, config).flags).toEqual(['excludedForMinorAge', 'excludedForBdiGte45']);
    expect(screeningExclusions({ ...eligible, bdi2Total: 13 }, config).flags).toEqual([]);
  });

  it('reports what it cannot decide yet instead of guessing', () => {
    expect(screeningExclusions({})).toEqual({
      flags: [],
      undetermined: ['excludedForLackOfEmail', 'excludedForLackOfInternetAccess', 'excludedForMinorAge', 'excludedForUpcomingTreatment', 'excludedForBdiGte45', 'excludedForNoTraumaOrBdiLte13'],
      excluded: false,
    });
    // A trauma decides the combined rule (not excluded) even without a BDI-II total; no trauma
    // waits for the score.
    expect(screeningExclusions({ hasTrauma: true }).undetermined).not.toContain('excludedForNoTraumaOrBdiLte13');
    expect(screeningExclusions({ hasTrauma: false }).undetermined).toContain('excludedForNoTraumaOrBdiLte13');
    expect(screeningExclusions({ bdi2Total: 14 }).undetermined).not.toContain('excludedForNoTraumaOrBdiLte13');
    expect(screeningExclusions({ bdi2Total: Number.NaN }).undetermined).toContain('excludedForBdiGte45');
  });

  it('takes email, internet access and age from the baseline questionnaire and the total from BDI-II', () => {
    const demographics = { internet_access: true, email: false, age: 17, gender: 'FEMALE', country_of_origin: 'Syria', country_of_residence: 'Germany', fled: false, loss: false };
    expect(score(DEMOGRAPHICS, demographics).flags).toEqual(['no_email', 'minor']);
    const bdi = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`item${i + 1}`, i === 15 || i === 17 ? '3a' : 3]));
    const inputs = { ...screeningInputsFromDemographics(demographics), bdi2Total: score(BDI2, bdi).total, upcomingTreatment: false, hasTrauma: true };
    expect(inputs).toMatchObject({ hasEmail: false, hasInternetAccess: true, age: 17, bdi2Total: 63 });
    expect(screeningExclusions(inputs).flags).toEqual(['excludedForLackOfEmail', 'excludedForMinorAge', 'excludedForBdiGte45']);
  });
});

describe('the trauma input of the screening', () => {
  const nothing = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`item${i + 1}`, ['not_applicable']]));
  const record = { worst_event: 'war', time_since: '1to5y', to_whom: 'self', danger_of_death: false, serious_injury: false, sexual_violence: false };

  it('reads DSM-5 criterion A from the trauma record, undecided while it is unanswered', () => {
    expect(screeningInputsFromTraumaRecord(record)).toEqual({ hasTrauma: false });
    expect(screeningInputsFromTraumaRecord({ ...record, sexual_violence: true })).toEqual({ hasTrauma: true });
    expect(screeningInputsFromTraumaRecord({ worst_event: 'war' })).toEqual({ hasTrauma: undefined });
  });

  it('counts an event that happened or was witnessed on the LEC-5 as trauma, and "does not apply" everywhere as none', () => {
    expect(screeningInputsFromLec5(nothing)).toEqual({ hasTrauma: false });
    expect(screeningInputsFromLec5({ ...nothing, item3: ['witnessed'] })).toEqual({ hasTrauma: true });
    expect(screeningInputsFromLec5({ item3: ['happened'] })).toEqual({ hasTrauma: true });
    // Only learned about, or unsure: the LEC-5 does not decide; nor does a half-filled form.
    expect(screeningInputsFromLec5({ ...nothing, item14: ['learned'] })).toEqual({ hasTrauma: undefined });
    expect(screeningInputsFromLec5({ ...nothing, item1: ['unsure'] })).toEqual({ hasTrauma: undefined });
    expect(screeningInputsFromLec5({ item1: ['not_applicable'] })).toEqual({ hasTrauma: undefined });
  });

  it('combines sources: any trauma decides yes, else any "none" decides no', () => {
    expect(anyTrauma(false, true)).toBe(true);
    expect(anyTrauma(undefined, false)).toBe(false);
    expect(anyTrauma(undefined, undefined)).toBeUndefined();
    expect(anyTrauma()).toBeUndefined();
  });
});
