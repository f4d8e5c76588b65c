/**
 * Interview offers (time slots) and their time classes, spec §3 and §4: pure functions used
 * by the server's rules and the interview screens alike. A slot is [start, end): start
 * inclusive, end exclusive.
 */

/** "Soon" starts within this many minutes (spec §9). */
export const SOON_MINUTES = 20;
/**
 * How long after its end an interview counts as "post" (the time to write the report).
 * The spec names the class without a duration: an assumption, recorded in
 * docs/decisions/0017-interview-scheduling.md.
 */
export const POST_HOURS = 24;

export interface TimeSlot {
  start: Date;
  end: Date;
}

export interface OfferLike {
  id: string;
  interviewerId: string;
  canceled: boolean;
  timeSlot: TimeSlot;
}

export interface BookingLike {
  id: string;
  canceled: boolean;
  canceledAt: Date | null;
  createdAt: Date;
}

const minutes = (n: number) => n * 60_000;

/** Starts in the future. */
export function isUpcoming(slot: TimeSlot, now: Date): boolean {
  return slot.start.getTime() > now.getTime();
}

/** Starts within the next 20 minutes (and has not started yet). */
export function isSoon(slot: TimeSlot, now: Date): boolean {
  const untilStart = slot.start.getTime() - now.getTime();
  return untilStart > 0 && untilStart <= minutes(SOON_MINUTES);
}

/** Running now: start at or before now, end after now. */
export function isPresent(slot: TimeSlot, now: Date): boolean {
  return slot.start.getTime() <= now.getTime() && now.getTime() < slot.end.getTime();
}

/** Over: the end is at or before now. */
export function isPast(slot: TimeSlot, now: Date): boolean {
  return slot.end.getTime() <= now.getTime();
}

/** Recently over: ended within POST_HOURS. */
export function isPost(slot: TimeSlot, now: Date): boolean {
  const sinceEnd = now.getTime() - slot.end.getTime();
  return sinceEnd >= 0 && sinceEnd < POST_HOURS * 3_600_000;
}

/** The join link matters from 20 minutes before the start until the end. */
export function isJoinable(slot: TimeSlot, now: Date): boolean {
  return isSoon(slot, now) || isPresent(slot, now);
}

export interface OfferClasses<T> {
  upcoming: T[];
  canceled: T[];
  present: T[];
  past: T[];
  notUpcoming: T[];
  adoptible: T[];
}

/** Offers sorted by start (spec §3: kept sorted by the start value). */
export function sortByStart<T extends OfferLike>(offers: readonly T[]): T[] {
  return [...offers].sort((a, b) => a.timeSlot.start.getTime() - b.timeSlot.start.getTime() || a.id.localeCompare(b.id));
}

/** The classification lists of spec §4 for the interviewer `me`. */
export function classifyOffers<T extends OfferLike>(offers: readonly T[], me: string, now: Date): OfferClasses<T> {
  const sorted = sortByStart(offers);
  const upcoming = sorted.filter((o) => !o.canceled && isUpcoming(o.timeSlot, now) && o.interviewerId === me);
  const upcomingIds = new Set(upcoming.map((o) => o.id));
  return {
    upcoming,
    canceled: sorted.filter((o) => o.canceled && isUpcoming(o.timeSlot, now) && o.interviewerId === me),
    present: sorted.filter((o) => isPresent(o.timeSlot, now)),
    past: sorted.filter((o) => isPast(o.timeSlot, now)),
    notUpcoming: sorted.filter((o) => !upcomingIds.has(o.id)),
    adoptible: sorted.filter((o) => o.canceled && o.interviewerId !== me),
  };
}

/** Active bookings, oldest created first (spec §3). */
export function activeBookings<T extends BookingLike>(bookings: readonly T[]): T[] {
  return bookings.filter((b) => !b.canceled).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
}

/** Cancelled bookings, newest cancellation first (spec §3). */
export function canceledBookings<T extends BookingLike>(bookings: readonly T[]): T[] {
  return bookings
    .filter((b) => b.canceled)
    .sort((a, b) => (b.canceledAt?.getTime() ?? 0) - (a.canceledAt?.getTime() ?? 0) || a.id.localeCompare(b.id));
}

/** What a screen reloads after an action (spec §4 "Refetches"). */
export type InterviewData = 'offers' | 'dates' | 'bookings';
export type InterviewAction = 'cancel' | 'uncancel' | 'adopt' | 'create' | 'reschedule' | 'link' | 'update' | 'book' | 'cancelBooking';

export const REFETCH_AFTER: Record<InterviewAction, readonly InterviewData[]> = {
  cancel: ['offers', 'dates', 'bookings'],
  uncancel: ['offers', 'dates', 'bookings'],
  adopt: ['offers', 'dates', 'bookings'],
  create: ['offers', 'dates', 'bookings'],
  reschedule: ['offers', 'dates'],
  link: ['offers'],
  update: ['offers'],
  // Spec §4 "Booking": after booking or cancelling, available dates and offers. The booking
  // screen shows the booking itself too, so it reloads that as well.
  book: ['dates', 'offers', 'bookings'],
  cancelBooking: ['dates', 'offers', 'bookings'],
};

/** The workflow message a client sends after an offer action (spec §4), if any. */
export function workflowMessageAfter(action: InterviewAction): 'offerCanceled' | 'offerRescheduled' | null {
  if (action === 'cancel') return 'offerCanceled';
  if (action === 'reschedule' || action === 'update') return 'offerRescheduled';
  return null;
}
