import { describe, expect, it } from 'vitest';
import { arrangeScores, chartSeries, timesInUse } from './table';
import type { ScoreRow } from './api';

function row(instrument: string, timeOfMeasurement: string, total: number | null): ScoreRow {
  return { instrument, timeOfMeasurement, total, band: null, flags: [], subscales: {}, diagnoses: {}, complete: total !== null, createdAt: '2026-11-01T10:00:00Z', updatedAt: '2026-11-01T10:00:00Z' };
}

describe('arrangeScores', () => {
  it('orders instruments as the registry does and skips unknown codes and times', () => {
    const arranged = arrangeScores([row('gad7', 'pre', 9), row('phq9', 'post', 4), row('phq9', 'pre', 12), row('nope', 'pre', 1), row('phq9', 'fu9', 3)]);
    expect(arranged.map((a) => a.code)).toEqual(['gad7', 'phq9']);
    expect(Object.keys(arranged[1]!.byTime).sort()).toEqual(['post', 'pre']);
    expect(timesInUse(arranged)).toEqual(['pre', 'post']);
  });
});

describe('chartSeries', () => {
  it('draws the charted instruments with totals, on their full range, with band limits inside it', () => {
    const series = chartSeries(arrangeScores([row('phq9', 'post', 4), row('phq9', 'screening', 16), row('phq9', 'pre', null), row('gad7', 'pre', null), row('bdi2', 'pre', 30)]));
    expect(series).toHaveLength(1);
    expect(series[0]).toMatchObject({
      code: 'phq9',
      range: [0, 27],
      thresholds: [5, 10, 15, 20],
      points: [
        { time: 'screening', total: 16 },
        { time: 'post', total: 4 },
      ],
    });
  });
});
