/**
 * The GraphQL operations of the interview screens (spec §7: AvailableInterviewDates,
 * InterviewBookings, InterviewOffers, queryBookingInfoByCaseId, BookInterview,
 * CancelInterviewBooking, SetExternalLink, AdoptOffer, CancelOffer, UncancelOffer, CreateOffer,
 * UpdateOffer, RescheduleOffer) and the shapes the screens read. Times arrive as ISO strings
 * and become Dates here, once.
 */
import type { Gender } from '../../../domain/accounts';
import type { OfferLike, TimeSlot } from '../../../domain/interviews';
import { graphql } from '../../api/client';
import { AVAILABLE_DATES_QUERY, availableUntil, CALENDAR_QUERY, OFFERS_QUERY, offersSince, SELECTIONS } from '../../../domain/interview-operations';

export { AVAILABLE_DATES_LIMIT, AVAILABLE_DATES_QUERY, BOOKING_HORIZON_DAYS, OFFERS_PAST_DAYS, OFFERS_QUERY, offersSince } from '../../../domain/interview-operations';

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
const { SLOT, BOOKING } = SELECTIONS;

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

export async function loadOffers(): Promise<Offer[]> {
  const data = await graphql<{ interviewOffersFrom: { nodes: RawOffer[] } }>(OFFERS_QUERY, { since: offersSince(new Date()).toISOString() });
  return data.interviewOffersFrom.nodes.map(offer);
}

/** The slots starting within a window (the interview calendar's week). */
export async function loadCalendar(since: Date, until: Date): Promise<Offer[]> {
  const data = await graphql<{ interviewCalendarList: RawOffer[] }>(CALENDAR_QUERY, { since: since.toISOString(), until: until.toISOString() });
  return data.interviewCalendarList.map(offer);
}

/** The free slots of the booking window that starts now. */
export async function loadAvailableDates(now: Date): Promise<AvailableDate[]> {
  const data = await graphql<{ availableInterviewDatesList: { id: string; gender: Gender | null; timeSlot: RawSlot }[] }>(AVAILABLE_DATES_QUERY, {
    until: availableUntil(now).toISOString(),
  });
  return data.availableInterviewDatesList.map((d) => ({ ...d, timeSlot: slot(d.timeSlot) }));
}

type RawCaseBooking = RawBooking & {
  offer: { id: string; externalLink: string | null; canceled: boolean; timeSlot: RawSlot; interviewer: InterviewPerson | null } | null;
};

/** Spec §7 queryBookingInfoByCaseId: the active bookings of a case with their slots. */
export async function loadCaseBookings(caseId: string): Promise<CaseBooking[]> {
  const data = await graphql<{ queryBookingInfoByCaseIdList: RawCaseBooking[] }>(
    `query queryBookingInfoByCaseId($caseId: UUID!) {
      queryBookingInfoByCaseIdList(caseId: $caseId) { ${BOOKING} offer { id externalLink canceled ${SLOT} interviewer { id username gender } } }
    }`,
    { caseId },
  );
  return data.queryBookingInfoByCaseIdList.map((b) => ({
    ...booking(b),
    offer: b.offer ? { ...b.offer, timeSlot: slot(b.offer.timeSlot) } : null,
  }));
}

export interface CaseChoice {
  id: string;
  shortId: string;
  patient: { username: string; alias: string | null } | null;
}

/** The cases a coordinator may book for (spec §7 AllCases with the patient's name). */
export async function loadCasesForBooking(): Promise<CaseChoice[]> {
  const data = await graphql<{ allCasesList: CaseChoice[] }>(
    `query AllCases { allCasesList(orderBy: CREATED_AT_DESC) { id shortId patient { username alias } } }`,
  );
  return data.allCasesList.filter((c) => c.patient);
}

/** Interviewers a coordinator may offer slots for. */
export async function loadInterviewers(): Promise<{ id: string; username: string; alias: string | null }[]> {
  const data = await graphql<{ allUsersList: { id: string; username: string; alias: string | null }[] }>(
    `query Interviewers { allUsersList(condition: { isInterviewerAccount: true }, orderBy: USERNAME_ASC) { id username alias } }`,
  );
  return data.allUsersList;
}

// Mutations -----------------------------------------------------------------------------------

const OFFER_PAYLOAD = `interviewOffer { id }`;

export async function createOffer(startsAt: Date, endsAt: Date, interviewerId: string | null): Promise<void> {
  await graphql(
    `mutation CreateOffer($startsAt: Datetime!, $endsAt: Datetime!, $interviewerId: UUID) {
      createOffer(input: { startsAt: $startsAt, endsAt: $endsAt, interviewerId: $interviewerId }) { ${OFFER_PAYLOAD} }
    }`,
    { startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString(), interviewerId },
  );
}

/** A weekly series at the same local time in `timeZone`, one action, all or nothing. */
export async function createOfferSeries(startsAt: Date, endsAt: Date, weeks: number, timeZone: string, interviewerId: string | null): Promise<void> {
  await graphql(
    `mutation CreateOfferSeries($startsAt: Datetime!, $endsAt: Datetime!, $weeks: Int!, $timeZone: String, $interviewerId: UUID) {
      createOfferSeries(input: { startsAt: $startsAt, endsAt: $endsAt, weeks: $weeks, timeZone: $timeZone, interviewerId: $interviewerId }) { clientMutationId }
    }`,
    { startsAt: startsAt.toISOString(), endsAt: endsAt.toISOString(), weeks, timeZone, interviewerId },
  );
}

export type OfferAction = 'cancelOffer' | 'uncancelOffer' | 'adoptOffer';
const ACTION_NAMES: Record<OfferAction, string> = { cancelOffer: 'CancelOffer', uncancelOffer: 'UncancelOffer', adoptOffer: 'AdoptOffer' };

export async function offerAction(action: OfferAction, id: string): Promise<void> {
  await graphql(`mutation ${ACTION_NAMES[action]}($id: UUID!) { ${action}(input: { id: $id }) { ${OFFER_PAYLOAD} } }`, { id });
}

export async function rescheduleOffer(id: string, start: Date, end: Date): Promise<void> {
  await graphql(
    `mutation RescheduleOffer($id: UUID!, $newDate: InterviewOfferDateInput!) { rescheduleOffer(input: { id: $id, newDate: $newDate }) { ${OFFER_PAYLOAD} } }`,
    { id, newDate: { timeSlot: { start: { value: start.toISOString(), inclusive: true }, end: { value: end.toISOString(), inclusive: false } } } },
  );
}

export async function setExternalLink(id: string, link: string): Promise<void> {
  await graphql(`mutation SetExternalLink($id: UUID!, $link: String) { setExternalLink(input: { id: $id, link: $link }) { ${OFFER_PAYLOAD} } }`, {
    id,
    link,
  });
}

export async function updateOffer(id: string, updates: { hasTakenPlace?: boolean }): Promise<void> {
  await graphql(`mutation UpdateOffer($id: UUID!, $updates: InterviewOfferUpdateInput!) { updateOffer(input: { id: $id, updates: $updates }) { ${OFFER_PAYLOAD} } }`, {
    id,
    updates,
  });
}

export async function bookInterview(offerId: string, caseId: string): Promise<void> {
  await graphql(`mutation BookInterview($offerId: UUID!, $caseId: UUID!) { bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }`, {
    offerId,
    caseId,
  });
}

export async function cancelInterviewBooking(id: string): Promise<void> {
  await graphql(`mutation CancelInterviewBooking($id: UUID!) { cancelInterviewBooking(input: { id: $id }) { interviewBooking { id } } }`, { id });
}
