import { describe, expect, it } from 'vitest';
import { BDI2, GAD7, MSPSS, PCL5, PHQ9, PHQ15 } from './index';
import { totalRange } from './range';

describe('totalRange', () => {
  it('sums the points of the scored items only', () => {
    // PHQ-9: nine items of 0–3; the difficulty item (item10) is not part of the total.
    expect(totalRange(PHQ9)).toEqual([0, 27]);
    expect(totalRange(GAD7)).toEqual([0, 21]);
    expect(totalRange(PCL5)).toEqual([0, 80]);
    expect(totalRange(BDI2)).toEqual([0, 63]);
    expect(totalRange(PHQ15)).toEqual([0, 30]);
  });

  it('keeps a mean score within one item’s points', () => {
    expect(totalRange(MSPSS)).toEqual([1, 7]);
  });
});
