import { describe, expect, it } from 'vitest';
import { addDuration, evaluate, resolve, toDate } from './expressions';

describe('workflow expressions', () => {
  const scope = { outcome: 'ptsd', excluded: true, n: 3, nested: { a: 'x' }, empty: '' };
  it('evaluates names, paths, literals and comparisons', () => {
    expect(evaluate('outcome', scope)).toBe('ptsd');
    expect(evaluate('nested.a', scope)).toBe('x');
    expect(evaluate("outcome == 'ptsd'", scope)).toBe(true);
    expect(evaluate("outcome eq 'depression' || outcome == 'ptsd'", scope)).toBe(true);
    expect(evaluate("outcome != 'ptsd' and excluded", scope)).toBe(false);
    expect(evaluate('!excluded', scope)).toBe(false);
    expect(evaluate('n >= 3 && n < 4', scope)).toBe(true);
    expect(evaluate('(n > 5) || not excluded', scope)).toBe(false);
    expect(evaluate('missing == null', scope)).toBe(true);
    expect(evaluate('empty missing', scope)).toBe(true);
  });
  it('treats an unknown variable as empty, so a condition on it is false', () => {
    expect(evaluate('askForPost', scope)).toBeUndefined();
    expect(evaluate('askForPost == true', scope)).toBe(false);
  });
  it('refuses malformed expressions', () => {
    expect(() => evaluate("outcome == 'x", scope)).toThrow(/Unterminated/);
    expect(() => evaluate('outcome ==', scope)).toThrow(/Incomplete/);
    expect(() => evaluate('a b', scope)).toThrow(/Unexpected/);
  });
  it('resolves whole expressions to values and templates to strings', () => {
    expect(resolve('${n}', scope)).toBe(3);
    expect(resolve('case-${outcome}-${n}', scope)).toBe('case-ptsd-3');
    expect(resolve('plain', scope)).toBe('plain');
  });
  it('adds ISO-8601 durations, months by the calendar', () => {
    const from = new Date('2026-01-31T10:00:00Z');
    expect(addDuration(from, 'P7D').toISOString()).toBe('2026-02-07T10:00:00.000Z');
    expect(addDuration(from, 'PT1H30M').toISOString()).toBe('2026-01-31T11:30:00.000Z');
    expect(addDuration(from, 'P2W').toISOString()).toBe('2026-02-14T10:00:00.000Z');
    expect(addDuration(new Date('2026-01-15T00:00:00Z'), 'P3M').toISOString()).toBe('2026-04-15T00:00:00.000Z');
    expect(() => addDuration(from, 'P')).toThrow();
    expect(() => addDuration(from, '7 days')).toThrow();
  });
  it('reads due dates as dates, ISO strings or durations from now', () => {
    const now = new Date('2026-03-01T00:00:00Z');
    expect(toDate('P1D', now)?.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(toDate('2026-05-01T08:00:00.000+0000', now)?.toISOString()).toBe('2026-05-01T08:00:00.000Z');
    expect(toDate('', now)).toBeNull();
    expect(() => toDate('soon', now)).toThrow();
  });
});
