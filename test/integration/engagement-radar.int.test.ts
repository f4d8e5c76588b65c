/**
 * The engagement radar (issue 32 item 1): the state follows the time without activity at its
 * boundaries (a test clock drives the sweep), each change of state opens exactly one outreach task
 * for the case's supporters (else therapists), the triggers keep the per-case row current, and
 * the role matrix: coordinators see every case, therapists and supporters their own, every other
 * role is refused; only coordinators change the thresholds, and a refusal changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type Cast, type CastMember } from '../helpers/people';
import { trialDriver } from '../helpers/trial';

let t: TestApp;
let cast: Cast;
const trial = trialDriver(() => t);
const pool = () => t.database.db.pool;
const DAY = 86_400_000;

beforeAll(async () => {
  t = await startTestApp();
  cast = await castOfRoles(t);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

async function setLastActivity(caseId: string, at: Date) {
  await pool().query('update app_public.case_engagement set last_activity_at = $2 where case_id = $1', [caseId, at]);
}
async function sweepAt(at: Date): Promise<number> {
  const { rows } = await pool().query<{ opened: number }>('select app_hidden.engagement_sweep_at($1) as opened', [at]);
  return rows[0]!.opened;
}
async function recorded(caseId: string) {
  const { rows } = await pool().query<{ state: string }>('select state from app_public.case_engagement where case_id = $1', [caseId]);
  return rows[0]?.state;
}
async function outreachTasks(caseId: string) {
  const { rows } = await pool().query<{ id: string; candidate_groups: string[]; name: string; end_time: Date | null }>(
    `select id, candidate_groups, name, end_time from app_public.workflow_tasks where case_id = $1 and task_definition_key = 'outreachTask' order by created`,
    [caseId],
  );
  return rows;
}
async function engagementRows() {
  const { rows } = await pool().query('select * from app_public.case_engagement order by case_id');
  return rows;
}
async function settings() {
  const { rows } = await pool().query('select inactive_days, stalled_days, lost_days from app_public.engagement_settings');
  return rows[0];
}
const radar = (who: CastMember, query = '') => t.api('GET', `/api/engagement/radar${query}`, { token: cast.people[who].token });

describe('engagement states at their boundaries (test clock)', () => {
  const table: { days: number; state: string }[] = [
    { days: 0, state: 'active' },
    { days: 2.99, state: 'active' },
    { days: 3, state: 'inactive' },
    { days: 13.99, state: 'inactive' },
    { days: 14, state: 'stalled' },
    { days: 20.99, state: 'stalled' },
    { days: 21, state: 'lost' },
    { days: 90, state: 'lost' },
  ];
  it.each(table)('$days days without activity → $state', async ({ days, state }) => {
    const { rows } = await pool().query<{ state: string }>(
      `select app_hidden.engagement_state_for(make_interval(secs => $1::float8 * 86400), 3, 14, 21) as state`,
      [days],
    );
    expect(rows[0]!.state).toBe(state);
  });

  it('the sweep records each change once and opens one outreach task per change to a worse state', async () => {
    const t0 = new Date(Date.now() - 60 * DAY);
    await setLastActivity(cast.caseA, t0);
    await setLastActivity(cast.caseB, t0);
    const steps: { days: number; state: string; opened: number }[] = [
      { days: 2.99, state: 'active', opened: 0 },
      { days: 3, state: 'inactive', opened: 2 },
      { days: 3, state: 'inactive', opened: 0 }, // the same moment again: no second task
      { days: 13.99, state: 'inactive', opened: 0 },
      { days: 14, state: 'stalled', opened: 2 },
      { days: 21, state: 'lost', opened: 2 },
      { days: 22, state: 'lost', opened: 0 },
    ];
    for (const step of steps) {
      expect(await sweepAt(new Date(t0.getTime() + step.days * DAY)), `at ${step.days} days`).toBe(step.opened);
      expect(await recorded(cast.caseA)).toBe(step.state);
      expect(await recorded(cast.caseB)).toBe(step.state);
    }
    await t.sanad.workflow.tick();
    const tasksA = await outreachTasks(cast.caseA);
    const tasksB = await outreachTasks(cast.caseB);
    expect(tasksA).toHaveLength(3);
    expect(tasksB).toHaveLength(3);
    // Case A has a supporter, case B only a therapist.
    expect(tasksA.every((task) => task.candidate_groups.join() === 'supporters')).toBe(true);
    expect(tasksB.every((task) => task.candidate_groups.join() === 'therapists')).toBe(true);

    // Activity brings the case back to active: recorded, no task.
    await setLastActivity(cast.caseA, new Date(t0.getTime() + 30 * DAY));
    expect(await sweepAt(new Date(t0.getTime() + 30.5 * DAY))).toBe(0);
    expect(await recorded(cast.caseA)).toBe('active');
  });

  it('the outreach task: its supporter completes it; the patient and the other case are refused and nothing changes', async () => {
    const [task] = await outreachTasks(cast.caseA);
    for (const who of ['patient', 'otherPatient', 'otherTherapist', 'interviewer'] as const) {
      const answer = await trial.submit(task!.id, cast.people[who].token);
      expect([403, 404], who).toContain(answer.status);
      expect((await outreachTasks(cast.caseA))[0]!.end_time).toBeNull();
    }
    const done = await trial.submit(task!.id, cast.people.supporter.token);
    expect(done.status).toBe(204);
    expect((await outreachTasks(cast.caseA))[0]!.end_time).not.toBeNull();
  });
});

describe('the per-case row follows the data', () => {
  it('a patient message starts the wait and counts as activity; a reply to the patients ends the wait', async () => {
    const before = Date.now();
    await pool().query(
      `insert into app_public.case_messages (case_id, sender_id, body, to_therapists, sent_at) values ($1, $2, 'Hello', true, now())`,
      [cast.caseB, cast.people.otherPatient.id],
    );
    let { rows } = await pool().query('select * from app_public.case_engagement where case_id = $1', [cast.caseB]);
    expect(rows[0].last_from_patient_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(rows[0].waiting_since).not.toBeNull();
    expect(rows[0].last_activity_at.getTime()).toBeGreaterThanOrEqual(before - 1000);
    await pool().query(
      `insert into app_public.case_messages (case_id, sender_id, body, to_patients, sent_at) values ($1, $2, 'Hi', true, now())`,
      [cast.caseB, cast.people.otherTherapist.id],
    );
    ({ rows } = await pool().query('select * from app_public.case_engagement where case_id = $1', [cast.caseB]));
    expect(rows[0].waiting_since).toBeNull();
    expect(rows[0].last_to_patient_at).not.toBeNull();
  });

  it('the radar shows the state computed from the data, highest risk first', async () => {
    await setLastActivity(cast.caseA, new Date(Date.now() - 15 * DAY));
    await setLastActivity(cast.caseB, new Date(Date.now() - 1 * DAY));
    const answer = await radar('coordinator');
    expect(answer.status).toBe(200);
    const rows = (answer.body as { rows: { caseId: string; state: string }[] }).rows;
    expect(rows.map((r) => r.caseId)).toEqual([cast.caseA, cast.caseB]);
    expect(rows.map((r) => r.state)).toEqual(['stalled', 'active']);
    expect((answer.body as { counts: Record<string, number> }).counts).toMatchObject({ stalled: 1, active: 1 });
  });
});

describe('role matrix', () => {
  it('reads: coordinators all, therapists and supporters their own cases, everyone else refused', async () => {
    const expected: Record<CastMember, string[] | 403> = {
      coordinator: [cast.caseA, cast.caseB],
      therapist: [cast.caseA],
      supporter: [cast.caseA],
      otherTherapist: [cast.caseB],
      outsider: [], // holds staff accounts but belongs to no case
      patient: 403,
      otherPatient: 403,
      interviewer: 403,
      supervisor: 403,
      counselor: 403,
    };
    for (const [who, sees] of Object.entries(expected) as [CastMember, string[] | 403][]) {
      const answer = await radar(who);
      if (sees === 403) {
        expect(answer.status, who).toBe(403);
        expect(JSON.stringify(answer.body)).not.toMatch(new RegExp(`${cast.caseA}|${cast.caseB}`));
      } else {
        expect(answer.status, who).toBe(200);
        expect((answer.body as { rows: { caseId: string }[] }).rows.map((r) => r.caseId).sort(), who).toEqual([...sees].sort());
      }
    }
    const anonymous = await t.api('GET', '/api/engagement/radar');
    expect(anonymous.status).toBe(401);
  });

  it('bad paging is a 400 with a message', async () => {
    const answer = await radar('coordinator', '?limit=abc');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: 'invalid_number' });
  });

  it('thresholds: only coordinators change them; refusals and bad input change nothing', async () => {
    const before = await settings();
    const rowsBefore = await engagementRows();
    for (const who of ['patient', 'therapist', 'supporter', 'supervisor', 'interviewer', 'counselor', 'outsider', 'otherTherapist'] as const) {
      const answer = await t.api('PUT', '/api/engagement/thresholds', { token: cast.people[who].token, body: { inactiveDays: 2, stalledDays: 7, lostDays: 10 } });
      expect(answer.status, who).toBe(403);
      expect(await settings()).toEqual(before);
    }
    const unordered = await t.api('PUT', '/api/engagement/thresholds', { token: cast.people.coordinator.token, body: { inactiveDays: 14, stalledDays: 3, lostDays: 21 } });
    expect(unordered.status).toBe(400);
    const missing = await t.api('PUT', '/api/engagement/thresholds', { token: cast.people.coordinator.token, body: { inactiveDays: 2 } });
    expect(missing.status).toBe(400);
    expect(await settings()).toEqual(before);
    expect(await engagementRows()).toEqual(rowsBefore);
    const done = await t.api('PUT', '/api/engagement/thresholds', { token: cast.people.coordinator.token, body: { inactiveDays: 2, stalledDays: 7, lostDays: 10 } });
    expect(done.status).toBe(200);
    expect(await settings()).toEqual({ inactive_days: 2, stalled_days: 7, lost_days: 10 });
    await t.api('PUT', '/api/engagement/thresholds', { token: cast.people.coordinator.token, body: { inactiveDays: 3, stalledDays: 14, lostDays: 21 } });
  });
});
