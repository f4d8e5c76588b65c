/**
 * The care team's path (issue 26) at the server: one scheduling truth (moving a booked
 * interview moves the interviewer's task due date and the process variable startsAt; a refused
 * move changes nothing) and the randomization check a coordinator reads before the draw (why
 * the draw would refuse; registration and signed report disagreeing on gender), which nobody
 * else can read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast } from '../helpers/people';

let t: TestApp;
let cast: Cast;
type Person = Awaited<ReturnType<TestApp['user']>>;
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  cast = await castOfRoles(t, { patient: { gender: 'FEMALE' } });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

async function notify(caseId: string, message: string, variables: Record<string, unknown>) {
  await pool().query('select app_hidden.notify_workflow($1, $2, $3)', [caseId, message, JSON.stringify(variables)]);
  await t.sanad.workflow.tick();
}

/** A trial case of a new patient waiting for its interview, booked `hours` from now with `interviewer`. */
async function caseBookedWith(interviewer: Person, hours: number) {
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE' });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  const offer = await pool().query<{ id: string; starts_at: Date }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(date_trunc('minute', now()) + make_interval(hours => $2), date_trunc('minute', now()) + make_interval(hours => $2 + 1))) returning id, lower(time_slot) as starts_at`,
    [interviewer.id, hours],
  );
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, interviewer.id],
  );
  await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
  await t.sanad.workflow.tick();
  await notify(caseId, 'screeningCompleted', { excluded: { value: false, type: 'Boolean' }, exclusionReasons: { value: '', type: 'String' } });
  await notify(caseId, 'interviewBooked', {
    offerId: { value: offer.rows[0]!.id, type: 'String' },
    bookingId: { value: booking.rows[0]!.id, type: 'String' },
    startsAt: { value: offer.rows[0]!.starts_at.toISOString(), type: 'String' },
  });
  return { patient, caseId, offerId: offer.rows[0]!.id, bookingId: booking.rows[0]!.id, startsAt: offer.rows[0]!.starts_at };
}

async function derivedDates(caseId: string): Promise<{ due: string | null; startsAt: string | null }> {
  const task = await pool().query<{ due: Date | null }>(
    `select due from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'interviewTask' and end_time is null`,
    [caseId],
  );
  const process = await pool().query<{ starts_at: string | null }>(
    `select variables -> 'startsAt' ->> 'value' as starts_at from app_public.workflow_instances where case_id = $1 and business_key = 'trial' and end_time is null`,
    [caseId],
  );
  const startsAt = process.rows[0]?.starts_at;
  return { due: task.rows[0]?.due?.toISOString() ?? null, startsAt: startsAt ? new Date(startsAt).toISOString() : null };
}

const RESCHEDULE = `mutation($id: UUID!, $newDate: InterviewOfferDateInput!) { rescheduleOffer(input: { id: $id, newDate: $newDate }) { interviewOffer { id } } }`;
const slotAt = (start: Date) => ({
  timeSlot: { start: { value: start.toISOString(), inclusive: true }, end: { value: new Date(start.getTime() + 3_600_000).toISOString(), inclusive: false } },
});

describe('one scheduling truth', () => {
  it('moving a booked interview moves the task due date and the process startsAt; a refused move changes nothing', async () => {
    const interviewer = cast.people.interviewer;
    const booked = await caseBookedWith(interviewer, 48);
    const before = await derivedDates(booked.caseId);
    expect(before).toEqual({ due: booked.startsAt.toISOString(), startsAt: booked.startsAt.toISOString() });

    // Refused: another interviewer, a therapist, the patient: nothing moves.
    const target = new Date(booked.startsAt.getTime() + 26 * 3_600_000);
    for (const person of [cast.people.outsider, cast.people.therapist, booked.patient]) {
      const refused = await t.graphql(RESCHEDULE, { id: booked.offerId, newDate: slotAt(target) }, person.token);
      expect(refused.errors?.length ?? 0).toBeGreaterThan(0);
      expect(await derivedDates(booked.caseId)).toEqual(before);
    }

    const moved = await t.graphql(RESCHEDULE, { id: booked.offerId, newDate: slotAt(target) }, interviewer.token);
    expect(moved.errors).toBeUndefined();
    expect(await derivedDates(booked.caseId)).toEqual({ due: target.toISOString(), startsAt: target.toISOString() });
  });

  it('a coordinator moving it moves the same dates', async () => {
    const booked = await caseBookedWith(cast.people.interviewer, 72);
    const target = new Date(booked.startsAt.getTime() + 7 * 3_600_000);
    const moved = await t.graphql(RESCHEDULE, { id: booked.offerId, newDate: slotAt(target) }, cast.people.coordinator.token);
    expect(moved.errors).toBeUndefined();
    expect(await derivedDates(booked.caseId)).toEqual({ due: target.toISOString(), startsAt: target.toISOString() });
  });
});

describe('randomization check', () => {
  const CHECK = `query($id: UUID!) { caseById(id: $id) { id randomizationCheck } }`;

  it('only a coordinator reads it; it says why the draw would refuse and flags a gender disagreement', async () => {
    const booked = await caseBookedWith(cast.people.interviewer, 96);
    for (const [who, person] of Object.entries(cast.people)) {
      const read = await t.graphql(CHECK, { id: booked.caseId }, person.token);
      expect(read.errors, who).toBeUndefined();
      if (who !== 'coordinator') expect(read.data.caseById?.randomizationCheck ?? null, who).toBeNull();
    }
    const coordinatorRead = await t.graphql(CHECK, { id: booked.caseId }, cast.people.coordinator.token);
    expect(coordinatorRead.data.caseById.randomizationCheck).toEqual({
      refusal: 'allocation_missing',
      genderSource: 'registration',
      genders: { registration: 'FEMALE', screening: null, report: null },
      registeredGender: 'FEMALE',
      reportedGender: null,
      genderMismatch: false,
    });

    // The signed report records another gender: flagged before the draw.
    await pool().query(
      `insert into app_public.interview_reports (booking_id, case_id, sex, state, finalized_at, trial_outcome) values ($1, $2, 'MALE', 'final', now(), 'depression')`,
      [booked.bookingId, booked.caseId],
    );
    const flagged = await t.graphql(CHECK, { id: booked.caseId }, cast.people.coordinator.token);
    expect(flagged.data.caseById.randomizationCheck).toMatchObject({ registeredGender: 'FEMALE', reportedGender: 'MALE', genderMismatch: true });

    // The stratum's gender comes from the record the trial names: the registration unless the
    // allocation says otherwise, then the signed report.
    const levels = async () => (await pool().query<{ l: { gender: string } }>('select app_hidden.case_factor_levels($1) as l', [booked.caseId])).rows[0]!.l.gender;
    expect(await levels()).toBe('FEMALE');
    const coordinator = cast.people.coordinator.token;
    const arms = [{ code: 'a', ratio: 1 }, { code: 'b', ratio: 1 }];
    const wrong = await t.api('POST', '/api/trial/allocation', { token: coordinator, body: { method: 'blocks', arms, factors: ['gender'], genderSource: 'typed' } });
    expect(wrong.status).toBe(400);
    const named = await t.api('POST', '/api/trial/allocation', { token: coordinator, body: { method: 'blocks', arms, factors: ['gender'], genderSource: 'report' } });
    expect(named.status).toBe(201);
    expect(await levels()).toBe('MALE');
    const check = await t.graphql(CHECK, { id: booked.caseId }, coordinator);
    expect(check.data.caseById.randomizationCheck).toMatchObject({ genderSource: 'report', genders: { registration: 'FEMALE', report: 'MALE' }, genderMismatch: true });
  });
});
