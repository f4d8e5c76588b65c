import { describe, expect, it } from 'vitest';
import { emptySections, isAnswered, sectionProgress } from './completeness';
import { INPUT_FIELDS, REPORT_SECTIONS } from './definition';

describe('report completeness', () => {
  it('lists every section of an empty report as empty', () => {
    const counted = REPORT_SECTIONS.filter((s) => INPUT_FIELDS.some((f) => f.section === s && f.counted));
    expect(emptySections({})).toEqual(counted);
  });
  it('takes a section off the list once one of its counted fields is answered', () => {
    const first = INPUT_FIELDS.find((f) => f.counted)!;
    const value = first.type.kind === 'bool' ? false : first.type.kind === 'int' ? first.type.min : 'x';
    expect(emptySections({ [first.id]: value as never })).not.toContain(first.section);
    expect(sectionProgress({ [first.id]: value as never }, first.section).done).toBe(1);
  });
  it('does not count empty text or empty lists as answers, but counts false', () => {
    expect(isAnswered('')).toBe(false);
    expect(isAnswered([])).toBe(false);
    expect(isAnswered(null)).toBe(false);
    expect(isAnswered(false)).toBe(true);
  });
});
