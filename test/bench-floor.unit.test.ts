import { describe, expect, it } from 'vitest';
import { describePlacement, missedAbove, missedBelow, placeMedian, placeP99, placeTargets } from '../bench/floor';

const targets = { p99Ms: 50, medianRatio: 1.5 };

describe("the bench's floor classification", () => {
  it('calls a p99 within its target met, whatever the floors', () => {
    expect(placeP99({ api: { p50: 10, p99: 50 }, sql: { p50: 5, p99: 80 } }, 50)).toEqual({ kind: 'met' });
  });

  it('places a missed p99 below the floor when the SQL alone misses it, naming the SQL p99', () => {
    expect(placeP99({ api: { p50: 30, p99: 90 }, sql: { p50: 20, p99: 76.44 } }, 50)).toEqual({ kind: 'below', because: 'SQL p99 76.4 ms' });
  });

  it("places a missed p99 below the floor when only the floor server's misses it", () => {
    const figures = { api: { p50: 7, p99: 23 }, sql: { p50: 4, p99: 12.8 }, floor: { p50: 6, p99: 21.7 } };
    expect(placeP99(figures, 20)).toEqual({ kind: 'below', because: 'floor p99 21.7 ms' });
  });

  it('places a missed p99 above the floor when both floors reach it, or when there is no floor server and the SQL does', () => {
    expect(placeP99({ api: { p50: 20, p99: 60 }, sql: { p50: 10, p99: 30 }, floor: { p50: 15, p99: 45 } }, 50)).toEqual({ kind: 'above' });
    expect(placeP99({ api: { p50: 20, p99: 60 }, sql: { p50: 10, p99: 30 } }, 50)).toEqual({ kind: 'above' });
  });

  it('places a missed median below the floor only when the floor server is over the same ratio of the SQL', () => {
    expect(placeMedian({ api: { p50: 15, p99: 1 }, sql: { p50: 10, p99: 1 } }, 1.5)).toEqual({ kind: 'met' });
    expect(placeMedian({ api: { p50: 18, p99: 1 }, sql: { p50: 10, p99: 1 }, floor: { p50: 16, p99: 1 } }, 1.5)).toEqual({
      kind: 'below',
      because: 'floor/SQL p50 1.60×',
    });
    expect(placeMedian({ api: { p50: 18, p99: 1 }, sql: { p50: 10, p99: 1 }, floor: { p50: 12, p99: 1 } }, 1.5)).toEqual({ kind: 'above' });
    // Without a floor server nothing shows a floor for the median: a miss is ours.
    expect(placeMedian({ api: { p50: 18, p99: 1 }, sql: { p50: 10, p99: 1 } }, 1.5)).toEqual({ kind: 'above' });
  });

  it('describes each target and sorts a row into above and below the floor', () => {
    const met = placeTargets({ api: { p50: 12, p99: 40 }, sql: { p50: 10, p99: 30 } }, targets);
    expect(describePlacement(met)).toBe('met');
    expect(missedAbove(met) || missedBelow(met)).toBe(false);

    const mixed = placeTargets({ api: { p50: 30, p99: 120 }, sql: { p50: 10, p99: 95.2 }, floor: { p50: 12, p99: 100 } }, targets);
    expect(describePlacement(mixed)).toBe('p99 below the floor: SQL p99 95.2 ms; median missed');
    expect(missedAbove(mixed)).toBe(true);
    expect(missedBelow(mixed)).toBe(true);

    const ours = placeTargets({ api: { p50: 30, p99: 60 }, sql: { p50: 10, p99: 30 }, floor: { p50: 12, p99: 40 } }, targets);
    expect(describePlacement(ours)).toBe('p99 missed; median missed');
    expect(missedBelow(ours)).toBe(false);
  });
});
