import { describe, expect, it } from 'vitest';
import { availableUntil, BOOKING_HORIZON_DAYS, OFFERS_PAST_DAYS, offersSince } from './interview-operations';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('the polled windows', () => {
  it('start at the whole hour before the manage screen’s 30 days back', () => {
    const now = new Date('2026-03-29T01:59:59.999Z');
    expect(offersSince(now).toISOString()).toBe(new Date(Date.parse('2026-03-29T01:00:00Z') - OFFERS_PAST_DAYS * DAY).toISOString());
    expect(offersSince(new Date('2026-03-29T01:00:00Z'))).toEqual(offersSince(new Date('2026-03-29T01:59:00Z')));
  });

  it('end at the whole hour after the booking horizon, never before it', () => {
    expect(availableUntil(new Date('2026-03-29T01:00:00.001Z')).toISOString()).toBe(new Date(Date.parse('2026-03-29T02:00:00Z') + BOOKING_HORIZON_DAYS * DAY).toISOString());
    expect(availableUntil(new Date('2026-03-29T01:00:00Z')).toISOString()).toBe(new Date(Date.parse('2026-03-29T01:00:00Z') + BOOKING_HORIZON_DAYS * DAY).toISOString());
  });

  it('are the same question for every poll within an hour', () => {
    const a = new Date('2026-11-22T08:00:00Z');
    const b = new Date(a.getTime() + HOUR - 1);
    expect(offersSince(a)).toEqual(offersSince(b));
    expect(availableUntil(new Date(a.getTime() + 1))).toEqual(availableUntil(b));
  });
});
