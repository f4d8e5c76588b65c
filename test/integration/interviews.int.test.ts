/**
 * Interview scheduling under row-level security: every offer and booking action allowed and
 * denied by role, the overlap rule, bad input (coded errors, nothing stored), the double-
 * booking race, the workflow outbox and the calendar mails with their .ics attachments.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { processInterviewMails } from '../../src/server/interviews/mail-worker';
import { createLogger } from '../../src/server/logger';
import { startTestApp, type TestApp } from '../helpers/app';
import { rawAttachment } from '../helpers/smtp';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let interviewer: Person;
let colleague: Person;
let coordinator: Person;
let patient: Person;
let otherPatient: Person;
let therapist: Person;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A slot starting `days` days (plus `hours`) from now, one hour long, on a whole minute. */
function slot(days: number, hours = 0, minutes = 60): { startsAt: string; endsAt: string } {
  const start = Math.ceil((Date.now() + days * DAY + hours * HOUR) / 60_000) * 60_000;
  return { startsAt: new Date(start).toISOString(), endsAt: new Date(start + minutes * 60_000).toISOString() };
}

const OFFER = `id interviewerId canceled canceledAt externalLink hasTakenPlace startsAt endsAt
  timeSlot { start { value inclusive } end { value inclusive } }
  interviewer { id username gender } upcoming soon present past isPost`;
const CREATE = `mutation CreateOffer($startsAt: Datetime!, $endsAt: Datetime!, $interviewerId: UUID) {
  createOffer(input: { startsAt: $startsAt, endsAt: $endsAt, interviewerId: $interviewerId }) { interviewOffer { ${OFFER} } } }`;
const SERIES = `mutation($startsAt: Datetime!, $endsAt: Datetime!, $weeks: Int!, $timeZone: String) {
  createOfferSeries(input: { startsAt: $startsAt, endsAt: $endsAt, weeks: $weeks, timeZone: $timeZone }) { interviewOffers { id startsAt endsAt } } }`;
const ACTION = (name: string) => `mutation($id: UUID!) { ${name}(input: { id: $id }) { interviewOffer { ${OFFER} } } }`;
const BOOK = `mutation BookInterview($offerId: UUID!, $caseId: UUID!) {
  bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id caseId offerId canceled canceledAt sequence interviewee { id username } offer { id externalLink } } } }`;
const CANCEL_BOOKING = `mutation CancelInterviewBooking($id: UUID!) {
  cancelInterviewBooking(input: { id: $id }) { interviewBooking { id canceled canceledAt } } }`;
const RESCHEDULE = `mutation RescheduleOffer($id: UUID!, $newDate: InterviewOfferDateInput!) {
  rescheduleOffer(input: { id: $id, newDate: $newDate }) { interviewOffer { ${OFFER} } } }`;
const SET_LINK = `mutation SetExternalLink($id: UUID!, $link: String) { setExternalLink(input: { id: $id, link: $link }) { interviewOffer { id externalLink } } }`;
const UPDATE = `mutation UpdateOffer($id: UUID!, $updates: InterviewOfferUpdateInput!) {
  updateOffer(input: { id: $id, updates: $updates }) { interviewOffer { ${OFFER} } } }`;
const OFFERS = `query InterviewOffers { allInterviewOffers(orderBy: STARTS_AT_ASC) { nodes { ${OFFER} activeBookings { nodes { id } } } } }`;
const DATES = `query AvailableInterviewDates { availableInterviewDatesList { id gender timeSlot { start { value } end { value } } } }`;
const BOOKINGS = `query InterviewBookings { allInterviewBookingsList { id caseId offerId canceled interviewee { username } } }`;

async function count(table: string): Promise<number> {
  const { rows } = await t.database.db.pool.query<{ n: string }>(`select count(*) as n from app_public.${table}`);
  return Number(rows[0]!.n);
}

async function create(person: Person, when = slot(2), interviewerId?: string): Promise<any> {
  const result = await t.graphql(CREATE, { ...when, ...(interviewerId ? { interviewerId } : {}) }, person.token);
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return result.data.createOffer.interviewOffer;
}

/** The coded error of a GraphQL answer (SQL rule code, or SQLSTATE). */
function code(result: { errors?: { extensions?: Record<string, unknown> }[] }): unknown {
  return result.errors?.[0]?.extensions?.code;
}

let day = 3;
/** A fresh slot day per test, so tests never overlap each other's slots. */
function nextSlot(minutes = 60) {
  day += 1;
  return slot(day, 0, minutes);
}

beforeAll(async () => {
  t = await startTestApp();
  interviewer = await t.user({ flags: ['interviewer'], locale: 'de', timeZone: 'Europe/Berlin', gender: 'FEMALE' });
  colleague = await t.user({ flags: ['interviewer'], locale: 'en' });
  coordinator = await t.user({ flags: ['coordinator'], locale: 'en' });
  patient = await t.user({ flags: ['patient'], locale: 'ar', timeZone: 'Asia/Baghdad' });
  otherPatient = await t.user({ flags: ['patient'], locale: 'en' });
  therapist = await t.user({ flags: ['therapist'] });
  await addMember(t.database.db.pool, patient.caseId!, therapist.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

describe('creating time slots', () => {
  it('an interviewer offers a slot [start, end) for themselves', async () => {
    const when = nextSlot();
    const offer = await create(interviewer, when);
    expect(offer.interviewerId).toBe(interviewer.id);
    expect(offer.interviewer).toMatchObject({ id: interviewer.id, username: interviewer.username, gender: 'FEMALE' });
    expect(offer.timeSlot.start).toEqual({ value: expect.any(String), inclusive: true });
    expect(offer.timeSlot.end.inclusive).toBe(false);
    expect(new Date(offer.startsAt).toISOString()).toBe(when.startsAt);
    expect(offer).toMatchObject({ canceled: false, upcoming: true, soon: false, present: false, past: false, isPost: false });
  });

  it('a coordinator offers a slot for an interviewer, but not for a non-interviewer', async () => {
    const offer = await create(coordinator, nextSlot(), colleague.id);
    expect(offer.interviewerId).toBe(colleague.id);
    const before = await count('interview_offers');
    const refused = await t.graphql(CREATE, { ...nextSlot(), interviewerId: therapist.id }, coordinator.token);
    expect(code(refused)).toBe('NOT_INTERVIEWER');
    expect(await count('interview_offers')).toBe(before);
  });

  it('a patient, a therapist and an interviewer for someone else are refused, nothing stored', async () => {
    const before = await count('interview_offers');
    expect(code(await t.graphql(CREATE, nextSlot(), patient.token))).toBe('NOT_INTERVIEWER');
    expect(code(await t.graphql(CREATE, nextSlot(), therapist.token))).toBe('NOT_INTERVIEWER');
    expect(code(await t.graphql(CREATE, { ...nextSlot(), interviewerId: colleague.id }, interviewer.token))).toBe('NOT_OWNER');
    expect(code(await t.graphql(CREATE, nextSlot()))).toBeDefined();
    expect(await count('interview_offers')).toBe(before);
  });

  it('bad input gets a clear code and stores nothing', async () => {
    const before = await count('interview_offers');
    const when = nextSlot();
    const endBeforeStart = await t.graphql(CREATE, { startsAt: when.endsAt, endsAt: when.startsAt }, interviewer.token);
    expect(code(endBeforeStart)).toBe('END_BEFORE_START');
    expect(endBeforeStart.errors![0]!.message).toMatch(/end .* after its start/i);
    const empty = await t.graphql(CREATE, { startsAt: when.startsAt, endsAt: when.startsAt }, interviewer.token);
    expect(code(empty)).toBe('END_BEFORE_START');
    const past = await t.graphql(CREATE, slot(-1), interviewer.token);
    expect(code(past)).toBe('SLOT_IN_PAST');
    expect(past.errors![0]!.message).toMatch(/future/);
    expect(code(await t.graphql(CREATE, slot(day + 1, 0, 13 * 60), interviewer.token))).toBe('SLOT_TOO_LONG');
    expect((await t.graphql(CREATE, { startsAt: 'tomorrow', endsAt: when.endsAt }, interviewer.token)).errors).toBeDefined();
    expect(await count('interview_offers')).toBe(before);
  });

  it("one interviewer's slots never overlap; touching slots and other interviewers are fine", async () => {
    const when = nextSlot();
    const first = await create(interviewer, when);
    const later = new Date(new Date(when.startsAt).getTime() + 30 * 60_000).toISOString();
    const overlapping = await t.graphql(CREATE, { startsAt: later, endsAt: new Date(new Date(later).getTime() + HOUR).toISOString() }, interviewer.token);
    expect(code(overlapping)).toBe('SLOT_OVERLAPS');
    expect(overlapping.errors![0]!.message).toMatch(/overlaps another of the interviewer's time slots/);
    // [start, end): the next slot may start exactly at the end of the first.
    await create(interviewer, { startsAt: when.endsAt, endsAt: new Date(new Date(when.endsAt).getTime() + HOUR).toISOString() });
    await create(colleague, when);
    // A cancelled slot is free time again.
    expect((await t.graphql(ACTION('cancelOffer'), { id: first.id }, interviewer.token)).errors).toBeUndefined();
    const again = await create(interviewer, when);
    // …so it cannot be offered again while the new slot holds the time.
    expect(code(await t.graphql(ACTION('uncancelOffer'), { id: first.id }, interviewer.token))).toBe('SLOT_OVERLAPS');
    expect(again.canceled).toBe(false);
  });
});

describe('weekly series', () => {
  it('Tuesdays 10:00–11:00 Berlin time for 6 weeks stay at 10:00 across the change to summer time', async () => {
    // The next year's Tuesday before the last Sunday of March: the series spans the DST change.
    const year = new Date().getUTCFullYear() + 1;
    const march = new Date(Date.UTC(year, 2, 31));
    const lastSunday = 31 - march.getUTCDay();
    const tuesday = lastSunday - 5; // the Tuesday before
    const startsAt = new Date(Date.UTC(year, 2, tuesday, 9, 0)).toISOString(); // 10:00 CET = 09:00 UTC
    const endsAt = new Date(Date.UTC(year, 2, tuesday, 10, 0)).toISOString();
    const result = await t.graphql(SERIES, { startsAt, endsAt, weeks: 6, timeZone: 'Europe/Berlin' }, interviewer.token);
    expect(result.errors).toBeUndefined();
    const offers = result.data.createOfferSeries.interviewOffers as { startsAt: string; endsAt: string }[];
    expect(offers).toHaveLength(6);
    const local = offers.map((o) =>
      new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(o.startsAt)),
    );
    expect(new Set(local)).toEqual(new Set(['Tue 10:00']));
    // UTC hour moves from 09:00 to 08:00 after the change.
    expect(new Date(offers[0]!.startsAt).getUTCHours()).toBe(9);
    expect(new Date(offers[5]!.startsAt).getUTCHours()).toBe(8);
  });

  it('is all or nothing: one overlapping week stores none', async () => {
    const base = slot(200);
    const thirdWeek = new Date(new Date(base.startsAt).getTime() + 14 * DAY);
    await create(interviewer, { startsAt: thirdWeek.toISOString(), endsAt: new Date(thirdWeek.getTime() + HOUR).toISOString() });
    const before = await count('interview_offers');
    const result = await t.graphql(SERIES, { ...base, weeks: 4, timeZone: 'UTC' }, interviewer.token);
    expect(code(result)).toBe('SLOT_OVERLAPS');
    expect(await count('interview_offers')).toBe(before);
    expect(code(await t.graphql(SERIES, { ...slot(300), weeks: 0 }, interviewer.token))).toBe('SERIES_LENGTH');
    expect(code(await t.graphql(SERIES, { ...slot(300), weeks: 2 }, patient.token))).toBe('NOT_INTERVIEWER');
  });
});

describe('who sees which slots', () => {
  it('an interviewer sees own slots and the cancelled slots of others; a patient sees free slots only as dates', async () => {
    const mine = await create(interviewer, nextSlot());
    const theirs = await create(colleague, nextSlot());
    const theirsCanceled = await create(colleague, nextSlot());
    await t.graphql(ACTION('cancelOffer'), { id: theirsCanceled.id }, colleague.token);

    const seen = async (person: Person) =>
      ((await t.graphql(OFFERS, {}, person.token)).data.allInterviewOffers.nodes as { id: string }[]).map((o) => o.id);
    const interviewerSees = await seen(interviewer);
    expect(interviewerSees).toContain(mine.id);
    expect(interviewerSees).toContain(theirsCanceled.id);
    expect(interviewerSees).not.toContain(theirs.id);
    expect(await seen(patient)).toEqual([]);
    expect(await seen(therapist)).toEqual([]);
    const coordinatorSees = await seen(coordinator);
    expect(coordinatorSees).toEqual(expect.arrayContaining([mine.id, theirs.id, theirsCanceled.id]));

    const dates = (await t.graphql(DATES, {}, patient.token)).data.availableInterviewDatesList as { id: string; gender: string | null }[];
    expect(dates.map((d) => d.id)).toEqual(expect.arrayContaining([mine.id, theirs.id]));
    expect(dates.map((d) => d.id)).not.toContain(theirsCanceled.id);
    expect(dates.find((d) => d.id === mine.id)!.gender).toBe('FEMALE');
    // Sorted by start.
    const starts = dates.map((d: any) => new Date(d.timeSlot.start.value).getTime());
    expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    // Anonymous callers get nothing.
    expect((await t.graphql(DATES, {})).errors).toBeDefined();
  });
});

describe('the manage list (interviewOffersFrom)', () => {
  const MANAGE = `query InterviewOffers($since: Datetime) { interviewOffersFrom(since: $since) { nodes { id startsAt interviewer { id } } } }`;
  /** A slot `days` days ago, stored directly (the API takes no past slots); booked for `bookedFor` if given. */
  async function pastSlot(owner: Person, days: number, options: { canceled?: boolean; bookedFor?: Person } = {}): Promise<string> {
    const { rows } = await t.database.db.pool.query<{ id: string }>(
      `insert into app_public.interview_offers (interviewer_id, time_slot, canceled, canceled_at)
       values ($1, tstzrange(now() - make_interval(days => $2), now() - make_interval(days => $2) + interval '1 hour', '[)'), $3, case when $3 then now() end)
       returning id`,
      [owner.id, days, options.canceled ?? false],
    );
    const id = rows[0]!.id;
    if (options.bookedFor) {
      await t.database.db.pool.query(
        `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id, booked_by) values ($1, $2, $3, $4, $3)`,
        [id, options.bookedFor.caseId, options.bookedFor.id, owner.id],
      );
    }
    return id;
  }
  const listed = async (person: Person, since: Date | null) => {
    const result = await t.graphql(MANAGE, { since: since?.toISOString() ?? null }, person.token);
    expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
    return result.data.interviewOffersFrom.nodes as { id: string; startsAt: string }[];
  };
  const visible = async (person: Person) =>
    new Set(((await t.graphql(OFFERS, {}, person.token)).data.allInterviewOffers.nodes as { id: string }[]).map((o) => o.id));

  it("own slots from `since` on and colleagues' adoptible ones; a patient only their booked slot; a coordinator all", async () => {
    const mine = await create(interviewer, nextSlot());
    const theirs = await create(colleague, nextSlot());
    const theirsCanceled = await create(colleague, nextSlot());
    await t.graphql(ACTION('cancelOffer'), { id: theirsCanceled.id }, colleague.token);
    const mineRecent = await pastSlot(interviewer, 2);
    const mineOld = await pastSlot(interviewer, 40);
    const theirsPastCanceled = await pastSlot(colleague, 3, { canceled: true });
    const theirsBooked = await pastSlot(colleague, 4, { bookedFor: otherPatient });
    const since = new Date(Date.now() - 30 * DAY);
    const ids = async (person: Person, from: Date | null = since) => (await listed(person, from)).map((o) => o.id);

    const interviewerSees = await ids(interviewer);
    expect(interviewerSees).toEqual(expect.arrayContaining([mine.id, mineRecent, theirsCanceled.id]));
    // A colleague's live slot is never listed; a started cancelled one can no longer be adopted.
    for (const id of [theirs.id, theirsPastCanceled, theirsBooked, mineOld]) expect(interviewerSees).not.toContain(id);
    expect(await ids(interviewer, null)).toContain(mineOld);
    expect(await ids(interviewer, new Date(Date.now() - DAY))).not.toContain(mineRecent);

    const colleagueSees = await ids(colleague);
    expect(colleagueSees).toEqual(expect.arrayContaining([theirs.id, theirsCanceled.id, theirsPastCanceled, theirsBooked]));
    expect(colleagueSees).not.toContain(mine.id);

    expect(await ids(otherPatient)).toEqual([theirsBooked]);
    expect(await ids(otherPatient, new Date(Date.now() - DAY))).toEqual([]);
    expect(await ids(therapist)).toEqual([]);
    const patientSees = await ids(patient);
    for (const id of [mine.id, theirs.id, theirsCanceled.id, theirsBooked]) expect(patientSees).not.toContain(id);

    const coordinatorSees = await ids(coordinator);
    expect(coordinatorSees).toEqual(expect.arrayContaining([mine.id, theirs.id, theirsCanceled.id, mineRecent, theirsPastCanceled, theirsBooked]));
    expect(coordinatorSees).not.toContain(mineOld);

    // Never more than the table's own policy shows, and sorted by start.
    for (const person of [interviewer, colleague, coordinator, patient, otherPatient, therapist]) {
      const list = await listed(person, null);
      const allowed = await visible(person);
      for (const offer of list) expect(allowed.has(offer.id)).toBe(true);
      const starts = list.map((o) => new Date(o.startsAt).getTime());
      expect([...starts].sort((a, b) => a - b)).toEqual(starts);
    }
    expect((await t.graphql(MANAGE, { since: since.toISOString() })).errors).toBeDefined();
  });
});

describe('offer lifecycle by role', () => {
  it('cancel: the owner and a coordinator may; a colleague, a patient and a therapist may not', async () => {
    const offer = await create(interviewer, nextSlot());
    for (const person of [colleague, patient, therapist]) {
      const refused = await t.graphql(ACTION('cancelOffer'), { id: offer.id }, person.token);
      expect(['OFFER_NOT_FOUND', 'NOT_OWNER']).toContain(code(refused));
    }
    const canceled = await t.graphql(ACTION('cancelOffer'), { id: offer.id }, interviewer.token);
    expect(canceled.data.cancelOffer.interviewOffer).toMatchObject({ canceled: true, canceledAt: expect.any(String) });
    expect(code(await t.graphql(ACTION('cancelOffer'), { id: offer.id }, interviewer.token))).toBe('OFFER_CANCELED');
    // A colleague sees it now (adoptible) but still cannot uncancel it.
    expect(code(await t.graphql(ACTION('uncancelOffer'), { id: offer.id }, colleague.token))).toBe('NOT_OWNER');
    const uncanceled = await t.graphql(ACTION('uncancelOffer'), { id: offer.id }, interviewer.token);
    expect(uncanceled.data.uncancelOffer.interviewOffer).toMatchObject({ canceled: false, canceledAt: null });
    expect(code(await t.graphql(ACTION('uncancelOffer'), { id: offer.id }, interviewer.token))).toBe('OFFER_NOT_CANCELED');
    const byCoordinator = await t.graphql(ACTION('cancelOffer'), { id: offer.id }, coordinator.token);
    expect(byCoordinator.data.cancelOffer.interviewOffer.canceled).toBe(true);
  });

  it('adopt: only a cancelled slot of another interviewer, only by an interviewer', async () => {
    const live = await create(interviewer, nextSlot());
    expect(code(await t.graphql(ACTION('adoptOffer'), { id: live.id }, colleague.token))).toBe('OFFER_NOT_FOUND');
    await t.graphql(SET_LINK, { id: live.id, link: 'https://meet.example.org/old' }, interviewer.token);
    await t.graphql(ACTION('cancelOffer'), { id: live.id }, interviewer.token);
    expect(code(await t.graphql(ACTION('adoptOffer'), { id: live.id }, interviewer.token))).toBe('NOT_ADOPTIBLE');
    expect(code(await t.graphql(ACTION('adoptOffer'), { id: live.id }, patient.token))).toBe('OFFER_NOT_FOUND');
    expect(code(await t.graphql(ACTION('adoptOffer'), { id: live.id }, coordinator.token))).toBe('NOT_INTERVIEWER');
    const adopted = await t.graphql(ACTION('adoptOffer'), { id: live.id }, colleague.token);
    expect(adopted.data.adoptOffer.interviewOffer).toMatchObject({ interviewerId: colleague.id, canceled: false, externalLink: null });
    // The former owner no longer sees (or changes) it.
    expect(code(await t.graphql(ACTION('cancelOffer'), { id: live.id }, interviewer.token))).toBe('OFFER_NOT_FOUND');
  });

  it('adopting a slot that overlaps one of the adopter\'s own is refused', async () => {
    const when = nextSlot();
    const offer = await create(interviewer, when);
    await create(colleague, when);
    await t.graphql(ACTION('cancelOffer'), { id: offer.id }, interviewer.token);
    expect(code(await t.graphql(ACTION('adoptOffer'), { id: offer.id }, colleague.token))).toBe('SLOT_OVERLAPS');
  });

  it('reschedule and update: owner only, into the future, end after start', async () => {
    const offer = await create(interviewer, nextSlot());
    const target = nextSlot(45);
    const newDate = { timeSlot: { start: { value: target.startsAt, inclusive: true }, end: { value: target.endsAt, inclusive: false } } };
    expect(['OFFER_NOT_FOUND', 'NOT_OWNER']).toContain(code(await t.graphql(RESCHEDULE, { id: offer.id, newDate }, colleague.token)));
    const moved = await t.graphql(RESCHEDULE, { id: offer.id, newDate }, interviewer.token);
    expect(moved.errors).toBeUndefined();
    expect(new Date(moved.data.rescheduleOffer.interviewOffer.startsAt).toISOString()).toBe(target.startsAt);
    const backwards = { timeSlot: { start: { value: target.endsAt, inclusive: true }, end: { value: target.startsAt, inclusive: false } } };
    expect(code(await t.graphql(RESCHEDULE, { id: offer.id, newDate: backwards }, interviewer.token))).toBe('END_BEFORE_START');
    const past = slot(-2);
    const intoPast = { timeSlot: { start: { value: past.startsAt, inclusive: true }, end: { value: past.endsAt, inclusive: false } } };
    expect(code(await t.graphql(RESCHEDULE, { id: offer.id, newDate: intoPast }, interviewer.token))).toBe('SLOT_IN_PAST');
    const unknown = await t.graphql(RESCHEDULE, { id: '00000000-0000-4000-8000-000000000000', newDate }, interviewer.token);
    expect(code(unknown)).toBe('OFFER_NOT_FOUND');

    const updated = await t.graphql(UPDATE, { id: offer.id, updates: { externalLink: 'https://meet.example.org/abc' } }, interviewer.token);
    expect(updated.data.updateOffer.interviewOffer.externalLink).toBe('https://meet.example.org/abc');
    expect(code(await t.graphql(UPDATE, { id: offer.id, updates: { hasTakenPlace: true } }, interviewer.token))).toBe('NOT_STARTED');
    expect(code(await t.graphql(UPDATE, { id: offer.id, updates: { externalLink: 'javascript:alert(1)' } }, interviewer.token))).toBe('LINK_INVALID');
    expect(code(await t.graphql(SET_LINK, { id: offer.id, link: 'http://insecure.example.org' }, interviewer.token))).toBe('LINK_INVALID');
    expect(code(await t.graphql(SET_LINK, { id: offer.id, link: 'https://x.example.org' }, patient.token))).toBe('OFFER_NOT_FOUND');
  });

  it('past slots cannot be cancelled or moved', async () => {
    const { rows } = await t.database.db.pool.query<{ id: string }>(
      `insert into app_public.interview_offers (interviewer_id, time_slot) values ($1, tstzrange(now() - interval '3 hours', now() - interval '2 hours', '[)')) returning id`,
      [interviewer.id],
    );
    const id = rows[0]!.id;
    expect(code(await t.graphql(ACTION('cancelOffer'), { id }, interviewer.token))).toBe('SLOT_IN_PAST');
    const offers = (await t.graphql(OFFERS, {}, interviewer.token)).data.allInterviewOffers.nodes as any[];
    expect(offers.find((o) => o.id === id)).toMatchObject({ past: true, isPost: true, upcoming: false });
    const taken = await t.graphql(UPDATE, { id, updates: { hasTakenPlace: true } }, interviewer.token);
    expect(taken.data.updateOffer.interviewOffer.hasTakenPlace).toBe(true);
  });
});

describe('booking', () => {
  it('a patient books a free slot for their case; the workflow hears of it; the interviewer joins the case', async () => {
    const offer = await create(interviewer, nextSlot());
    const booked = await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, patient.token);
    expect(booked.errors).toBeUndefined();
    const booking = booked.data.bookInterview.interviewBooking;
    expect(booking).toMatchObject({ caseId: patient.caseId, offerId: offer.id, canceled: false, canceledAt: null, sequence: 0 });
    expect(booking.interviewee.id).toBe(patient.id);
    expect(booking.offer.id).toBe(offer.id);

    const outbox = await t.database.db.pool.query(
      `select message_name, variables from app_private.workflow_outbox where case_id = $1 and message_name = 'interviewBooked' order by id desc limit 1`,
      [patient.caseId],
    );
    expect(outbox.rows[0].variables).toMatchObject({
      offerId: { value: offer.id, type: 'String' },
      bookingId: { value: booking.id, type: 'String' },
      startsAt: { value: expect.stringMatching(/Z$/), type: 'String' },
    });
    const membership = await t.database.db.pool.query(`select acts_as_interviewer from app_public.case_members where case_id = $1 and user_id = $2`, [
      patient.caseId,
      interviewer.id,
    ]);
    expect(membership.rows[0].acts_as_interviewer).toBe(true);

    // The slot is no longer offered; the patient, the interviewer and the coordinator see the booking; others do not.
    const dates = (await t.graphql(DATES, {}, otherPatient.token)).data.availableInterviewDatesList as { id: string }[];
    expect(dates.map((d) => d.id)).not.toContain(offer.id);
    for (const person of [patient, interviewer, coordinator]) {
      const list = (await t.graphql(BOOKINGS, {}, person.token)).data.allInterviewBookingsList as { id: string }[];
      expect(list.map((b) => b.id)).toContain(booking.id);
    }
    for (const person of [otherPatient, colleague]) {
      const list = (await t.graphql(BOOKINGS, {}, person.token)).data.allInterviewBookingsList as { id: string }[];
      expect(list.map((b) => b.id)).not.toContain(booking.id);
    }
    // The patient sees the booked slot (and its link once set).
    const linked = await t.graphql(SET_LINK, { id: offer.id, link: 'https://meet.example.org/room-1' }, interviewer.token);
    expect(linked.errors, JSON.stringify(linked.errors)).toBeUndefined();
    const info = await t.graphql(
      `query($caseId: UUID!) { queryBookingInfoByCaseIdList(caseId: $caseId) { id offer { externalLink interviewer { username } } } }`,
      { caseId: patient.caseId },
      patient.token,
    );
    expect(info.data.queryBookingInfoByCaseIdList).toEqual([
      { id: booking.id, offer: { externalLink: 'https://meet.example.org/room-1', interviewer: { username: interviewer.username } } },
    ]);

    // One active upcoming booking per case.
    const second = await create(colleague, nextSlot());
    const again = await t.graphql(BOOK, { offerId: second.id, caseId: patient.caseId }, patient.token);
    expect(code(again)).toBe('ALREADY_BOOKED');

    // Cancelling (patient) frees the slot and tells the workflow.
    expect(code(await t.graphql(CANCEL_BOOKING, { id: booking.id }, otherPatient.token))).toBe('BOOKING_NOT_FOUND');
    expect(code(await t.graphql(CANCEL_BOOKING, { id: booking.id }, colleague.token))).toBe('BOOKING_NOT_FOUND');
    const canceled = await t.graphql(CANCEL_BOOKING, { id: booking.id }, patient.token);
    expect(canceled.data.cancelInterviewBooking.interviewBooking).toMatchObject({ canceled: true, canceledAt: expect.any(String) });
    expect(code(await t.graphql(CANCEL_BOOKING, { id: booking.id }, patient.token))).toBe('BOOKING_CANCELED');
    const canceledEvent = await t.database.db.pool.query(
      `select variables from app_private.workflow_outbox where case_id = $1 and message_name = 'interviewBookingCanceled' order by id desc limit 1`,
      [patient.caseId],
    );
    expect(canceledEvent.rows[0].variables.bookingId.value).toBe(booking.id);
    const free = (await t.graphql(DATES, {}, otherPatient.token)).data.availableInterviewDatesList as { id: string }[];
    expect(free.map((d) => d.id)).toContain(offer.id);
    // Now the patient may book another time.
    expect((await t.graphql(BOOK, { offerId: second.id, caseId: patient.caseId }, patient.token)).errors).toBeUndefined();
    const active = await t.graphql(
      `query($caseId: UUID!) { queryBookingInfoByCaseIdList(caseId: $caseId) { offerId } }`,
      { caseId: patient.caseId },
      patient.token,
    );
    expect(active.data.queryBookingInfoByCaseIdList).toEqual([{ offerId: second.id }]);
    await t.graphql(ACTION('cancelOffer'), { id: second.id }, colleague.token);
  });

  it('bad bookings get a clear code and store nothing', async () => {
    const offer = await create(interviewer, nextSlot());
    const before = await count('interview_bookings');
    // A case one is not a member of; a therapist of the case; an unknown slot; a cancelled slot.
    expect(code(await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, otherPatient.token))).toBe('NOT_INVOLVED');
    expect(code(await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, therapist.token))).toBe('NOT_INVOLVED');
    expect(code(await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, interviewer.token))).toBe('NOT_INVOLVED');
    const unknown = await t.graphql(BOOK, { offerId: '00000000-0000-4000-8000-000000000000', caseId: otherPatient.caseId }, otherPatient.token);
    expect(code(unknown)).toBe('OFFER_NOT_FOUND');
    expect((await t.graphql(BOOK, { offerId: 'not-a-uuid', caseId: otherPatient.caseId }, otherPatient.token)).errors).toBeDefined();
    const canceled = await create(interviewer, nextSlot());
    await t.graphql(ACTION('cancelOffer'), { id: canceled.id }, interviewer.token);
    expect(code(await t.graphql(BOOK, { offerId: canceled.id, caseId: otherPatient.caseId }, otherPatient.token))).toBe('SLOT_TAKEN');
    const { rows } = await t.database.db.pool.query<{ id: string }>(
      `insert into app_public.interview_offers (interviewer_id, time_slot) values ($1, tstzrange(now() - interval '30 minutes', now() + interval '30 minutes', '[)')) returning id`,
      [colleague.id],
    );
    expect(code(await t.graphql(BOOK, { offerId: rows[0]!.id, caseId: otherPatient.caseId }, otherPatient.token))).toBe('SLOT_IN_PAST');
    expect(await count('interview_bookings')).toBe(before);
  });

  it('a coordinator books for a chosen case; cancelling the slot cancels the booking', async () => {
    const offer = await create(colleague, nextSlot());
    const booked = await t.graphql(BOOK, { offerId: offer.id, caseId: otherPatient.caseId }, coordinator.token);
    expect(booked.errors).toBeUndefined();
    const bookingId = booked.data.bookInterview.interviewBooking.id;
    expect(booked.data.bookInterview.interviewBooking.interviewee.id).toBe(otherPatient.id);
    await t.graphql(ACTION('cancelOffer'), { id: offer.id }, colleague.token);
    const { rows } = await t.database.db.pool.query(`select canceled, canceled_at from app_public.interview_bookings where id = $1`, [bookingId]);
    expect(rows[0]).toMatchObject({ canceled: true, canceled_at: expect.any(Date) });
  });

  it('rescheduling a booked slot moves the booking and raises its calendar sequence', async () => {
    const offer = await create(interviewer, nextSlot());
    const booked = await t.graphql(BOOK, { offerId: offer.id, caseId: otherPatient.caseId }, otherPatient.token);
    const bookingId = booked.data.bookInterview.interviewBooking.id;
    const target = nextSlot();
    const newDate = { timeSlot: { start: { value: target.startsAt, inclusive: true }, end: { value: target.endsAt, inclusive: false } } };
    expect((await t.graphql(RESCHEDULE, { id: offer.id, newDate }, interviewer.token)).errors).toBeUndefined();
    const { rows } = await t.database.db.pool.query(`select sequence from app_public.interview_bookings where id = $1`, [bookingId]);
    expect(rows[0].sequence).toBe(1);
    const queued = await t.database.db.pool.query(
      `select kind, method, sequence, user_id from app_private.interview_mail_queue where booking_id = $1 order by id`,
      [bookingId],
    );
    expect(queued.rows.map((r) => `${r.kind}:${r.method}:${r.sequence}`)).toEqual([
      'booked:REQUEST:0',
      'booked:REQUEST:0',
      'rescheduled:REQUEST:1',
      'rescheduled:REQUEST:1',
    ]);
    await t.graphql(CANCEL_BOOKING, { id: bookingId }, otherPatient.token);
  });
});

describe('the double-booking race', () => {
  it('20 parallel bookings of one slot: exactly one succeeds, the others hear "no longer available"', async () => {
    const offer = await create(colleague, nextSlot());
    const patients = await Promise.all(Array.from({ length: 20 }, () => t.user({ flags: ['patient'] })));
    const before = await count('interview_bookings');
    const results = await Promise.all(patients.map((p) => t.graphql(BOOK, { offerId: offer.id, caseId: p.caseId }, p.token)));
    const successes = results.filter((r) => !r.errors);
    expect(successes).toHaveLength(1);
    for (const failed of results.filter((r) => r.errors)) {
      expect(code(failed)).toBe('SLOT_TAKEN');
      expect(failed.errors![0]!.message).toMatch(/no longer available/);
    }
    expect(await count('interview_bookings')).toBe(before + 1);
    const { rows } = await t.database.db.pool.query(`select count(*)::int as n from app_public.interview_bookings where offer_id = $1 and not canceled`, [offer.id]);
    expect(rows[0].n).toBe(1);
  });
});

describe('calendar mails', () => {
  it('booking, link change and cancel mail patient and interviewer in their locale with an .ics', async () => {
    await processInterviewMails(mailContext());
    t.smtp.clear();
    const offer = await create(interviewer, nextSlot());
    const booked = await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, patient.token);
    const bookingId = booked.data.bookInterview.interviewBooking.id as string;
    expect(await processInterviewMails(mailContext())).toMatchObject({ sent: 2 });

    const toPatient = await t.smtp.waitFor(patient.email);
    const toInterviewer = await t.smtp.waitFor(interviewer.email);
    expect(toPatient.language).toBe('ar');
    expect(toInterviewer.language).toBe('de');
    expect(toInterviewer.subject).toMatch(/Interview/);
    // nodemailer sends the invitation as a text/calendar alternative (with its method, as
    // calendar clients expect) and as an invite.ics attachment.
    expect(toPatient.attachments.find((a) => a.filename === 'invite.ics')?.mimeType).toMatch(/text\/calendar|application\/ics/);
    expect(toPatient.raw).toMatch(/text\/calendar; charset=utf-8; method=REQUEST/i);
    const ics = rawAttachment(toPatient, 'invite.ics');
    expect(ics).toMatch(/METHOD:REQUEST\r\n/);
    expect(ics).toContain(`UID:${bookingId}@sanad`);
    expect(ics).toMatch(/SEQUENCE:0\r\n/);
    expect(ics).toMatch(/DTSTART:\d{8}T\d{6}Z\r\n/);
    expect(rawAttachment(toInterviewer, 'invite.ics')).toContain(`UID:${bookingId}@sanad`);
    // Times in the mail in the person's zone, named.
    expect(toPatient.text).toContain('Asia/Baghdad');
    expect(toInterviewer.text).toContain('Europe/Berlin');
    // No clinical content: nothing about the case or the patient's answers.
    expect(toInterviewer.text).not.toMatch(/diagnos|PHQ|BDI/i);

    t.smtp.clear();
    await t.graphql(SET_LINK, { id: offer.id, link: 'https://meet.example.org/room-9' }, interviewer.token);
    await processInterviewMails(mailContext());
    const linked = await t.smtp.waitFor(patient.email);
    expect(linked.text).toContain('https://meet.example.org/room-9');
    const linkedIcs = rawAttachment(linked, 'invite.ics');
    expect(linkedIcs).toMatch(/SEQUENCE:1\r\n/);
    expect(linkedIcs).toContain(`UID:${bookingId}@sanad`);

    t.smtp.clear();
    await t.graphql(CANCEL_BOOKING, { id: bookingId }, patient.token);
    await processInterviewMails(mailContext());
    const canceled = await t.smtp.waitFor(interviewer.email);
    const canceledIcs = rawAttachment(canceled, 'invite.ics');
    expect(canceledIcs).toMatch(/METHOD:CANCEL/);
    expect(canceledIcs).toMatch(/STATUS:CANCELLED/);
    expect(canceledIcs).toMatch(/SEQUENCE:2\r\n/);
    expect(canceledIcs).toContain(`UID:${bookingId}@sanad`);
  });

  it('a rolled-back booking queues no mail', async () => {
    const offer = await create(interviewer, nextSlot());
    const before = await t.database.db.pool.query(`select count(*)::int as n from app_private.interview_mail_queue`);
    // Booking for a case without access fails inside the function: nothing queued.
    await t.graphql(BOOK, { offerId: offer.id, caseId: patient.caseId }, otherPatient.token);
    const after = await t.database.db.pool.query(`select count(*)::int as n from app_private.interview_mail_queue`);
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });
});

function mailContext() {
  return { pool: t.database.db.pool, config: t.config, mailer: t.sanad.mailer, log: createLogger(t.config) };
}
