/**
 * Issue 25: the stage gates hold at the server. Booking an interview (app_public.book_interview)
 * is refused before the screening is complete and after the path ended (excluded by the team,
 * dropped out, finished), for the patient and a coordinator alike, with a code that names the
 * real reason; a refusal takes no slot, invites no interviewer and tells the workflow nothing.
 * Worksheet writes are refused once the path ended. Every role, own case and other case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver, type Person } from '../helpers/trial';

const BOOK = `mutation BookInterview($offerId: UUID!, $caseId: UUID!) {
  bookInterview(input: { offerId: $offerId, caseId: $caseId }) { interviewBooking { id } } }`;

let t: TestApp;
const trial = trialDriver(() => t);
const pool = () => t.database.db.pool;
let coordinator: Person, interviewer: Person, therapist: Person, supervisor: Person, supporter: Person, counselor: Person, otherPatient: Person;

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  therapist = await t.user({ flags: ['therapist'] });
  supervisor = await t.user({ flags: ['supervisor'] });
  supporter = await t.user({ flags: ['supporter'] });
  counselor = await t.user({ flags: ['counselor'] });
  otherPatient = await t.user({ flags: ['patient'] });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function freeSlot(): Promise<string> {
  const days = 1 + Math.floor(Math.random() * 300);
  const { rows } = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(date_trunc('hour', now()) + make_interval(days => $2, hours => $3), date_trunc('hour', now()) + make_interval(days => $2, hours => $3 + 1), '[)'))
     returning id`,
    [interviewer.id, days, Math.floor(Math.random() * 20)],
  );
  return rows[0]!.id;
}

/** What a booking writes: bookings, the interviewer's membership, mails, the workflow's message. */
async function footprint(caseId: string) {
  const { rows } = await pool().query(
    `select (select count(*)::int from app_public.interview_bookings where case_id = $1) as bookings,
            (select count(*)::int from app_public.case_members where case_id = $1 and acts_as_interviewer) as interviewers,
            (select count(*)::int from app_private.interview_mail_queue q join app_public.interview_bookings b on b.id = q.booking_id where b.case_id = $1) as mails,
            (select count(*)::int from app_public.workflow_tasks where case_id = $1 and end_time is not null and task_definition_key = 'bookTask') as booked_tasks`,
    [caseId],
  );
  return rows[0];
}

async function book(person: Person, caseId: string, offerId: string): Promise<string | null> {
  const answer = await t.graphql(BOOK, { offerId, caseId }, person.token);
  return answer.errors ? String((answer.errors[0] as { extensions?: { code?: string } }).extensions?.code ?? answer.errors[0]!.message) : null;
}

async function caseWithMembers() {
  const started = await trial.newTrialCase([
    { person: therapist, roles: ['therapist'] },
    { person: supervisor, roles: ['supervisor'] },
    { person: supporter, roles: ['supporter'] },
  ]);
  await addMember(pool(), started.caseId, counselor.username, ['counselor']);
  return started;
}

describe('booking follows the stage', () => {
  it('is refused at screening (not complete yet) for the patient and a coordinator; nothing is written', async () => {
    const { patient, caseId } = await caseWithMembers();
    expect(await trial.stage(caseId)).toBe('screening');
    const before = await footprint(caseId);
    const offer = await freeSlot();
    expect(await book(patient, caseId, offer)).toBe('SCREENING_NOT_COMPLETE');
    expect(await book(coordinator, caseId, offer)).toBe('SCREENING_NOT_COMPLETE');
    expect(await footprint(caseId)).toEqual(before);
  });

  it('refuses every role but the patient and coordinators on their own terms, on own and other cases', async () => {
    const { caseId } = await caseWithMembers();
    await trial.advance(caseId, 'booking');
    const offer = await freeSlot();
    const before = await footprint(caseId);
    for (const person of [therapist, supervisor, supporter, counselor, interviewer, otherPatient]) {
      expect(await book(person, caseId, offer), person.username).toBe('NOT_INVOLVED');
    }
    expect(await footprint(caseId)).toEqual(before);
  });

  it('is open after the screening: the patient books', async () => {
    const { patient, caseId } = await caseWithMembers();
    await trial.advance(caseId, 'booking');
    expect(await book(patient, caseId, await freeSlot())).toBeNull();
    expect((await footprint(caseId)).bookings).toBe(1);
  });

  it('is refused after the team excluded the patient (consent withdrawn), with the reason "team", for patient and coordinator; no slot taken, nobody invited', async () => {
    const { patient, caseId } = await caseWithMembers();
    await trial.advance(caseId, 'booking');
    const excluded = await t.api('POST', `/api/trial/cases/${caseId}/exclusion`, {
      token: coordinator.token,
      body: { flag: 'excluded', value: true, reason: 'Consent withdrawn by the patient.' },
    });
    expect(excluded.status).toBe(204);
    const offer = await freeSlot();
    const before = await footprint(caseId);
    expect(await book(patient, caseId, offer)).toBe('PATH_ENDED_TEAM');
    expect(await book(coordinator, caseId, offer)).toBe('PATH_ENDED_TEAM');
    expect(await footprint(caseId)).toEqual(before);
    const { rows } = await pool().query('select count(*)::int as n from app_public.interview_bookings where offer_id = $1', [offer]);
    expect(rows[0].n).toBe(0);
  });

  it('names a screening exclusion as such', async () => {
    const { patient, caseId } = await caseWithMembers();
    await pool().query(`select app_hidden.raise_patient_exclusion($1, 'excluded_for_minor_age', 'Screening rule: test.', null)`, [caseId]);
    expect(await book(patient, caseId, await freeSlot())).toBe('PATH_ENDED_SCREENING');
  });

  it('is refused in treatment and after a finished path', async () => {
    const { patient, caseId } = await caseWithMembers();
    await pool().query(`update app_public.cases set stage = 'treatment' where id = $1`, [caseId]);
    expect(await book(patient, caseId, await freeSlot())).toBe('BOOKING_CLOSED');
    await pool().query(`update app_public.cases set stage = 'finished' where id = $1`, [caseId]);
    expect(await book(patient, caseId, await freeSlot())).toBe('PATH_FINISHED');
  });
});

describe('worksheets follow the stage', () => {
  it('are written in treatment and refused after a dropout, with nothing changed', async () => {
    const { patient, caseId } = await caseWithMembers();
    await pool().query(`update app_public.cases set stage = 'treatment' where id = $1`, [caseId]);
    const id = crypto.randomUUID();
    const saved = await t.api('POST', '/api/cbt_thoughts', { token: patient.token, body: { id, case_id: caseId, situation: 'Friday' } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    // A dropout needs a randomized patient (issue 27): the assignment the trial's step would make.
    await pool().query(`alter table app_public.treatment_assignments disable trigger _050_in_step`);
    await pool().query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'cbt', '*', 'blocks')`, [caseId]);
    const dropout = await t.api('POST', `/api/trial/cases/${caseId}/exclusion`, {
      token: coordinator.token,
      body: { flag: 'is_dropout', value: true, reason: 'The patient ended the treatment.' },
    });
    expect(dropout.status).toBe(204);
    const refused = await t.api('POST', '/api/cbt_thoughts', {
      token: patient.token,
      body: { id, case_id: caseId, situation: 'Saturday' },
      headers: { Prefer: 'resolution=merge-duplicates,return=representation' },
    });
    expect(refused.status).toBe(400);
    // The refusal names the real reason by its code (issue 27's one mapping keeps the rule's code).
    expect(JSON.stringify(refused.body)).toMatch(/path_ended_dropout/i);
    const fresh = await t.api('POST', '/api/cbt_thoughts', { token: patient.token, body: { id: crypto.randomUUID(), case_id: caseId, situation: 'x' } });
    expect(fresh.status).toBe(400);
    const { rows } = await pool().query('select situation from app_public.cbt_thoughts where case_id = $1', [caseId]);
    expect(rows).toEqual([{ situation: 'Friday' }]);
  });
});
