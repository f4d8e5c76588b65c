/**
 * The interview screens' server calls (spec §7: AvailableInterviewDates, InterviewOffers,
 * queryBookingInfoByCaseId, BookInterview, CancelInterviewBooking, SetExternalLink, AdoptOffer,
 * CancelOffer, UncancelOffer, CreateOffer, UpdateOffer, RescheduleOffer) as typed documents,
 * their query keys, the watched offers, and the refetch rules of spec §4 applied once per
 * action (refetchInterviewsAfter). Times arrive as ISO strings and become Dates here, once.
 */
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import type { Gender } from '../../../domain/accounts';
import { REFETCH_AFTER, type InterviewAction, type InterviewData, type OfferLike, type TimeSlot } from '../../../domain/interviews';
import { graphql, request } from '../../api/graphql';
import { AVAILABLE_DATES_QUERY, availableUntil, CALENDAR_QUERY, OFFERS_QUERY, offersSince, SELECTIONS } from '../../../domain/interview-operations';

export { AVAILABLE_DATES_LIMIT, AVAILABLE_DATES_QUERY, BOOKING_HORIZON_DAYS, OFFERS_PAST_DAYS, OFFERS_QUERY, offersSince } from '../../../domain/interview-operations';

/** Offers are watched: fetched fresh when a screen opens, then every 30 s while it is open. */
export const WATCH_INTERVAL_MS = 30_000;

export interface InterviewPerson {
  id: string;
  username: string;
  gender: Gender | null;
}

export interface Booking {
  id: string;
  caseId: string;
  offerId: string;
  canceled: boolean;
  canceledAt: Date | null;
  createdAt: Date;
  interviewee: InterviewPerson | null;
}

export interface Offer extends OfferLike {
  canceledAt: Date | null;
  externalLink: string | null;
  hasTakenPlace: boolean;
  interviewer: InterviewPerson | null;
  activeBookings: Booking[];
}

export interface AvailableDate {
  id: string;
  gender: Gender | null;
  timeSlot: TimeSlot;
}

export interface CaseBooking extends Booking {
  offer: { id: string; externalLink: string | null; timeSlot: TimeSlot; interviewer: InterviewPerson | null; canceled: boolean } | null;
}

interface RawSlot {
  start: { value: string };
  end: { value: string };
}
void SELECTIONS;

const slot = (raw: RawSlot): TimeSlot => ({ start: new Date(raw.start.value), end: new Date(raw.end.value) });
const date = (value: string | null): Date | null => (value ? new Date(value) : null);

type RawBooking = Omit<Booking, 'canceledAt' | 'createdAt'> & { canceledAt: string | null; createdAt: string };
type RawOffer = Omit<Offer, 'timeSlot' | 'canceledAt' | 'activeBookings'> & {
  timeSlot: RawSlot;
  canceledAt: string | null;
  activeBookings: { nodes: RawBooking[] };
};

function booking(raw: RawBooking): Booking {
  return { ...raw, canceledAt: date(raw.canceledAt), createdAt: new Date(raw.createdAt) };
}

function offer(raw: RawOffer): Offer {
  return { ...raw, timeSlot: slot(raw.timeSlot), canceledAt: date(raw.canceledAt), activeBookings: raw.activeBookings.nodes.map(booking) };
}

export const InterviewOffers = graphql(OFFERS_QUERY);
export const InterviewCalendar = graphql(CALENDAR_QUERY);
export const AvailableInterviewDates = graphql(AVAILABLE_DATES_QUERY);

export async function loadOffers(): Promise<Offer[]> {
  const data = await request(InterviewOffers, { since: offersSince(new Date()).toISOString() });
  return (data.interviewOffersFrom?.nodes ?? []).map((o) => offer(o as RawOffer));
}

/** The slots starting within a window (the interview calendar's week). */
export async function loadCalendar(since: Date, until: Date): Promise<Offer[]> {
  const data = await request(InterviewCalendar, { since: since.toISOString(), until: until.toISOString() });
  return (data.interviewCalendarList ?? []).map((o) => offer(o as RawOffer));
}

/** The free slots of the booking window that starts now. */
export async function loadAvailableDates(now: Date): Promise<AvailableDate[]> {
  const data = await request(AvailableInterviewDates, { until: availableUntil(now).toISOString() });
  return (data.availableInterviewDatesList ?? []).map((d) => ({ id: d.id!, gender: d.gender ?? null, timeSlot: slot(d.timeSlot as RawSlot) }));
}

type RawCaseBooking = RawBooking & {
  offer: { id: string; externalLink: string | null; canceled: boolean; timeSlot: RawSlot; interviewer: InterviewPerson | null } | null;
};

export const QueryBookingInfoByCaseId = graphql(`query queryBookingInfoByCaseId($caseId: UUID!) {
  queryBookingInfoByCaseIdList(caseId: $caseId) {
    id caseId offerId canceled canceledAt createdAt interviewee { id username gender }
    offer { id externalLink canceled timeSlot { start { value inclusive } end { value inclusive } } interviewer { id username gender } }
  }
}`);

/** Spec §7 queryBookingInfoByCaseId: the active bookings of a case with their slots. */
export async function loadCaseBookings(caseId: string): Promise<CaseBooking[]> {
  const data = await request(QueryBookingInfoByCaseId, { caseId });
  return (data.queryBookingInfoByCaseIdList ?? []).map((raw) => raw as RawCaseBooking).map((b) => ({
    ...booking(b),
    offer: b.offer ? { ...b.offer, timeSlot: slot(b.offer.timeSlot) } : null,
  }));
}

export interface CaseChoice {
  id: string;
  shortId: string;
  patient: { username: string; alias: string | null } | null;
}

export const CasesForBooking = graphql(`query CasesForBooking { allCasesList(orderBy: CREATED_AT_DESC) { id shortId patient { username alias } } }`);

/** The cases a coordinator may book for (spec §7 AllCases, with the patient's name). */
export async function loadCasesForBooking(): Promise<CaseChoice[]> {
  const data = await request(CasesForBooking);
  return (data.allCasesList ?? []).flatMap((c) => (c.patient ? [{ ...c, shortId: c.shortId ?? '' }] : []));
}

export const Interviewers = graphql(`query Interviewers { allUsersList(condition: { isInterviewerAccount: true }, orderBy: USERNAME_ASC) { id username alias } }`);

/** Interviewers a coordinator may offer slots for. */
export async function loadInterviewers(): Promise<{ id: string; username: string; alias: string | null }[]> {
  const data = await request(Interviewers);
  return data.allUsersList ?? [];
}

// Mutations -----------------------------------------------------------------------------------

export const CreateOffer = graphql(`mutation CreateOffer($startsAt: Datetime!, $endsAt: Datetime!, $interviewerId: UUID) {
  createOffer(input: { startsAt: $startsAt, endsAt: $endsAt, interviewerId: $interviewerId }) { interviewOffer { id } }
}`);
export const CreateOfferSeries = graphql(`mutation CreateOfferSeries($startsAt: Datetime!, $endsAt: Datetime!, $weeks: Int!, $timeZone: String, $interviewerId: UUID) {
  createOfferSeries(input: { startsAt: $startsAt, endsAt: $endsAt, weeks: $weeks, timeZone: $timeZone, interviewerId: $interviewerId }) { clientMutationId }
}`);
export const CancelOffer = graphql(`mutation CancelOffer($id: UUID!) { cancelOffer(input: { id: $id }) { interviewOffer { id } } }`);
export const UncancelOffer = graphql(`mutation UncancelOffer($id: UUID!) { uncancelOffer(input: { id: $id }) { interviewOffer { id } } }`);
export const AdoptOffer = graphql(`mutation AdoptOffer($id: UUID!) { adoptOffer(input: { id: $id }) { interviewOffer { id } } }`);
export const RescheduleOffer = graphql(`mutation RescheduleOffer($id: UUID!, $newDate: InterviewOfferDateInput!) {
  rescheduleOffer(input: { id: $id, newDate: $newDate }) { interviewOffer { id } }
}`);
export const SetExternalLink = graphql(`mutation SetExternalLink($id: UUID!, $link: String) { setExternalLink(input: { id: $id, link: $link }) { interviewOffer { id } } }`);
export const UpdateOffer = graphql(`mutation UpdateOffer($id: UUID!, $updates: InterviewOfferUpdateInput!) { updateOffer(input: { id: $id, updates: $updates }) { interviewOffer { id } } }`);
export const BookInterview = graphql(`mutation BookInterview($offerId: UUID!, $caseId: UUID!) { bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }`);
export const CancelInterviewBooking = graphql(`mutation CancelInterviewBooking($id: UUID!) { cancelInterviewBooking(input: { id: $id }) { interviewBooking { id } } }`);

export async function createOffer(startsAt: Date, endsAt: Date, interviewerId: string | null): Promise<void> {
  await request(CreateOffer, { startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString(), interviewerId });
}

/** A weekly series at the same local time in `timeZone`, one action, all or nothing. */
export async function createOfferSeries(startsAt: Date, endsAt: Date, weeks: number, timeZone: string, interviewerId: string | null): Promise<void> {
  await request(CreateOfferSeries, { startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString(), weeks, timeZone, interviewerId });
}

export type OfferAction = 'cancelOffer' | 'uncancelOffer' | 'adoptOffer';

export async function offerAction(action: OfferAction, id: string): Promise<void> {
  if (action === 'cancelOffer') await request(CancelOffer, { id });
  else if (action === 'uncancelOffer') await request(UncancelOffer, { id });
  else await request(AdoptOffer, { id });
}

export async function rescheduleOffer(id: string, start: Date, end: Date): Promise<void> {
  await request(RescheduleOffer, {
    id,
    newDate: { timeSlot: { start: { value: start.toISOString(), inclusive: true }, end: { value: end.toISOString(), inclusive: false } } },
  });
}

export async function setExternalLink(id: string, link: string): Promise<void> {
  await request(SetExternalLink, { id, link });
}

export async function updateOffer(id: string, updates: { hasTakenPlace?: boolean }): Promise<void> {
  await request(UpdateOffer, { id, updates });
}

/** Spec §5: booking requires an offer with an id. */
export async function bookInterview(offerId: string, caseId: string): Promise<void> {
  if (!offerId) throw new Error('Provide an offer with an id');
  await request(BookInterview, { offerId, caseId });
}

/** Spec §5: cancelling requires a booking with an id. */
export async function cancelInterviewBooking(id: string): Promise<void> {
  if (!id) throw new Error('Provide a booking with an id');
  await request(CancelInterviewBooking, { id });
}

// Keys, queries and refetch rules -------------------------------------------------------------

/** Query keys: one per kind of interview data of spec §4's refetch rules, and the rest. */
export const interviewKeys = {
  all: ['interviews'] as const,
  offers: () => ['interviews', 'offers'] as const,
  dates: () => ['interviews', 'dates'] as const,
  bookings: () => ['interviews', 'bookings'] as const,
  caseBookings: (caseId: string) => ['interviews', 'bookings', caseId] as const,
  calendar: (since: string, until: string) => ['interviews', 'offers', 'calendar', since, until] as const,
  casesForBooking: () => ['interviews', 'cases'] as const,
  interviewers: () => ['interviews', 'interviewers'] as const,
};

const KEY_OF: Record<InterviewData, () => readonly string[]> = { offers: interviewKeys.offers, dates: interviewKeys.dates, bookings: interviewKeys.bookings };

/**
 * Spec §4 "Refetches", applied once for every screen: after an action, the kinds of data
 * REFETCH_AFTER names for it are refetched wherever they are shown (the calendar is offers too).
 */
export function refetchInterviewsAfter(client: QueryClient, action: InterviewAction): Promise<void> {
  return Promise.all(REFETCH_AFTER[action].map((kind) => client.invalidateQueries({ queryKey: KEY_OF[kind]() }))).then(() => undefined);
}

/**
 * Spec §7 InterviewOffers: "fetched without cache once and then watched live": every screen
 * that shows them (and the session, for interviewer-level users) asks the server on mount,
 * never trusting a kept answer, and again every WATCH_INTERVAL_MS. A failed watch is logged
 * and the error goes to the screen (spec §8).
 */
export const offersQuery = () =>
  queryOptions({
    queryKey: interviewKeys.offers(),
    queryFn: loadOffers,
    refetchOnMount: 'always',
    refetchInterval: WATCH_INTERVAL_MS,
    meta: { logFailure: 'offers watch failed' },
  });

export const calendarQuery = (since: Date, until: Date) =>
  queryOptions({
    queryKey: interviewKeys.calendar(since.toISOString(), until.toISOString()),
    queryFn: () => loadCalendar(since, until),
    refetchOnMount: 'always',
    refetchInterval: WATCH_INTERVAL_MS,
  });

export const availableDatesQuery = () =>
  queryOptions({ queryKey: interviewKeys.dates(), queryFn: () => loadAvailableDates(new Date()), refetchInterval: WATCH_INTERVAL_MS });

export const caseBookingsQuery = (caseId: string) => queryOptions({ queryKey: interviewKeys.caseBookings(caseId), queryFn: () => loadCaseBookings(caseId) });

export const casesForBookingQuery = () => queryOptions({ queryKey: interviewKeys.casesForBooking(), queryFn: loadCasesForBooking });

export const interviewersQuery = () => queryOptions({ queryKey: interviewKeys.interviewers(), queryFn: loadInterviewers });
