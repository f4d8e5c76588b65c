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

describe('calendar-correct durations in the participant\'s time zone (issue 27)', () => {
  it.each([
    // Month ends clamp to the last day, as Camunda does (31 Jan + P1M was 3 March in UTC by hand).
    ['2026-01-31T10:00:00Z', 'P1M', 'UTC', '2026-02-28T10:00:00.000Z'],
    ['2028-01-31T10:00:00Z', 'P1M', 'UTC', '2028-02-29T10:00:00.000Z'],
    ['2024-02-29T10:00:00Z', 'P1Y', 'UTC', '2025-02-28T10:00:00.000Z'],
    ['2028-02-29T10:00:00Z', 'P4Y', 'UTC', '2032-02-29T10:00:00.000Z'],
    ['2026-03-31T10:00:00Z', 'P3M', 'UTC', '2026-06-30T10:00:00.000Z'],
    ['2026-05-31T10:00:00Z', 'P3M', 'UTC', '2026-08-31T10:00:00.000Z'],
    ['2026-11-30T10:00:00Z', 'P3M', 'UTC', '2027-02-28T10:00:00.000Z'],
    ['2026-08-31T10:00:00Z', 'P6M', 'UTC', '2027-02-28T10:00:00.000Z'],
    // The participant's calendar: 00:30 on 1 March in Berlin is still 28 February in UTC.
    ['2026-02-28T23:30:00Z', 'P1M', 'Europe/Berlin', '2026-03-31T22:30:00.000Z'],
    ['2026-02-28T23:30:00Z', 'P1M', 'UTC', '2026-03-28T23:30:00.000Z'],
    // Daylight saving in Berlin: P1D keeps 09:00 local; PT24H is exact time.
    ['2026-03-28T08:00:00Z', 'P1D', 'Europe/Berlin', '2026-03-29T07:00:00.000Z'],
    ['2026-03-28T08:00:00Z', 'PT24H', 'Europe/Berlin', '2026-03-29T08:00:00.000Z'],
    ['2026-10-24T07:00:00Z', 'P1D', 'Europe/Berlin', '2026-10-25T08:00:00.000Z'],
    ['2026-03-22T08:00:00Z', 'P1W', 'Europe/Berlin', '2026-03-29T07:00:00.000Z'],
    // Cairo (summer time since 2023: last Friday of April to last Thursday of October).
    ['2026-04-23T07:00:00Z', 'P1D', 'Africa/Cairo', '2026-04-24T06:00:00.000Z'],
    ['2026-10-29T06:00:00Z', 'P1D', 'Africa/Cairo', '2026-10-30T07:00:00.000Z'],
    // Amman keeps UTC+3 all year since 2022: no shift on the old change date.
    ['2026-03-26T06:00:00Z', 'P1D', 'Asia/Amman', '2026-03-27T06:00:00.000Z'],
    // P14D (the trial's two-week steps) across a month end, a year end, a leap day and a DST change.
    ['2026-02-20T10:00:00Z', 'P14D', 'UTC', '2026-03-06T10:00:00.000Z'],
    ['2028-02-20T10:00:00Z', 'P14D', 'UTC', '2028-03-05T10:00:00.000Z'],
    ['2026-12-25T10:00:00Z', 'P14D', 'UTC', '2027-01-08T10:00:00.000Z'],
    ['2026-03-20T08:00:00Z', 'P14D', 'Europe/Berlin', '2026-04-03T07:00:00.000Z'],
    ['2026-10-20T07:00:00Z', 'P14D', 'Europe/Berlin', '2026-11-03T08:00:00.000Z'],
    // P3M and P6M (the follow-ups) from month ends and the leap day, in Berlin across DST.
    ['2026-01-31T08:00:00Z', 'P3M', 'Europe/Berlin', '2026-04-30T07:00:00.000Z'],
    ['2026-08-31T07:00:00Z', 'P6M', 'Europe/Berlin', '2027-02-28T08:00:00.000Z'],
    ['2027-11-30T10:00:00Z', 'P3M', 'UTC', '2028-02-29T10:00:00.000Z'],
    ['2026-10-31T10:00:00Z', 'P3M', 'UTC', '2027-01-31T10:00:00.000Z'],
    ['2028-02-29T10:00:00Z', 'P1M', 'UTC', '2028-03-29T10:00:00.000Z'],
    ['2028-02-29T10:00:00Z', 'P3M', 'UTC', '2028-05-29T10:00:00.000Z'],
    ['2028-02-29T10:00:00Z', 'P6M', 'UTC', '2028-08-29T10:00:00.000Z'],
    ['2027-08-31T10:00:00Z', 'P6M', 'UTC', '2028-02-29T10:00:00.000Z'],
    // Beirut (summer time from the last Sunday of March to the last Sunday of October, at
    // midnight): a day and two weeks keep 09:00 local across both changes.
    ['2026-03-28T07:00:00Z', 'P1D', 'Asia/Beirut', '2026-03-29T06:00:00.000Z'],
    ['2026-03-20T07:00:00Z', 'P14D', 'Asia/Beirut', '2026-04-03T06:00:00.000Z'],
    ['2026-10-24T06:00:00Z', 'P1D', 'Asia/Beirut', '2026-10-25T07:00:00.000Z'],
    ['2026-10-20T06:00:00Z', 'P3M', 'Asia/Beirut', '2027-01-20T07:00:00.000Z'],
    // The participant's calendar day, not UTC's: 23:30 on 31 January in Beirut is 21:30 UTC.
    ['2026-01-31T21:30:00Z', 'P1M', 'Asia/Beirut', '2026-02-28T21:30:00.000Z'],
    // An unknown zone counts in UTC rather than failing a process step.
    ['2026-01-31T10:00:00Z', 'P1M', 'Mars/Olympus', '2026-02-28T10:00:00.000Z'],
  ])('%s + %s in %s = %s', (from, duration, zone, expected) => {
    expect(addDuration(new Date(from), duration, zone).toISOString()).toBe(expected);
  });

  it('a due date given as a duration counts in the zone too', () => {
    expect(toDate('P1D', new Date('2026-03-28T08:00:00Z'), 'Europe/Berlin')?.toISOString()).toBe('2026-03-29T07:00:00.000Z');
  });
});
