/**
 * The interview report: access per role (RLS), the lock, amendment with versions, bad input,
 * and the trial paths a finalized report drives (workflows/trial.bpmn "Record the interview
 * outcome", completed server-side in the finalize transaction).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { sendReportMails } from '../../src/server/reports/mail-worker';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
const { notify, stage } = trial;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, interviewer: Person, otherInterviewer: Person, therapist: Person, supporter: Person, outsideSupporter: Person, supervisor: Person, counselor: Person;

const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  otherInterviewer = await t.user({ flags: ['interviewer'] });
  therapist = await t.user({ flags: ['therapist'] });
  supporter = await t.user({ flags: ['supporter'] });
  outsideSupporter = await t.user({ flags: ['supporter'] });
  supervisor = await t.user({ flags: ['supervisor'] });
  counselor = await t.user({ flags: ['supporter'] });
});
afterAll(async () => {
  await t?.close();
});

/** A trial case at "Record the interview outcome" with a booking that began 10 minutes ago. */
async function caseAtInterview(options: { startsInMinutes?: number; trial?: boolean } = {}) {
  const patient = await t.user({ flags: ['patient'] });
  const caseId = patient.caseId!;
  await addMember(pool(), caseId, interviewer.username, ['interviewer']);
  await addMember(pool(), caseId, therapist.username, ['therapist']);
  await addMember(pool(), caseId, supporter.username, ['supporter']);
  await addMember(pool(), caseId, supervisor.username, ['supervisor']);
  await addMember(pool(), caseId, counselor.username, ['counselor']);
  const { offer, start } = await newOffer(options.startsInMinutes === undefined ? 'past' : 'future');
  const booking = await pool().query<{ id: string }>(
    `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
    [offer.rows[0]!.id, caseId, patient.id, interviewer.id],
  );
  if (options.trial !== false) {
    await trial.startTrial(caseId);
    await trial.advance(caseId, 'interview', { offerId: offer.rows[0]!.id, bookingId: booking.rows[0]!.id, startsAt: new Date(Date.now() + start * 60_000) });
  }
  return { patient, caseId, bookingId: booking.rows[0]!.id };
}

let slots = 0;
/** A slot of the interviewer that began 10 minutes ago (or starts in an hour), apart from all others. */
async function newOffer(when: 'past' | 'future') {
  slots += 1;
  const start = when === 'past' ? -10 - 70 * slots : 60 + 70 * slots;
  const offer = await pool().query<{ id: string }>(
    `insert into app_public.interview_offers (interviewer_id, time_slot)
     values ($1, tstzrange(now() + make_interval(mins => $2), now() + make_interval(mins => $2 + 60))) returning id`,
    [interviewer.id, start],
  );
  return { offer, start };
}

async function save(token: string, body: Record<string, unknown>) {
  return t.api('POST', '/api/interview_reports', { token, body, headers: UPSERT });
}

async function openTaskKeys(caseId: string): Promise<string[]> {
  const { rows } = await pool().query('select task_definition_key from app_public.workflow_tasks where case_id = $1 and end_time is null', [caseId]);
  return rows.map((r) => r.task_definition_key as string).sort();
}

const yes = (prefix: string, numbers: number[]) => Object.fromEntries(numbers.map((n) => [`${prefix}${n}`, true]));
const PTSD = { ...yes('ptsd_g', [14, 19, 21, 22, 28, 29, 34, 36, 39, 40]), trauma_criterion_a: true, worst_event_on: '2020-01-01' };
/** Every suicidality item asked (issue 27: an acceptance needs the assessment). */
const ASSESSED = { suicidality_c1: false, suicidality_c2: false, suicidality_c3: false, suicidality_c4: false, suicidality_c5: false, suicidality_c6: false };
const ACCEPTED = { age: 30, sex: 'FEMALE', ...ASSESSED, ...PTSD, primary_problem: 'ptsd', status: 'accepted', accepted_reason: 'ptsd' };

/** A statement as the owner in a transaction of its own (rolled back). */
async function asOwner(text: string, values: unknown[]) {
  const client = await pool().connect();
  try {
    await client.query('begin');
    return await client.query(text, values);
  } finally {
    await client.query('rollback');
    client.release();
  }
}

async function row(id: string) {
  return (await pool().query('select * from app_public.interview_reports where id = $1', [id])).rows[0];
}

describe('saving drafts', () => {
  it('stores typed columns and computes the derived ones on the server', async () => {
    const { bookingId, caseId } = await caseAtInterview({ trial: false });
    const saved = await save(interviewer.token, { booking_id: bookingId, suicidality_c3: true, age: 30, ...PTSD });
    expect(saved.status).toBe(201);
    const report = saved.body[0];
    expect(report).toMatchObject({ case_id: caseId, interviewer_id: interviewer.id, state: 'draft', suicidality_score: 6, suicidality_risk: 'moderate', ptsd_total: 10, ptsd_b_fulfilled: true });
    // Saving again merges into the same report (the form autosaves field by field).
    const again = await save(interviewer.token, { booking_id: bookingId, suicidality_c4: true });
    expect(again.body[0]).toMatchObject({ id: report.id, suicidality_score: 16, suicidality_risk: 'high', age: 30 });
  });

  it('refuses bad input with a clear 4xx and stores nothing', async () => {
    const { bookingId } = await caseAtInterview({ trial: false });
    const unknown = await save(interviewer.token, { booking_id: bookingId, status: 'maybe' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('status must be one of accepted, rejected');
    const derived = await save(interviewer.token, { booking_id: bookingId, suicidality_risk: 'low' });
    expect(derived.status).toBe(400);
    const other = await save(otherInterviewer.token, { booking_id: bookingId, age: 30 });
    expect(other.status).toBe(403);
    expect(other.body.message).toContain('not one of your interviews');
    expect((await pool().query('select 1 from app_public.interview_reports where booking_id = $1', [bookingId])).rowCount).toBe(0);

    // Issue 26: a report is prepared before the interview; only signing waits for the start.
    const { bookingId: future } = await caseAtInterview({ trial: false, startsInMinutes: 60 });
    const early = await save(interviewer.token, { booking_id: future, age: 30 });
    expect(early.status).toBe(201);
    const prepared = await pool().query<{ id: string; age: number }>('select id, age from app_public.interview_reports where booking_id = $1', [future]);
    expect(prepared.rows[0]?.age).toBe(30);
    const signEarly = await t.api('POST', `/api/interview_reports/${prepared.rows[0]!.id}/finalize`, { token: interviewer.token, body: {} });
    expect(signEarly.status).toBe(400);
    expect(signEarly.body.error).toBe('interview_not_started');
    expect((await pool().query(`select state from app_public.interview_reports where booking_id = $1`, [future])).rows[0].state).toBe('draft');

    expect((await save(interviewer.token, { booking_id: bookingId, age: 30 })).status).toBe(201);
    const second = await t.api('POST', '/api/interview_reports', { token: coordinator.token, body: { booking_id: bookingId, age: 31 } });
    expect(second.status).toBe(409);
    expect((await pool().query('select age from app_public.interview_reports where booking_id = $1', [bookingId])).rows).toEqual([{ age: 30 }]);
  });
});

describe('access by role', () => {
  let reportId: string;
  let bookingId: string;
  let patient: Person;
  beforeAll(async () => {
    const c = await caseAtInterview();
    bookingId = c.bookingId;
    patient = c.patient;
    reportId = (await save(interviewer.token, { booking_id: bookingId, age: 40 })).body[0].id;
  });

  const readers = () =>
    [
      ['interviewer of the booking', interviewer, true],
      ['coordinator', coordinator, true],
      ['therapist of the case', therapist, true],
      ['supporter of the case', supporter, true],
      ['supervisor of the case', supervisor, true],
      ['counselor of the case', counselor, true],
      ['another interviewer', otherInterviewer, false],
      ['a supporter outside the case', outsideSupporter, false],
      ['the patient', patient, false],
    ] as const;

  it('reads: the interviewer, coordinators and the case staff; nobody else', async () => {
    for (const [who, person, allowed] of readers()) {
      const read = await t.api('GET', `/api/interview_reports?id=eq.${reportId}`, { token: person.token });
      expect(read.status, who).toBe(200);
      expect(read.body.length, who).toBe(allowed ? 1 : 0);
    }
  });

  it('writes: the interviewer of the booking and coordinators; a refusal changes nothing', async () => {
    const writers = new Set([interviewer, coordinator]);
    for (const [who, person] of readers()) {
      const before = (await row(reportId)).age;
      const next = before + 1;
      const write = await save(person.token, { booking_id: bookingId, age: next });
      if (writers.has(person)) {
        expect(write.status, who).toBe(201);
        expect((await row(reportId)).age, who).toBe(next);
      } else {
        expect(write.status, who).toBeGreaterThanOrEqual(400);
        expect(write.status, who).toBeLessThan(500);
        expect((await row(reportId)).age, who).toBe(before);
      }
    }
  });

  it('finalizes: only the interviewer of the booking or a coordinator', async () => {
    await save(interviewer.token, { booking_id: bookingId, ...ACCEPTED });
    for (const [who, person] of readers()) {
      if (person === interviewer || person === coordinator) continue;
      const attempt = await t.api('POST', `/api/interview_reports/${reportId}/finalize`, { token: person.token, body: {} });
      expect([403, 404], who).toContain(attempt.status);
      expect((await row(reportId)).state, who).toBe('draft');
    }
    const done = await t.api('POST', `/api/interview_reports/${reportId}/finalize`, {
      token: interviewer.token,
      body: { emptySectionsReason: 'Trauma questions postponed to the next session' },
    });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ outcome: 'ptsd', workflow: 'completed' });
    const signed = await row(reportId);
    expect(signed.state).toBe('final');
    expect(signed.finalized_by).toBe(interviewer.id);
    expect(signed.finalized_at).toBeInstanceOf(Date);
    // Sections were left empty: the reason given at signing is kept with the report.
    expect(signed.empty_sections_reason).toBe('Trauma questions postponed to the next session');
    // Signing marks the interview held: the offer says so and its invoice item exists (issue 26).
    const held = await pool().query(
      `select o.has_taken_place, (select count(*)::int from app_public.invoice_items i where i.source_id = b.id and i.has_taken_place) as items
         from app_public.interview_bookings b join app_public.interview_offers o on o.id = b.offer_id where b.id = $1`,
      [bookingId],
    );
    expect(held.rows[0]).toEqual({ has_taken_place: true, items: 1 });
  });

  it('the lock holds for every role at the database, the owner included without the amendment routine', async () => {
    for (const [who, person] of [...readers(), ['coordinator', coordinator, true] as const]) {
      await expect(
        (async () => {
          const client = await pool().connect();
          try {
            await client.query('begin');
            await client.query(`set local role sanad_user`);
            await client.query(`select set_config('jwt.claims.user_id', $1, true)`, [person.id]);
            const result = await client.query('update app_public.interview_reports set age = 77 where id = $1', [reportId]);
            return result.rowCount;
          } finally {
            await client.query('rollback');
            client.release();
          }
        })(),
        who,
      ).resolves.toBe(0);
    }
    await expect(asOwner('update app_public.interview_reports set age = 77 where id = $1', [reportId])).rejects.toThrow(/finalized and locked/);
    await expect(asOwner('delete from app_public.interview_reports where id = $1', [reportId])).rejects.toThrow(/finalized and locked/);
    const saveFinal = await save(interviewer.token, { booking_id: bookingId, age: 77 });
    expect(saveFinal.status).toBeGreaterThanOrEqual(400);
    expect((await row(reportId)).age).not.toBe(77);
    const again = await t.api('POST', `/api/interview_reports/${reportId}/finalize`, { token: interviewer.token, body: {} });
    expect(again.status).toBe(409);
  });

  it('amends: coordinators only, with a reason; every earlier version stays readable', async () => {
    const byInterviewer = await t.api('POST', `/api/interview_reports/${reportId}/amend`, { token: interviewer.token, body: { reason: 'typo', values: { age: 41 } } });
    expect(byInterviewer.status).toBe(403);
    const noReason = await t.api('POST', `/api/interview_reports/${reportId}/amend`, { token: coordinator.token, body: { values: { age: 41 } } });
    expect(noReason.status).toBe(400);
    const badValue = await t.api('POST', `/api/interview_reports/${reportId}/amend`, { token: coordinator.token, body: { reason: 'x', values: { status: 'maybe' } } });
    expect(badValue.status).toBe(400);
    const before = await row(reportId);
    const amended = await t.api('POST', `/api/interview_reports/${reportId}/amend`, { token: coordinator.token, body: { reason: 'The age was misheard', values: { age: 41 } } });
    expect(amended.status).toBe(200);
    expect(amended.body.version).toBe(2);
    const after = await row(reportId);
    expect(after).toMatchObject({ age: 41, amended_by: coordinator.id, amendment_reason: 'The age was misheard', state: 'final', version: 2 });
    const versions = await t.api('GET', `/api/interview_report_versions?report_id=eq.${reportId}`, { token: coordinator.token });
    expect(versions.body).toHaveLength(1);
    expect(versions.body[0]).toMatchObject({ version: 1, age: before.age, state: 'final' });
    const forPatient = await t.api('GET', `/api/interview_report_versions?report_id=eq.${reportId}`, { token: patient.token });
    expect(forPatient.body).toHaveLength(0);
    const forTherapist = await t.api('GET', `/api/interview_report_versions?report_id=eq.${reportId}`, { token: therapist.token });
    expect(forTherapist.body).toHaveLength(1);
  });
});

describe('rules on finalize', () => {
  it('refuses an acceptance a hard rule forbids, naming the rule; a coordinator may override with a reason', async () => {
    const { bookingId } = await caseAtInterview();
    const dast = { dast1: true, dast2: true, dast3: true, dast4: true, dast5: false, dast6: false, dast7: false, dast8: false, dast9: false, dast10: false };
    const id = (await save(interviewer.token, { booking_id: bookingId, ...ACCEPTED, ...dast, age: 17 })).body[0].id;
    const refused = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} });
    expect(refused.status).toBe(422);
    expect(refused.body.problems.map((p: { rule: string }) => p.rule).sort()).toEqual(['drugs', 'minor']);
    expect(refused.body.message).toContain('DAST-10');
    const notCoordinator = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: { overrideReason: 'I think so' } });
    expect(notCoordinator.status).toBe(422);
    expect((await row(id)).state).toBe('draft');
    const overridden = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: coordinator.token, body: { overrideReason: 'Birthday next week; ethics board agreed' } });
    expect(overridden.status).toBe(200);
    expect(overridden.body.overridden.sort()).toEqual(['drugs', 'minor']);
    expect(await row(id)).toMatchObject({ state: 'final', override_by: coordinator.id, override_reason: 'Birthday next week; ethics board agreed' });
  });

  it('refuses an incomplete result, for coordinators too', async () => {
    const { bookingId } = await caseAtInterview({ trial: false });
    const id = (await save(interviewer.token, { booking_id: bookingId, primary_problem: 'other', status: 'rejected' })).body[0].id;
    const refused = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: coordinator.token, body: { overrideReason: 'because' } });
    expect(refused.status).toBe(422);
    expect(refused.body.problems[0].rule).toBe('incomplete_rejected_reasons');
  });
});

describe('the outcome drives the trial', () => {
  async function finalizeWith(values: Record<string, unknown>) {
    const c = await caseAtInterview();
    expect(await openTaskKeys(c.caseId)).toContain('interviewTask');
    const id = (await save(interviewer.token, { booking_id: c.bookingId, ...values })).body[0].id;
    const done = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.workflow).toBe('completed');
    return { ...c, id };
  }

  it('accepted (PTSD) → randomization, and the patient gets a kind mail in their locale', async () => {
    const c = await finalizeWith(ACCEPTED);
    expect(await openTaskKeys(c.caseId)).toContain('randomizeTask');
    const vars = (await pool().query(`select variables from app_public.workflow_instances where case_id = $1`, [c.caseId])).rows[0].variables;
    expect(vars.outcome.value).toBe('ptsd');
    expect(vars.interviewReportId.value).toBe(c.id);
    await sendReportMails({ pool: pool(), config: t.config, mailer: t.sanad.mailer, log: t.sanad.app.log as never });
    const mail = t.smtp.mails.find((m) => m.to.includes(c.patient.email.toLowerCase()) && /interview|مقابلة|Gespräch/i.test(m.subject));
    expect(mail).toBeDefined();
  });

  it('accepted (depression) → randomization with outcome depression', async () => {
    const c = await finalizeWith({ age: 30, ...ASSESSED, ...yes('mde_a', [1, 2, 3, 4, 5, 10, 11]), primary_problem: 'mde_current', status: 'accepted', accepted_reason: 'depression_mde' });
    expect(await openTaskKeys(c.caseId)).toContain('randomizeTask');
  });

  it('counselling referral → stage counseling', async () => {
    const c = await finalizeWith({ age: 30, primary_problem: 'other', status: 'rejected', counseling_accepted: true, counseling_reasons: 'wants support' });
    expect(await stage(c.caseId)).toBe('counseling');
  });

  it('rejected → excluded during the interview, with the reasons; one exclusion record by the interviewer', async () => {
    const c = await caseAtInterview();
    const id = (await save(interviewer.token, { booking_id: c.bookingId, age: 30, psychosis_b3: true, primary_problem: 'other', status: 'rejected', rejected_reasons: ['psychosis'] })).body[0].id;
    // Refused finalizations exclude nobody and record nothing.
    for (const person of [otherInterviewer, supporter, c.patient]) {
      const refused = await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: person.token, body: {} });
      expect(refused.status, person.username).toBeGreaterThanOrEqual(400);
      expect(refused.status, person.username).toBeLessThan(500);
    }
    expect((await pool().query('select excluded from app_public.users where id = $1', [c.patient.id])).rows[0].excluded).toBe(false);
    expect((await pool().query('select 1 from app_public.exclusion_changes where case_id = $1', [c.caseId])).rowCount).toBe(0);

    expect((await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
    expect(await stage(c.caseId)).toBe('rejected');
    const patient = (await pool().query('select excluded, excluded_during_interview from app_public.users where id = $1', [c.patient.id])).rows[0];
    expect(patient).toEqual({ excluded: true, excluded_during_interview: true });
    expect((await pool().query('select reason_for_exclusion from app_public.cases where id = $1', [c.caseId])).rows[0].reason_for_exclusion).toBe('excluded during the interview: psychosis');
    const changes = await pool().query('select flag, value, reason, changed_by from app_public.exclusion_changes where case_id = $1', [c.caseId]);
    expect(changes.rows).toEqual([{ flag: 'excluded_during_interview', value: true, reason: 'excluded during the interview: psychosis', changed_by: interviewer.id }]);
  });

  it('register again later → finished, and an invitation mail due on the date the reason expires', async () => {
    const c = await finalizeWith({ age: 30, primary_problem: 'ptsd', status: 'rejected', register_again: true, register_again_reasons: ['trauma_recent'], register_again_on: '2031-05-02' });
    expect(await stage(c.caseId)).toBe('finished');
    const { rows } = await pool().query(`select kind, run_after from app_private.report_mails where case_id = $1 order by kind`, [c.caseId]);
    expect(rows.map((r) => r.kind)).toEqual(['interview_outcome', 'reregistration_invitation']);
    expect(rows[1].run_after.toISOString()).toBe('2031-05-02T08:00:00.000Z');
  });

  it('a missed interview goes back to booking; at the configured limit the patient is excluded for missing interview', async () => {
    const c = await caseAtInterview();
    const first = await t.api('POST', `/api/interview_bookings/${c.bookingId}/missed`, { token: interviewer.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ missed: 1, excluded: false });
    const exclusionRows = async () => (await pool().query('select flag, value, reason, changed_by from app_public.exclusion_changes where case_id = $1', [c.caseId])).rows;
    expect(await exclusionRows()).toEqual([]);
    await t.sanad.workflow.tick();
    expect(await openTaskKeys(c.caseId)).toContain('bookTask');
    expect((await t.api('POST', `/api/interview_bookings/${c.bookingId}/missed`, { token: interviewer.token })).status).toBe(409);
    expect((await t.api('POST', `/api/interview_bookings/${c.bookingId}/missed`, { token: otherInterviewer.token })).status).toBe(404);
    // A second booking, missed too: the limit (2) is reached.
    const { offer } = await newOffer('past');
    const booking = await pool().query<{ id: string }>(
      `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
      [offer.rows[0]!.id, c.caseId, c.patient.id, interviewer.id],
    );
    await notify(c.caseId, 'interviewBooked', { offerId: { value: offer.rows[0]!.id, type: 'String' }, bookingId: { value: booking.rows[0]!.id, type: 'String' }, startsAt: { value: new Date().toISOString(), type: 'Date' } });
    expect(await openTaskKeys(c.caseId)).toContain('interviewTask');
    const second = await t.api('POST', `/api/interview_bookings/${booking.rows[0]!.id}/missed`, { token: interviewer.token });
    expect(second.body).toEqual({ missed: 2, excluded: true });
    expect(await stage(c.caseId)).toBe('rejected');
    const patient = (await pool().query('select excluded_for_missing_interview from app_public.users where id = $1', [c.patient.id])).rows[0];
    expect(patient.excluded_for_missing_interview).toBe(true);
    expect(await exclusionRows()).toEqual([
      { flag: 'excluded_for_missing_interview', value: true, reason: 'Missed 2 booked interviews (the limit is 2).', changed_by: interviewer.id },
    ]);
  });
});

describe('follow-up feedback report', () => {
  it('belongs to a follow-up booking of a case with a finalized intake report', async () => {
    const c = await caseAtInterview();
    const early = await t.api('POST', '/api/feedback_interview_reports', { token: interviewer.token, body: { booking_id: c.bookingId, general_changes: 'better' }, headers: UPSERT });
    expect(early.status).toBe(400);
    expect(early.body.message).toMatch(/no finalized intake report|intake report/);
    const id = (await save(interviewer.token, { booking_id: c.bookingId, ...ACCEPTED })).body[0].id;
    expect((await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
    const { offer } = await newOffer('past');
    const followUp = await pool().query<{ id: string }>(
      `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id) values ($1, $2, $3, $4) returning id`,
      [offer.rows[0]!.id, c.caseId, c.patient.id, interviewer.id],
    );
    const saved = await t.api('POST', '/api/feedback_interview_reports', { token: interviewer.token, body: { booking_id: followUp.rows[0]!.id, general_changes: 'sleeps better', recommend_tendency: 9 }, headers: UPSERT });
    expect(saved.status).toBe(201);
    const bad = await t.api('POST', '/api/feedback_interview_reports', { token: interviewer.token, body: { booking_id: followUp.rows[0]!.id, recommend_tendency: 11 }, headers: UPSERT });
    expect(bad.status).toBe(400);
    expect((await t.api('GET', `/api/feedback_interview_reports?id=eq.${saved.body[0].id}`, { token: c.patient.token })).body).toHaveLength(0);
    expect((await t.api('GET', `/api/feedback_interview_reports?id=eq.${saved.body[0].id}`, { token: therapist.token })).body).toHaveLength(1);
  });
});

describe('research export', () => {
  it('coordinators download finalized reports without identifying fields, and a codebook per locale', async () => {
    const c = await caseAtInterview();
    const id = (await save(interviewer.token, { booking_id: c.bookingId, ...ACCEPTED, patient_name: 'Secret Name', phone: '+49 170 000' })).body[0].id;
    expect((await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
    const csv = await fetch(`${t.url}/api/export/interview_reports.csv`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    expect(csv.status).toBe(200);
    const text = await csv.text();
    const [header, ...lines] = text.replace('\uFEFF', '').trim().split('\r\n');
    expect(header).toContain('case_id,report_id,version,finalized_at,trial_outcome');
    expect(header).not.toContain('patient_name');
    expect(text).not.toContain('Secret Name');
    const line = lines.find((x) => x.includes(id));
    expect(line).toBeDefined();
    expect(line).toContain('ptsd');
    const refused = await fetch(`${t.url}/api/export/interview_reports.csv`, { headers: { authorization: `Bearer ${interviewer.token}` } });
    expect(refused.status).toBe(403);
    const codebook = await fetch(`${t.url}/api/export/interview_reports/codebook.csv?locale=de`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    const book = await codebook.text();
    expect(book).toContain('suicidality_risk');
    expect(book).toContain('suicidality_risk,interview_reports,,,,high,hoch');
    const feedback = await fetch(`${t.url}/api/export/feedback_interview_reports/codebook.csv?locale=ar`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    expect(await feedback.text()).toContain('general_changes');
    expect((await fetch(`${t.url}/api/export/interview_reports/codebook.csv?locale=fr`, { headers: { authorization: `Bearer ${coordinator.token}` } })).status).toBe(400);
  });
});

describe('clinical safety (the interview report as a risk signal source)', () => {
  async function signals(caseId: string) {
    const { rows } = await pool().query(`select source, source_record_id, details from app_public.safety_signals where case_id = $1`, [caseId]);
    return rows;
  }

  it('a finalized report with moderate or high suicidality risk raises exactly one safety signal; a draft or a low risk raises none', async () => {
    const risky = await caseAtInterview();
    // C3 alone scores 6: moderate (MINI bands); a draft never signals.
    const id = (await save(interviewer.token, { booking_id: risky.bookingId, ...ACCEPTED, suicidality_c3: true, suicidality_serious_attempt_3y: false })).body[0].id;
    expect(await signals(risky.caseId)).toEqual([]);
    expect((await t.api('POST', `/api/interview_reports/${id}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
    const raised = await signals(risky.caseId);
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ source: 'interview_report', source_record_id: id, details: { suicideRisk: 'moderate' } });
    // The safety task opens for the case's responsible group once the queued process starts.
    await t.sanad.workflow.tick();
    const tasks = await pool().query(`select count(*)::int as n from app_public.workflow_tasks where case_id = $1 and end_time is null and priority >= 100`, [risky.caseId]);
    expect(tasks.rows[0].n).toBe(1);

    const calm = await caseAtInterview();
    // C1 alone scores 1: low risk, one below the signalling band.
    const calmId = (await save(interviewer.token, { booking_id: calm.bookingId, ...ACCEPTED, suicidality_c1: true, suicidality_serious_attempt_3y: false })).body[0].id;
    expect((await row(calmId)).suicidality_risk).toBe('low');
    expect((await t.api('POST', `/api/interview_reports/${calmId}/finalize`, { token: interviewer.token, body: {} })).status).toBe(200);
    expect(await signals(calm.caseId)).toEqual([]);
  });
});
