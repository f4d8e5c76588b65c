/**
 * Trial management (issue 15), the flow of participants: exclusion and dropout end a case's
 * open tasks with a reason; the CONSORT counts equal the participants export on a seeded trial
 * with every path; invoice items for held, cancelled and short-term-cancelled interviews and
 * therapy sessions; who may do what.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { consortFlow, type Participant } from '../../src/domain/consort';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person, therapist: Person, interviewer: Person, supervisor: Person, supporter: Person, counselor: Person, outsider: Person;

const pool = () => t.database.db.pool;
const HOUR = 3_600_000;

async function trialCase(): Promise<Person> {
  return (await trial.newTrialCase([], { gender: 'FEMALE' })).patient;
}

/** A finished trial instance with these variables (what the process leaves behind). */
async function instance(caseId: string, variables: Record<string, unknown>, state = 'COMPLETED'): Promise<string> {
  const typed = Object.fromEntries(Object.entries(variables).map(([k, v]) => [k, { value: v, type: typeof v === 'boolean' ? 'Boolean' : 'String' }]));
  const { rows } = await pool().query(
    `insert into app_public.workflow_instances (definition_key, definition_version, business_key, case_id, start_time, variables, state, end_time)
     select 'trial', max(version), 'trial', $1, now(), $2, $3, case when $3 = 'ACTIVE' then null else now() end
       from app_private.workflow_definitions where key = 'trial' returning id`,
    [caseId, JSON.stringify(typed), state],
  );
  return rows[0].id;
}

async function completed(caseId: string, ...times: string[]) {
  for (const time of times) await pool().query('insert into app_private.measurement_completions (case_id, time_of_measurement) values ($1, $2)', [caseId, time]);
}

async function exclusion(caseId: string, body: object, token = coordinator.token) {
  return t.api('POST', `/api/trial/cases/${caseId}/exclusion`, { token, body });
}

async function openTasks(caseId: string) {
  return (await pool().query('select task_definition_key from app_public.workflow_tasks where case_id = $1 and end_time is null', [caseId])).rows;
}

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  therapist = await t.user({ flags: ['therapist'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  supervisor = await t.user({ flags: ['supervisor'] });
  supporter = await t.user({ flags: ['supporter'] });
  counselor = await t.user({ flags: ['therapist'] });
  outsider = await t.user({ flags: ['therapist'] });
  expect((await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 2 }, { code: 'ipt', ratio: 1 }] } })).status).toBe(201);
});

afterAll(async () => {
  await t?.close();
});

describe('exclusion and dropout', () => {
  it('only coordinators set a flag; everyone else is refused and nothing changes', async () => {
    const patient = await trialCase();
    const caseId = patient.caseId!;
    for (const [person, roles] of [[therapist, ['therapist']], [interviewer, ['interviewer']], [supervisor, ['supervisor']], [supporter, ['supporter']], [counselor, ['counselor']]] as const) {
      await addMember(pool(), caseId, person.username, [...roles]);
    }
    for (const person of [patient, therapist, interviewer, supervisor, supporter, counselor, outsider]) {
      const refused = await exclusion(caseId, { flag: 'excluded_for_minor_age', value: true, reason: 'Born 2010' }, person.token);
      expect(refused.status, person.username).toBe(403);
    }
    expect((await exclusion(caseId, { flag: 'excluded_for_minor_age', value: true, reason: 'x' }, '')).status).toBe(401);
    const { rows } = await pool().query(
      `select u.excluded, u.excluded_for_minor_age, c.stage from app_public.case_members m join app_public.users u on u.id = m.user_id
         join app_public.cases c on c.id = m.case_id where m.case_id = $1 and m.acts_as_patient`,
      [caseId],
    );
    expect(rows[0]).toEqual({ excluded: false, excluded_for_minor_age: false, stage: 'screening' });
    expect((await pool().query('select 1 from app_public.exclusion_changes where case_id = $1', [caseId])).rowCount).toBe(0);
    expect(await openTasks(caseId)).toEqual([{ task_definition_key: 'screeningTask' }]);
  });

  it('the exclusion columns of a case are written only through the exclusion call: a direct update is refused', async () => {
    const patient = await trialCase();
    const caseId = patient.caseId!;
    const before = (await pool().query('select is_dropout, dropout_reason, exclude_from_analysis, reason_for_exclusion, stage from app_public.cases where id = $1', [caseId])).rows[0];
    for (const [column, field, value] of [
      ['is_dropout', 'isDropout', true],
      ['dropout_reason', 'dropoutReason', 'moved away'],
      ['exclude_from_analysis', 'excludeFromAnalysis', true],
      ['reason_for_exclusion', 'reasonForExclusion', 'protocol'],
    ] as const) {
      // GraphQL: the fields are not in CasePatch at all.
      const graphql = await t.graphql(`mutation($id: UUID!, $patch: CasePatch!) { updateCaseById(input: { id: $id, casePatch: $patch }) { case { id } } }`, { id: caseId, patch: { [field]: value } }, coordinator.token);
      expect(graphql.errors?.[0]?.message, field).toMatch(/CasePatch|not defined|field/i);
      // REST: refused with a 4xx (no update right on the column).
      const rest = await t.api('PATCH', `/api/cases?id=eq.${caseId}`, { token: coordinator.token, body: { [column]: value } });
      expect(rest.status, column).toBeGreaterThanOrEqual(400);
      expect(rest.status, column).toBeLessThan(500);
    }
    // The other fields stay editable by coordinators.
    const title = await t.graphql(`mutation($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { title: "Renamed" } }) { case { title } } }`, { id: caseId }, coordinator.token);
    expect(title.data.updateCaseById.case.title).toBe('Renamed');
    const after = (await pool().query('select is_dropout, dropout_reason, exclude_from_analysis, reason_for_exclusion, stage from app_public.cases where id = $1', [caseId])).rows[0];
    expect(after).toEqual(before);
    expect((await pool().query('select 1 from app_public.exclusion_changes where case_id = $1', [caseId])).rowCount).toBe(0);
    expect(await openTasks(caseId)).toEqual([{ task_definition_key: 'screeningTask' }]);
  });

  it('refuses bad input with a 400: unknown flag, no reason, wrong types', async () => {
    const patient = await trialCase();
    expect((await exclusion(patient.caseId!, { flag: 'excluded_for_being_late', value: true, reason: 'x' })).body.error).toBe('unknown_flag');
    expect((await exclusion(patient.caseId!, { flag: 'excluded', value: true, reason: '   ' })).body.error).toBe('reason_required');
    expect((await exclusion(patient.caseId!, { flag: 'excluded', value: 'yes', reason: 'x' })).status).toBe(400);
    expect((await exclusion(patient.caseId!, { flag: 'excluded', value: true })).status).toBe(400);
    expect((await exclusion('00000000-0000-4000-8000-000000000000', { flag: 'excluded', value: true, reason: 'x' })).status).toBe(404);
    expect((await pool().query('select 1 from app_public.exclusion_changes where case_id = $1', [patient.caseId])).rowCount).toBe(0);
  });

  it('excluding ends the open tasks with the reason "excluded"; clearing lowers the flag; both audited', async () => {
    const patient = await trialCase();
    const caseId = patient.caseId!;
    const set = await exclusion(caseId, { flag: 'excluded_for_minor_age', value: true, reason: 'Born in 2010 (ID checked)' });
    expect(set.status).toBe(204);
    expect(await openTasks(caseId)).toEqual([]);
    const tasks = await pool().query('select delete_reason from app_public.workflow_tasks where case_id = $1', [caseId]);
    expect(tasks.rows).toEqual([{ delete_reason: 'excluded' }]);
    const { rows } = await pool().query(
      `select c.stage, c.reason_for_exclusion, i.state, (select count(*)::int from app_public.workflow_jobs j where j.case_id = c.id) as jobs
         from app_public.cases c join app_public.workflow_instances i on i.case_id = c.id where c.id = $1`,
      [caseId],
    );
    expect(rows[0]).toEqual({ stage: 'excluded', reason_for_exclusion: 'Born in 2010 (ID checked)', state: 'EXTERNALLY_TERMINATED', jobs: 0 });
    await t.sanad.workflow.tick(); // nothing left to run for the case
    const cleared = await exclusion(caseId, { flag: 'excluded_for_minor_age', value: false, reason: 'Wrong birth year entered' });
    expect(cleared.status).toBe(204);
    const user = await pool().query(`select excluded, excluded_for_minor_age from app_public.users where id = $1`, [patient.id]);
    expect(user.rows[0]).toEqual({ excluded: false, excluded_for_minor_age: false });
    const changes = await pool().query('select flag, value, reason, changed_by from app_public.exclusion_changes where case_id = $1 order by changed_at', [caseId]);
    expect(changes.rows).toEqual([
      { flag: 'excluded_for_minor_age', value: true, reason: 'Born in 2010 (ID checked)', changed_by: coordinator.id },
      { flag: 'excluded_for_minor_age', value: false, reason: 'Wrong birth year entered', changed_by: coordinator.id },
    ]);
    const audit = await pool().query(`select table_name, actor_id from app_public.audit_log where case_id = $1 and table_name = 'exclusion_changes'`, [caseId]);
    expect(audit.rows).toHaveLength(2);
    expect(audit.rows.every((r) => r.actor_id === coordinator.id)).toBe(true);
    const userAudit = await pool().query(`select count(*)::int as n from app_public.audit_log where table_name = 'users' and record_id = $1 and actor_id = $2`, [patient.id, coordinator.id]);
    expect(userAudit.rows[0].n).toBeGreaterThanOrEqual(2);
    // The case detail shows the flags to its staff and coordinators, not to the patient.
    const query = `query($id: UUID!) { caseById(id: $id) { exclusionFlags exclusionChangesByCaseIdList { flag value reason } } }`;
    const staff = await t.graphql(query, { id: caseId }, coordinator.token);
    expect(staff.data.caseById.exclusionFlags.excluded_for_minor_age).toBe(false);
    expect(staff.data.caseById.exclusionChangesByCaseIdList).toHaveLength(2);
    const own = await t.graphql(query, { id: caseId }, patient.token);
    expect(own.data.caseById).toEqual({ exclusionFlags: null, exclusionChangesByCaseIdList: [] });
  });

  it('a dropout before treatment ends the open tasks with the reason "dropout"; excludeFromAnalysis only flags', async () => {
    const patient = await trialCase();
    const caseId = patient.caseId!;
    expect((await exclusion(caseId, { flag: 'exclude_from_analysis', value: true, reason: 'Protocol violation' })).status).toBe(204);
    expect(await openTasks(caseId)).toEqual([{ task_definition_key: 'screeningTask' }]);
    // Before randomization a patient is excluded, not dropped out (issue 27: the stage checked).
    const early = await exclusion(caseId, { flag: 'is_dropout', value: true, reason: 'No longer reachable' });
    expect(early.status).toBe(409);
    expect(early.body.error).toBe('dropout_before_randomization');
    expect(await openTasks(caseId)).toEqual([{ task_definition_key: 'screeningTask' }]);
    const c = await pool().query('select stage, is_dropout, dropout_reason, exclude_from_analysis, reason_for_exclusion from app_public.cases where id = $1', [caseId]);
    expect(c.rows[0]).toEqual({ stage: 'screening', is_dropout: false, dropout_reason: null, exclude_from_analysis: true, reason_for_exclusion: 'Protocol violation' });
    // A randomized patient waiting for the questionnaires before treatment drops out: the open
    // tasks end with the reason "dropout" and the trial is finished.
    const { patient: treated, caseId: treatedCase } = await trial.newTrialCase([], { gender: 'FEMALE' });
    await trial.advance(treatedCase, 'randomization', { interviewer, outcome: 'ptsd' });
    expect((await t.api('POST', `/api/trial/cases/${treatedCase}/randomize`, { token: coordinator.token })).status).toBe(201);
    await t.sanad.workflow.tick();
    expect(treated.caseId).toBe(treatedCase);
    expect((await exclusion(treatedCase, { flag: 'is_dropout', value: true, reason: 'No longer reachable' })).status).toBe(204);
    expect(await openTasks(treatedCase)).toEqual([]);
    const ended = await pool().query(`select distinct delete_reason from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'preTask'`, [treatedCase]);
    expect(ended.rows).toEqual([{ delete_reason: 'dropout' }]);
    const d = await pool().query('select stage, is_dropout, dropout_reason from app_public.cases where id = $1', [treatedCase]);
    expect(d.rows[0]).toEqual({ stage: 'finished', is_dropout: true, dropout_reason: 'No longer reachable' });
  });
});

describe('CONSORT flow', () => {
  // A second app of its own: under a loaded machine this takes longer than the default 30 s.
  it('counts every path, equal to the participants export; coordinators only', { timeout: 120_000 }, async () => {
    // A seeded trial with every path, in a fresh app so the counts are this test's alone.
    const local = await startTestApp();
    const saved = t;
    t = local;
    try {
      const coord = await t.user({ flags: ['coordinator'] });
      expect((await t.api('POST', '/api/trial/allocation', { token: coord.token, body: { method: 'blocks', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }] } })).status).toBe(201);
      const patients = async (n: number) => Promise.all(Array.from({ length: n }, () => t.user({ flags: ['patient'], gender: 'MALE' })));
      const [registeredOnly, excludedEmail, excludedBoth, rejected, rejected2, referred, later, awaiting, fullCbt, fu2Pending, dropout, missing] = await patients(12);
      await instance(registeredOnly!.caseId!, {}, 'ACTIVE');
      await instance(excludedEmail!.caseId!, { excluded: true });
      await pool().query(`update app_public.users set excluded = true, excluded_for_lack_of_email = true where id = $1`, [excludedEmail!.id]);
      await instance(excludedBoth!.caseId!, { excluded: true });
      await pool().query(`update app_public.users set excluded = true, excluded_for_lack_of_email = true, excluded_for_minor_age = true where id = $1`, [excludedBoth!.id]);
      await instance(rejected!.caseId!, { excluded: false, outcome: 'rejected', rejectionReason: 'concurrent_treatment' });
      await instance(rejected2!.caseId!, { excluded: false, outcome: 'rejected' });
      await instance(referred!.caseId!, { excluded: false, outcome: 'counseling' });
      await instance(later!.caseId!, { excluded: false, outcome: 'later' });
      await instance(awaiting!.caseId!, { excluded: false, outcome: 'ptsd' }, 'ACTIVE');
      // CONSORT 2025 (issue 26): excluded before finishing the screening is registered, not screened.
      const [excludedEarly, inTreatment] = await patients(2);
      await instance(excludedEarly!.caseId!, {}, 'ACTIVE');
      await pool().query(`update app_public.users set excluded = true, excluded_for_minor_age = true where id = $1`, [excludedEarly!.id]);
      for (const p of [excludedEmail, excludedBoth, rejected, rejected2, referred, later, awaiting]) await completed(p!.caseId!, 'screening');
      // Randomized: the trial's own randomization step (issue 27: the only door to an arm), then
      // what the process records; all but the pending one and the one in treatment have ended their trial.
      const randomized = [fullCbt, fu2Pending, dropout, missing, inTreatment];
      const ids: Record<string, string> = {};
      const localInterviewer = await t.user({ flags: ['interviewer'] });
      for (const p of randomized) {
        await trial.startTrial(p!.caseId!);
        await trial.advance(p!.caseId!, 'randomization', { interviewer: localInterviewer, outcome: 'depression' });
        await completed(p!.caseId!, 'screening');
        expect((await t.api('POST', `/api/trial/cases/${p!.caseId}/randomize`, { token: coord.token })).status).toBe(201);
        await t.sanad.workflow.tick();
        const { rows } = await pool().query(`select id from app_public.workflow_instances where case_id = $1 and business_key = 'trial'`, [p!.caseId]);
        ids[p!.caseId!] = rows[0].id;
        if (p !== fu2Pending && p !== inTreatment) {
          await pool().query(`select app_hidden.end_case_workflows($1, 'test')`, [p!.caseId]);
          await pool().query(`update app_public.workflow_instances set state = 'COMPLETED' where case_id = $1`, [p!.caseId]);
        }
      }
      for (const p of [fullCbt, fu2Pending, missing]) {
        await pool().query(
          `insert into app_public.workflow_history (process_instance_id, case_id, activity_id, activity_type, execution_id, start_time)
           values ($1, $2, 'patientTreatmentTask', 'bpmn:UserTask', $3, now())`,
          [ids[p!.caseId!], p!.caseId, `exec-${p!.caseId}`],
        );
      }
      // In active treatment (no treatment task completed yet): received the intervention.
      await completed(inTreatment!.caseId!, 'pre');
      await pool().query(`update app_public.cases set stage = 'treatment' where id = $1`, [inTreatment!.caseId]);
      await completed(fullCbt!.caseId!, 'pre', 'post', 'fu1', 'fu2');
      await completed(fu2Pending!.caseId!, 'pre', 'post', 'fu1');
      await pool().query(`update app_public.cases set stage = 'fu1' where id = $1`, [fu2Pending!.caseId]);
      await completed(missing!.caseId!, 'pre', 'post');
      await pool().query(`update app_public.cases set stage = 'finished' where id = $1`, [missing!.caseId]);
      // Dropped out before the treatment began: as if its treatment tasks had never opened (the
      // real randomization step opens them at once, so this path is modelled on the records).
      await pool().query(`delete from app_public.workflow_tasks where case_id = $1 and task_definition_key in ('patientTreatmentTask', 'therapistTreatmentTask')`, [dropout!.caseId]);
      await pool().query(`delete from app_public.workflow_history where case_id = $1 and activity_id in ('patientTreatmentTask', 'therapistTreatmentTask')`, [dropout!.caseId]);
      await pool().query(`update app_public.cases set stage = 'randomization' where id = $1`, [dropout!.caseId]);
      expect((await exclusion(dropout!.caseId!, { flag: 'is_dropout', value: true, reason: 'Moved away' }, coord.token)).status).toBe(204);
      expect((await exclusion(dropout!.caseId!, { flag: 'exclude_from_analysis', value: true, reason: 'Never started' }, coord.token)).status).toBe(204);

      const flow = await t.api('GET', '/api/trial/consort', { token: coord.token });
      expect(flow.status).toBe(200);
      const f = flow.body;
      expect(f).toMatchObject({
        registered: 14, screened: 12, notScreened: 2, excluded: 3,
        exclusionReasons: { excluded_for_lack_of_email: 2, excluded_for_minor_age: 2 },
        interviewed: 10, accepted: 6, rejected: 2, rejectionReasons: { concurrent_treatment: 1, unspecified: 1 },
        referred: 1, later: 1, awaitingRandomization: 1, randomized: 5,
      });
      const arms = Object.fromEntries(f.arms.map((a: { arm: string }) => [a.arm, a]));
      expect(Object.keys(arms)).toEqual(['cbt', 'ipt']);
      const total = (key: string) => f.arms.reduce((s: number, a: Record<string, number>) => s + a[key]!, 0);
      expect(total('randomized')).toBe(5);
      expect(total('receivedIntervention')).toBe(4);
      expect(total('didNotReceive')).toBe(1);
      expect(total('excludedFromAnalysis')).toBe(1);
      const sum = (time: string, kind: 'completed' | 'lost', reason?: string) =>
        f.arms.reduce((s: number, a: any) => s + (kind === 'completed' ? a.completed[time] : a.lost[time][reason!]), 0);
      expect([sum('post', 'completed'), sum('fu1', 'completed'), sum('fu2', 'completed')]).toEqual([3, 2, 1]);
      expect([sum('post', 'lost', 'dropout'), sum('fu1', 'lost', 'missing'), sum('fu2', 'lost', 'pending'), sum('fu2', 'lost', 'missing')]).toEqual([1, 1, 2, 1]);

      // The participants export gives the same numbers: the flow counted from its rows.
      const csv = await fetch(`${t.url}/api/trial/participants.csv`, { headers: { authorization: `Bearer ${coord.token}` } });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-disposition')).toMatch(/sanad-participants-\d{4}-\d{2}-\d{2}\.csv/);
      const rows = csvObjects(await csv.text());
      expect(rows).toHaveLength(14);
      const b = (v: string | undefined) => v === '1';
      const fromExport: Participant[] = rows.map((r) => ({
        caseId: r.case_id!, registeredAt: r.registered_at!, stage: r.stage!, screened: b(r.screened), excluded: b(r.excluded),
        exclusionReasons: r.exclusion_reasons ? r.exclusion_reasons.split('|') : [], interviewed: b(r.interviewed),
        interviewOutcome: r.interview_outcome || null, rejectionReason: r.rejection_reason || null, treatment: r.treatment || null,
        randomizedAt: r.randomized_at || null, receivedIntervention: b(r.received_intervention), preCompleted: b(r.pre_completed),
        postCompleted: b(r.post_completed), fu1Completed: b(r.fu1_completed), fu2Completed: b(r.fu2_completed),
        trialActive: b(r.trial_active), isDropout: b(r.is_dropout), dropoutReason: r.dropout_reason || null,
        excludeFromAnalysis: b(r.exclude_from_analysis), reasonForExclusion: r.reason_for_exclusion || null,
      }));
      expect(consortFlow(fromExport, ['cbt', 'ipt'])).toEqual(f);
      const dropped = rows.find((r) => r.case_id === dropout!.caseId)!;
      expect(dropped).toMatchObject({ is_dropout: '1', dropout_reason: 'Moved away', exclude_from_analysis: '1', reason_for_exclusion: 'Never started' });
      // The questionnaire export carries the same case facts (exclude_from_analysis stays in, flagged).

      for (const person of [registeredOnly!, await t.user({ flags: ['therapist'] }), await t.user({ flags: ['interviewer'] })]) {
        expect((await t.api('GET', '/api/trial/consort', { token: person.token })).status).toBe(403);
        expect((await t.api('GET', '/api/trial/participants.csv', { token: person.token })).status).toBe(403);
      }
    } finally {
      t = saved;
      await local.close();
    }
  });
});

describe('invoice items', () => {
  let patient: Person;

  async function booking(startsInMs: number): Promise<{ offerId: string; bookingId: string }> {
    const start = new Date(Date.now() + startsInMs);
    const { rows } = await pool().query(
      `insert into app_public.interview_offers (interviewer_id, time_slot) values ($1, tstzrange($2, $3, '[)')) returning id`,
      [interviewer.id, start, new Date(start.getTime() + HOUR)],
    );
    const booked = await pool().query(
      `insert into app_public.interview_bookings (offer_id, case_id, interviewee_id, interviewer_id, booked_by) values ($1, $2, $3, $4, $3) returning id`,
      [rows[0].id, patient.caseId, patient.id, interviewer.id],
    );
    return { offerId: rows[0].id, bookingId: booked.rows[0].id };
  }

  /** Cancels through the interview feature's own function, as the given person. */
  async function cancelAs(person: Person, bookingId: string) {
    const result = await t.graphql(`mutation($id: UUID!) { cancelInterviewBooking(input: { id: $id }) { clientMutationId } }`, { id: bookingId }, person.token);
    expect(result.errors).toBeUndefined();
  }

  async function item(sourceId: string) {
    const { rows } = await pool().query(
      'select user_id, case_id, invoice_type, has_taken_place, canceled, canceled_by_therapist, canceled_short_term from app_public.invoice_items where source_id = $1',
      [sourceId],
    );
    return rows[0];
  }

  beforeAll(async () => {
    patient = await t.user({ flags: ['patient'] });
    await addMember(pool(), patient.caseId!, therapist.username, ['therapist']);
    await addMember(pool(), patient.caseId!, interviewer.username, ['interviewer']);
  });

  it('interviews: held, cancelled in time, cancelled short-term, cancelled by the interviewer', async () => {
    const held = await booking(-2 * HOUR);
    await pool().query('update app_public.interview_offers set has_taken_place = true where id = $1', [held.offerId]);
    expect(await item(held.bookingId)).toEqual({ user_id: interviewer.id, case_id: patient.caseId, invoice_type: 'interview', has_taken_place: true, canceled: false, canceled_by_therapist: false, canceled_short_term: false });

    const early = await booking(72 * HOUR);
    await cancelAs(patient, early.bookingId);
    expect(await item(early.bookingId)).toMatchObject({ canceled: true, has_taken_place: false, canceled_by_therapist: false, canceled_short_term: false });

    const late = await booking(5 * HOUR);
    await cancelAs(patient, late.bookingId);
    expect(await item(late.bookingId)).toMatchObject({ canceled: true, canceled_by_therapist: false, canceled_short_term: true });

    const byInterviewer = await booking(6 * HOUR);
    await cancelAs(interviewer, byInterviewer.bookingId);
    expect(await item(byInterviewer.bookingId)).toMatchObject({ canceled: true, canceled_by_therapist: true, canceled_short_term: true });

    // A longer notice makes a cancellation 30 hours ahead short-term.
    expect((await t.api('PUT', '/api/trial/invoice-settings', { token: therapist.token, body: { shortNoticeHours: 48 } })).status).toBe(403);
    expect((await t.api('PUT', '/api/trial/invoice-settings', { token: coordinator.token, body: { shortNoticeHours: -1 } })).status).toBe(400);
    expect((await t.api('PUT', '/api/trial/invoice-settings', { token: coordinator.token, body: { shortNoticeHours: 48 } })).status).toBe(200);
    const thirty = await booking(30 * HOUR);
    await cancelAs(patient, thirty.bookingId);
    expect(await item(thirty.bookingId)).toMatchObject({ canceled_short_term: true });
    expect((await t.api('PUT', '/api/trial/invoice-settings', { token: coordinator.token, body: { shortNoticeHours: 24 } })).status).toBe(200);
  });

  it('therapy sessions: the case therapist records held and cancelled sessions; others refused; bad input 400', async () => {
    const record = (body: object, token = therapist.token) => t.api('POST', '/api/trial/sessions', { token, body: { caseId: patient.caseId, ...body } });
    const held = await record({ sessionAt: new Date(Date.now() - 24 * HOUR).toISOString(), held: true });
    expect(held.status).toBe(201);
    const short = await record({ sessionAt: new Date(Date.now() + 10 * HOUR).toISOString(), held: false, canceledAt: new Date().toISOString(), canceledByTherapist: false });
    expect(short.body.canceledShortTerm).toBe(true);
    const inTime = await record({ sessionAt: new Date(Date.now() + 50 * HOUR).toISOString(), held: false, canceledAt: new Date().toISOString(), canceledByTherapist: true });
    expect(inTime.body.canceledShortTerm).toBe(false);
    const before = (await pool().query('select count(*)::int as n from app_public.invoice_items')).rows[0].n;
    for (const person of [patient, interviewer, supervisor, outsider, coordinator]) {
      expect((await record({ sessionAt: new Date(Date.now() - HOUR).toISOString(), held: true }, person.token)).status, person.username).toBe(403);
    }
    expect((await record({ sessionAt: 'yesterday', held: true })).status).toBe(400);
    expect((await record({ sessionAt: new Date(Date.now() + 5 * HOUR).toISOString(), held: true })).body.error).toBe('session_future');
    expect((await record({ sessionAt: new Date().toISOString(), held: false })).body.error).toBe('canceled_at_required');
    expect((await pool().query('select count(*)::int as n from app_public.invoice_items')).rows[0].n).toBe(before);
  });

  it('coordinators see every item per month and download CSV; therapists and interviewers their own', async () => {
    const year = new Date().getUTCFullYear();
    const all = await t.api('GET', `/api/trial/invoices?year=${year}`, { token: coordinator.token });
    expect(all.status).toBe(200);
    expect(all.body.shortNoticeHours).toBe(24);
    const users = new Set(all.body.items.map((i: { user_id: string }) => i.user_id));
    expect(users).toEqual(new Set([therapist.id, interviewer.id]));
    const own = await t.api('GET', `/api/trial/invoices?year=${year}`, { token: therapist.token });
    expect(own.body.items.length).toBe(3);
    expect(own.body.items.every((i: { user_id: string }) => i.user_id === therapist.id)).toBe(true);
    const theirs = await t.api('GET', `/api/trial/invoices?year=${year}`, { token: interviewer.token });
    expect(theirs.body.items.every((i: { user_id: string }) => i.user_id === interviewer.id)).toBe(true);
    expect((await t.api('GET', `/api/trial/invoices?year=${year}`, { token: patient.token })).body.items).toEqual([]);
    expect((await t.api('GET', `/api/trial/invoices?year=${year}&month=13`, { token: coordinator.token })).status).toBe(400);
    expect((await t.api('GET', `/api/trial/invoices`, { token: coordinator.token })).status).toBe(400);
    const month = new Date().getUTCMonth() + 1;
    const csv = await fetch(`${t.url}/api/trial/invoices.csv?year=${year}&month=${month}`, { headers: { authorization: `Bearer ${coordinator.token}` } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-disposition')).toBe(`attachment; filename="sanad-invoices-${year}-${String(month).padStart(2, '0')}.csv"`);
    const rows = csvObjects(await csv.text());
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.month === String(month))).toBe(true);
    expect(Object.keys(rows[0]!)).toContain('canceled_short_term');
  });
});
