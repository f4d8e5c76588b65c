import { describe, expect, it } from 'vitest';
import { activeBookings, canceledBookings, classifyOffers, isJoinable, isPast, isPost, isPresent, isSoon, isUpcoming, POST_HOURS, REFETCH_AFTER, SOON_MINUTES, workflowMessageAfter } from './interviews';

const now = new Date('2026-11-22T10:00:00Z');
const at = (minutes: number) => new Date(now.getTime() + minutes * 60_000);
const slot = (startMin: number, endMin: number) => ({ start: at(startMin), end: at(endMin) });

describe('time classes at their boundaries', () => {
  it('upcoming: the start is after now', () => {
    expect(isUpcoming(slot(1, 60), now)).toBe(true);
    expect(isUpcoming(slot(0, 60), now)).toBe(false);
  });
  it('soon: starts within 20 minutes', () => {
    expect(SOON_MINUTES).toBe(20);
    expect(isSoon(slot(20, 80), now)).toBe(true);
    expect(isSoon(slot(21, 80), now)).toBe(false);
    expect(isSoon(slot(0, 60), now)).toBe(false);
  });
  it('present: start inclusive, end exclusive', () => {
    expect(isPresent(slot(0, 60), now)).toBe(true);
    expect(isPresent(slot(-60, 0), now)).toBe(false);
    expect(isPresent(slot(-60, 1), now)).toBe(true);
  });
  it('past: the end at or before now', () => {
    expect(isPast(slot(-60, 0), now)).toBe(true);
    expect(isPast(slot(-60, 1), now)).toBe(false);
  });
  it('post: ended within the post window', () => {
    expect(isPost(slot(-60, 0), now)).toBe(true);
    expect(isPost(slot(-POST_HOURS * 60 - 60, -POST_HOURS * 60), now)).toBe(false);
    expect(isPost(slot(0, 60), now)).toBe(false);
  });
  it('joinable from 20 minutes before the start until the end', () => {
    expect(isJoinable(slot(20, 80), now)).toBe(true);
    expect(isJoinable(slot(-10, 50), now)).toBe(true);
    expect(isJoinable(slot(25, 80), now)).toBe(false);
    expect(isJoinable(slot(-60, 0), now)).toBe(false);
  });
});

describe('classification (spec §4)', () => {
  const offers = [
    { id: 'a', interviewerId: 'me', canceled: false, timeSlot: slot(120, 180) },
    { id: 'b', interviewerId: 'me', canceled: true, timeSlot: slot(60, 120) },
    { id: 'c', interviewerId: 'other', canceled: true, timeSlot: slot(30, 90) },
    { id: 'd', interviewerId: 'me', canceled: false, timeSlot: slot(-30, 30) },
    { id: 'e', interviewerId: 'me', canceled: false, timeSlot: slot(-120, -60) },
    { id: 'f', interviewerId: 'other', canceled: false, timeSlot: slot(240, 300) },
  ];
  const c = classifyOffers(offers, 'me', now);
  const ids = (list: { id: string }[]) => list.map((o) => o.id);
  it('sorts by start and classifies', () => {
    expect(ids(c.upcoming)).toEqual(['a']);
    expect(ids(c.canceled)).toEqual(['b']);
    expect(ids(c.present)).toEqual(['d']);
    expect(ids(c.past)).toEqual(['e']);
    expect(ids(c.notUpcoming)).toEqual(['e', 'd', 'c', 'b', 'f']);
    expect(ids(c.adoptible)).toEqual(['c']);
  });
});

describe('bookings order (spec §3)', () => {
  const bookings = [
    { id: '1', canceled: false, canceledAt: null, createdAt: at(-30) },
    { id: '2', canceled: false, canceledAt: null, createdAt: at(-60) },
    { id: '3', canceled: true, canceledAt: at(-10), createdAt: at(-90) },
    { id: '4', canceled: true, canceledAt: at(-5), createdAt: at(-80) },
  ];
  it('lists active bookings oldest created first and cancelled ones newest cancelled first', () => {
    expect(activeBookings(bookings).map((b) => b.id)).toEqual(['2', '1']);
    expect(canceledBookings(bookings).map((b) => b.id)).toEqual(['4', '3']);
  });
});

describe('refetch rules and workflow messages (spec §4)', () => {
  it('reloads what the spec names after each action', () => {
    expect(REFETCH_AFTER.cancel).toEqual(['offers', 'dates', 'bookings']);
    expect(REFETCH_AFTER.create).toEqual(['offers', 'dates', 'bookings']);
    expect(REFETCH_AFTER.reschedule).toEqual(['offers', 'dates']);
    expect(REFETCH_AFTER.link).toEqual(['offers']);
    expect(REFETCH_AFTER.update).toEqual(['offers']);
    expect(REFETCH_AFTER.book).toEqual(expect.arrayContaining(['dates', 'offers']));
  });

  it('names the workflow message of cancel, reschedule and update only', () => {
    expect(workflowMessageAfter('cancel')).toBe('offerCanceled');
    expect(workflowMessageAfter('reschedule')).toBe('offerRescheduled');
    expect(workflowMessageAfter('update')).toBe('offerRescheduled');
    expect(workflowMessageAfter('link')).toBeNull();
    expect(workflowMessageAfter('adopt')).toBeNull();
  });
});
