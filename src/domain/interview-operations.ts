/**
 * The GraphQL texts of the interview screens' polled reads, shared by the web app (which sends
 * them) and the server (whose read cache keeps their answers: src/server/graphql/read-cache.ts).
 * The cache recognises an operation by its exact text, so a screen that asks something else is
 * simply not cached. Windows are rounded to the hour, so that the polls of one screen within an
 * hour ask the same question and can share an answer.
 */

const SLOT = 'timeSlot { start { value inclusive } end { value inclusive } }';
const BOOKING = 'id caseId offerId canceled canceledAt createdAt interviewee { id username gender }';
const OFFER = `id interviewerId canceled canceledAt externalLink hasTakenPlace ${SLOT} interviewer { id username gender }
  activeBookings { nodes { ${BOOKING} } }` as const;

/** The selections the screens read, for the operations that are not polled. */
export const SELECTIONS = { SLOT, BOOKING, OFFER } as const;

const HOUR_MS = 3_600_000;

/**
 * How far back the manage screen lists slots: its "past" list is for marking interviews held
 * and writing their reports, which happens within days; older weeks are in the calendar.
 */
export const OFFERS_PAST_DAYS = 30;

/** The start of the manage screen's window: OFFERS_PAST_DAYS before `now`, at the hour before. */
export function offersSince(now: Date): Date {
  const since = now.getTime() - OFFERS_PAST_DAYS * 86_400_000;
  return new Date(Math.floor(since / HOUR_MS) * HOUR_MS);
}

/**
 * Spec §7 InterviewOffers, by start: the person's slots from `since` on (with colleagues'
 * adoptible cancelled ones; a coordinator's: every interviewer's). Not every offer ever seen:
 * a list that grew with each week of history would be read on every watch interval.
 */
export const OFFERS_QUERY = `query InterviewOffers($since: Datetime!) { interviewOffersFrom(since: $since) { nodes { ${OFFER} } } }` as const;

/** The slots starting within a window (the interview calendar's week). */
export const CALENDAR_QUERY = `query InterviewCalendar($since: Datetime!, $until: Datetime!) { interviewCalendarList(since: $since, until: $until) { ${OFFER} } }` as const;

/** At most this many of the earliest free slots are offered at once: enough to choose from on a phone. */
export const AVAILABLE_DATES_LIMIT = 200 as const;

/** How far ahead the booking screen offers slots. */
export const BOOKING_HORIZON_DAYS = 56;

/** The end of the booking screen's window: BOOKING_HORIZON_DAYS after `now`, at the next hour. */
export function availableUntil(now: Date): Date {
  const until = now.getTime() + BOOKING_HORIZON_DAYS * 86_400_000;
  return new Date(Math.ceil(until / HOUR_MS) * HOUR_MS);
}

/** Spec §7 AvailableInterviewDates: the earliest free upcoming slots, within the next weeks. */
export const AVAILABLE_DATES_QUERY = `query AvailableInterviewDates($until: Datetime, $first: Int = ${AVAILABLE_DATES_LIMIT}) {
  availableInterviewDatesList(until: $until, first: $first) { id gender timeSlot { start { value inclusive } end { value inclusive } } }
}` as const;
