/**
 * Issue 31 items 4 and 5: the anonymization stage schedules the case's erasure after the
 * configured period (a dry-run report says when and what); a daily job reports what is due, then
 * does it — anonymized cases erased (unless under legal hold), old notification log rows and
 * expired tokens deleted — logging both runs, once a day. Coordinators only; refusals change nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeVerdicts, verifyChains } from '../../src/server/integrity/chains';
import { withOwner } from '../../src/server/db/transaction';
import { retentionDay } from '../../src/server/retention/service';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people = {} as Record<CastMember, Person>;
let caseA: string, caseB: string;
const ROLES: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];
const DAY = 86_400_000;

const owner = async (text: string, values: unknown[] = []) => (await withOwner(t.database.db.pool, (sql) => sql.query(text, values))).rows;
const as = (who: CastMember, method: string, path: string, body?: unknown) => t.api(method, path, { token: people[who].token, ...(body === undefined ? {} : { body }) });
const lines: unknown[] = [];
const log = { info: (object: unknown) => lines.push(object) };

async function snapshot(): Promise<string> {
  const [row] = await owner(`select (select string_agg(record_kind || coalesce(keep_days::text, '-'), ',' order by record_kind) from app_public.retention_settings) || '/' ||
      (select count(*) from app_public.retention_runs)::text || '/' || (select string_agg(email::text, ',' order by id) from app_public.users) as s`);
  return row.s as string;
}

beforeAll(async () => {
  t = await startTestApp();
  Object.assign(people, (await castOfRoles(t)).people);
  caseA = people.patient.caseId!;
  caseB = people.otherPatient.caseId!;
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('retention and the anonymization stage', () => {
  it('lets only coordinators see, set and preview; refusals change nothing', async () => {
    const before = await snapshot();
    for (const role of ROLES.filter((r) => r !== 'coordinator')) {
      expect((await as(role, 'GET', '/api/retention')).status, role).toBe(403);
      expect((await as(role, 'PUT', '/api/retention/notification_log', { keepDays: 1 })).status, role).toBe(403);
      expect((await as(role, 'GET', '/api/retention/preview')).status, role).toBe(403);
      for (const caseId of [caseA, caseB]) expect((await as(role, 'GET', `/api/retention/cases/${caseId}/anonymization`)).status, role).toBe(403);
    }
    const unknown = await as('coordinator', 'PUT', '/api/retention/everything', { keepDays: 1 });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'retention_kind_unknown']);
    expect((await as('coordinator', 'PUT', '/api/retention/notification_log', { keepDays: -1 })).status).toBe(400);
    expect((await as('coordinator', 'GET', `/api/retention/cases/${randomUUID()}/anonymization`)).status).toBe(404);
    expect(await snapshot()).toBe(before);
    const set = await as('coordinator', 'PUT', '/api/retention/notification_log', { keepDays: 90 });
    expect(set.body).toContainEqual(expect.objectContaining({ recordKind: 'notification_log', keepDays: 90 }));
  });

  it('the anonymization stage schedules the erasure; the dry run says when and what', async () => {
    await owner(`update app_public.cases set stage = 'anonymization' where id in ($1, $2)`, [caseA, caseB]);
    // Case B is under legal hold: its anonymization waits.
    expect((await as('coordinator', 'POST', `/api/withdrawal/cases/${caseB}/legal-hold`, { hold: true, reason: 'Audit by the authority' })).status).toBe(200);
    const preview = await as('coordinator', 'GET', `/api/retention/cases/${caseA}/anonymization`);
    expect(preview.status).toBe(200);
    const due = new Date(preview.body.dueAt).getTime();
    expect(due - Date.now()).toBeGreaterThan(29 * DAY);
    expect(due - Date.now()).toBeLessThan(31 * DAY);
    expect(preview.body.fields).toContainEqual({ recordKind: 'users', field: 'email', records: 1 });
    const dryRun = await as('coordinator', 'GET', '/api/retention/preview');
    expect(dryRun.body).toMatchObject({ performed: false, report: expect.arrayContaining([{ record_kind: 'anonymized_case_identifiers', records: 0, cases: [] }]) });
  });

  it('the daily job reports, then erases what is due (not under hold) and deletes old records, once a day, logged', async () => {
    await owner(`insert into app_private.login_tokens (id, user_id, expires_at) values ($1, $2, now() - interval '400 days')`, [randomUUID(), people.therapist.id]);
    await owner(`insert into app_private.notification_log (user_id, case_id, kind, last_sent_at) values ($1, $2, 'new_message', now() - interval '400 days')`, [
      people.therapist.id,
      caseA,
    ]);
    const runsBefore = (await owner('select count(*)::int as n from app_public.retention_runs'))[0].n;
    const later = new Date(Date.now() + 31 * DAY);
    const runs = await retentionDay(t.database.db.pool, log, later);
    expect(runs).not.toBeNull();
    const [report, performed] = runs!;
    expect(report!.performed).toBe(false);
    expect(report!.report).toContainEqual({ record_kind: 'anonymized_case_identifiers', records: 1, cases: [caseA] });
    expect(report!.report).toContainEqual({ record_kind: 'notification_log', records: 1 });
    expect(performed!.performed).toBe(true);
    expect(lines).toHaveLength(2);
    expect((await owner('select count(*)::int as n from app_public.retention_runs'))[0].n).toBe(runsBefore + 2);

    const [a] = await owner('select email::text from app_public.users where id = $1', [people.patient.id]);
    expect(a.email).toMatch(/@erased\.invalid$/);
    const [b] = await owner('select email::text from app_public.users where id = $1', [people.otherPatient.id]);
    expect(b.email).toBe(people.otherPatient.email);
    expect(await owner('select erased_at is not null as erased from app_public.case_anonymizations where case_id = $1', [caseA])).toEqual([{ erased: true }]);
    expect(await owner(`select * from app_private.login_tokens where expires_at < now() - interval '300 days'`)).toEqual([]);
    expect(await owner(`select * from app_private.notification_log where last_sent_at < now() - interval '300 days'`)).toEqual([]);
    expect(await owner(`select cause from app_public.case_erasures where case_id = $1`, [caseA])).toEqual([{ cause: 'anonymization' }]);
    const { ok, lines: verdict } = describeVerdicts(await verifyChains(t.database.db.pool));
    expect(ok, verdict.join('\n')).toBe(true);
    // Once a day.
    expect(await retentionDay(t.database.db.pool, log, later)).toBeNull();
  });
});
