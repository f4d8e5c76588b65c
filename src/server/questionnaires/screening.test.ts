import { describe, expect, it } from 'vitest';
import { screeningExclusions, SCREENING_EXCLUSION_FLAGS } from '../../domain/instruments';
import { SCREENING_EXCLUSION_COLUMNS } from './migration';
import { EXCLUSION_COLUMNS, screeningInputs } from './screening';

const BASELINE = { internet_access: true, email: false, age: 17, gender: 'FEMALE', country_of_origin: 'Syria', country_of_residence: 'Lebanon', fled: false, loss: false };
const bdi = (points: number) => Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`item${i + 1}`, i === 15 || i === 17 ? (points === 0 ? '0' : `${points}a`) : points]));

describe('the screening inputs of a case', () => {
  it('takes only complete records: a half-filled form decides nothing', () => {
    expect(screeningInputs({ demographics: { email: false }, bdi2: { item1: 3 } })).toEqual({ bdi2Total: undefined, hasTrauma: undefined });
    expect(screeningInputs({ demographics: BASELINE, bdi2: bdi(0) })).toMatchObject({ hasEmail: false, hasInternetAccess: true, age: 17, bdi2Total: 0 });
  });

  it('feeds the rules of spec §4', () => {
    const inputs = screeningInputs({ demographics: BASELINE, bdi2: bdi(3) });
    expect(screeningExclusions(inputs).flags).toEqual(['excludedForLackOfEmail', 'excludedForMinorAge', 'excludedForBdiGte45']);
  });

  it('maps every rule to an account column the database function accepts', () => {
    expect(Object.keys(EXCLUSION_COLUMNS).sort()).toEqual([...SCREENING_EXCLUSION_FLAGS].sort());
    expect(Object.values(EXCLUSION_COLUMNS).sort()).toEqual([...SCREENING_EXCLUSION_COLUMNS].sort());
  });
});
