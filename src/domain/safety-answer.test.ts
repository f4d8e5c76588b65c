import { describe, expect, it } from 'vitest';
import { INSTRUMENTS, totalRange } from './instruments';
import { describeSignalAnswer } from './safety';

describe('the risk answer of a signal in words', () => {
  it('PHQ-9 item 9 with its label and anchor, the total of 27 and the flag, per locale', () => {
    const max = totalRange(INSTRUMENTS.phq9)?.[1] ?? null;
    const de = describeSignalAnswer('phq9', { item9: 2, total: 11, flags: ['suicide_item'], timeOfMeasurement: 'pre' }, 'de', INSTRUMENTS.phq9, max);
    expect(de.questionnaire).toContain('PHQ-9');
    expect(de.item?.label).toMatch(/^Item 9/);
    expect(de.item?.answer).toMatch(/^2 \(.+\)$/);
    expect(de.total).toEqual({ value: 11, max: 27 });
    expect(de.flags).toEqual(['Item 9 (Gedanken an Tod oder Selbstverletzung) ≥ 1']);
    const ar = describeSignalAnswer('phq9', { item9: 1 }, 'ar', INSTRUMENTS.phq9, max);
    expect(ar.item?.label).toMatch(/^البند 9/);
    expect(ar.total).toBeNull();
  });

  it('SBQ-R has no item 9: its flags and total; an unknown source says nothing', () => {
    const sbqr = describeSignalAnswer('sbqr', { flags: ['suicide_risk_cutoff'], total: 9 }, 'en', INSTRUMENTS.sbqr, null);
    expect(sbqr.item).toBeNull();
    expect(sbqr.flags[0]).not.toBe('suicide_risk_cutoff');
    expect(describeSignalAnswer('interview_report', { suicideRisk: 'high' }, 'en', undefined, null)).toEqual({ questionnaire: null, item: null, total: null, flags: [] });
  });
});
