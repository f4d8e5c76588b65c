/**
 * Issue 31 item 3, withdrawal with levels, end to end: stop contact (queued mails go, new mails
 * are dropped, tasks end), stop new data (the trial ends, new answers refused, data stays, CONSORT
 * and the participants export say "withdrew consent"), erasure (identifiers unrecoverable from
 * every table and the export, analysis data stays, the audit chains still verify, the account
 * can no longer sign in). A legal hold refuses erasure. Every action's role matrix (each role,
 * own and other case); every refusal changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/server/cli/commands';
import { describeVerdicts, verifyChains } from '../../src/server/integrity/chains';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const people = {} as Record<CastMember, Person>;
let caseA: string, caseB: string;
const ROLES: CastMember[] = ['patient', 'therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];
const UPSERT = { prefer: 'resolution=merge-duplicates, return=representation' };
const MARK = 'Quokkaname';
const PHONE = '+49 170 5550199';
const driver = trialDriver(() => t);

const owner = async (text: string, values: unknown[] = []) => (await withOwner(t.database.db.pool, (sql) => sql.query(text, values))).rows;
const as = (who: CastMember, method: string, path: string, body?: unknown) => t.api(method, path, { token: people[who].token, ...(body === undefined ? {} : { body }) });

async function snapshot(): Promise<string> {
  const [row] = await owner(
    `select (select count(*) from app_public.case_withdrawals)::text || '/' || (select count(*) from app_public.case_legal_holds)::text || '/' ||
            (select count(*) from app_public.case_erasures)::text || '/' || (select string_agg(stage || is_dropout::text, ',' order by id) from app_public.cases) || '/' ||
            (select string_agg(email::text || coalesce(alias, ''), ',' order by id) from app_public.users) as s`,
  );
  return row.s as string;
}

/** Every text of every table (both schemas) that contains `needle`, as "table" names. */
async function tablesHolding(needle: string): Promise<string[]> {
  const tables = await owner(
    `select n.nspname || '.' || c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname in ('app_public', 'app_private') order by 1`,
  );
  const found: string[] = [];
  for (const { name } of tables) {
    const [hit] = await owner(`select exists (select 1 from ${name} r where lower(row_to_json(r)::text) like '%' || lower($1) || '%') as hit`, [needle]);
    if (hit.hit) found.push(name as string);
  }
  return found;
}

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t, { patient: { alias: `Lena ${MARK}`, locale: 'de' } });
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
  // Identifiers and identifying free text; every write is audited, so the audit log holds copies.
  await owner(`update app_public.users set phone = $2 where id = $1`, [people.patient.id, PHONE]);
  await owner(`update app_public.cases set title = $2, emergency_contact = $3 where id = $1`, [caseA, `${MARK} case`, `Mother of ${MARK}`]);
  await owner(`insert into app_public.case_messages (case_id, sender_id, body, to_therapists, sent_at) values ($1, $2, $3, true, now())`, [
    caseA,
    people.patient.id,
    `Ich heiße Lena ${MARK}`,
  ]);
  const sheet = await t.api('POST', '/api/cbt_reframings', {
    token: people.patient.token,
    headers: UPSERT,
    body: { case_id: caseA, negative_thought: `${MARK} fails`, healthy_thought: `${MARK} learns`, published_at: new Date().toISOString() },
  });
  expect(sheet.status, JSON.stringify(sheet.body)).toBe(201);
  const answer = await t.api('POST', '/api/phq9', { token: people.patient.token, headers: UPSERT, body: { case_id: caseA, time_of_measurement: 'pre', item1: 2, item2: 1 } });
  expect(answer.status).toBe(201);
  await driver.startTrial(caseA);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe('withdrawal with levels', () => {
  it('lets only coordinators withdraw, hold or preview, for any case; refusals change nothing', async () => {
    const before = await snapshot();
    for (const role of ROLES.filter((r) => r !== 'coordinator')) {
      for (const caseId of [caseA, caseB]) {
        const withdraw = await as(role, 'POST', `/api/withdrawal/cases/${caseId}`, { level: 'stop_contact', reason: 'asked' });
        expect(withdraw.status, `${role} withdraw`).toBe(403);
        expect((await as(role, 'POST', `/api/withdrawal/cases/${caseId}/legal-hold`, { hold: true, reason: 'court' })).status, `${role} hold`).toBe(403);
        expect((await as(role, 'GET', `/api/withdrawal/cases/${caseId}/erasure-preview`)).status, `${role} preview`).toBe(403);
      }
    }
    expect(await snapshot()).toBe(before);
    // Reading the withdrawal state follows the case: its people, coordinators.
    for (const role of ROLES) {
      const mayA = !['outsider', 'otherPatient', 'otherTherapist'].includes(role);
      expect((await as(role, 'GET', `/api/withdrawal/cases/${caseA}`)).status, role).toBe(mayA ? 200 : 404);
    }
  });

  it('refuses bad input with nothing changed', async () => {
    const before = await snapshot();
    const unknownLevel = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'everything', reason: 'x' });
    expect([unknownLevel.status, unknownLevel.body.error]).toEqual([400, 'withdrawal_level_unknown']);
    const noReason = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'stop_contact', reason: '  ' });
    expect([noReason.status, noReason.body.error]).toEqual([400, 'reason_required']);
    const noCase = await as('coordinator', 'POST', `/api/withdrawal/cases/${randomUUID()}`, { level: 'stop_contact', reason: 'x' });
    expect([noCase.status, noCase.body.error]).toEqual([404, 'case_not_found']);
    expect(await snapshot()).toBe(before);
  });

  it('stop contact: queued mails go, new ones are dropped, the tasks end', async () => {
    expect((await driver.openTasks(caseA)).length).toBeGreaterThan(0);
    await owner(`insert into app_private.notification_queue (user_id, case_id) values ($1, $2)`, [people.patient.id, caseA]);
    const made = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'stop_contact', reason: 'Asked by phone not to be contacted' });
    expect(made.status).toBe(201);
    expect(await owner('select * from app_private.notification_queue where user_id = $1', [people.patient.id])).toEqual([]);
    await owner(`insert into app_private.notification_queue (user_id, case_id) values ($1, $2)`, [people.patient.id, caseA]);
    await owner(`insert into app_private.workflow_mails (user_id, case_id, template) values ($1, $2, 'reminder')`, [people.patient.id, caseA]);
    expect(await owner('select * from app_private.notification_queue where user_id = $1', [people.patient.id])).toEqual([]);
    expect(await owner('select * from app_private.workflow_mails where user_id = $1', [people.patient.id])).toEqual([]);
    // Staff mails of the case still go.
    const staffQueued = async () => (await owner('select * from app_private.notification_queue where user_id = $1', [people.therapist.id])).length;
    const staffBefore = await staffQueued();
    await owner(`insert into app_private.notification_queue (user_id, case_id) values ($1, $2)`, [people.therapist.id, caseA]);
    expect(await staffQueued()).toBe(staffBefore + 1);
    expect(await driver.openTasks(caseA)).toEqual([]);
    const again = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'stop_contact', reason: 'twice' });
    expect([again.status, again.body.error]).toEqual([409, 'already_withdrawn']);
    // Data may still come in at this level.
    expect((await t.api('POST', '/api/phq9', { token: people.patient.token, headers: UPSERT, body: { case_id: caseA, time_of_measurement: 'pre', item3: 1 } })).status).toBe(201);
  });

  it('stop new data: the trial ends for them, new answers are refused, data stays, CONSORT and the export say so', async () => {
    const made = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'stop_data', reason: 'Withdrew from the study' });
    expect(made.status).toBe(201);
    const refused = await t.api('POST', '/api/phq9', { token: people.patient.token, headers: UPSERT, body: { case_id: caseA, time_of_measurement: 'post', item1: 1 } });
    expect([refused.status, refused.body.error]).toEqual([400, 'withdrawn_no_new_data']);
    expect(await owner('select time_of_measurement from app_public.phq9 where case_id = $1', [caseA])).toEqual([{ time_of_measurement: 'pre' }]);
    expect((await owner('select stage from app_public.cases where id = $1', [caseA]))[0].stage).toBe('finished');
    const consort = await as('coordinator', 'GET', '/api/trial/consort');
    expect(consort.body.withdrewConsent ?? consort.body.flow?.withdrewConsent).toBe(1);
    const csv = await as('coordinator', 'GET', '/api/trial/participants.csv');
    expect(csv.body).toMatch(/withdrawal/);
    expect(csv.body).toContain('stop_data');
  });

  it('erasure is refused under legal hold, with nothing changed', async () => {
    const held = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}/legal-hold`, { hold: true, reason: 'Court order 12/2026' });
    expect(held.status).toBe(200);
    expect(held.body.legalHold).toMatchObject({ reason: 'Court order 12/2026' });
    const before = await snapshot();
    const refused = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'erasure', reason: 'Asked for erasure' });
    expect([refused.status, refused.body.error]).toEqual([409, 'legal_hold']);
    expect(await snapshot()).toBe(before);
    expect((await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}/legal-hold`, { hold: false, reason: 'Order lifted' })).status).toBe(200);
  });

  it('erasure: a dry run first, then identifiers are unrecoverable, analysis data stays and the audit chains verify', async () => {
    const preview = await as('coordinator', 'GET', `/api/withdrawal/cases/${caseA}/erasure-preview`);
    expect(preview.status).toBe(200);
    const count = (kind: string, field: string) => preview.body.find((f: { recordKind: string; field: string }) => f.recordKind === kind && f.field === field)?.records;
    expect(count('users', 'email')).toBe(1);
    expect(count('case_messages', 'body')).toBe(1);
    expect(count('cbt_reframings', 'negative_thought')).toBe(1);
    // The dry run changed nothing.
    expect(await tablesHolding(MARK)).toContain('app_public.users');

    const made = await as('coordinator', 'POST', `/api/withdrawal/cases/${caseA}`, { level: 'erasure', reason: 'Asked for erasure' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    for (const needle of [MARK, people.patient.email, people.patient.username, PHONE]) {
      expect(await tablesHolding(needle), needle).toEqual([]);
    }
    // Analysis data stays, pseudonymous.
    expect(await owner('select item1, item2 from app_public.phq9 where case_id = $1', [caseA])).toEqual([{ item1: 2, item2: 1 }]);
    const csv = await as('coordinator', 'GET', '/api/trial/participants.csv');
    expect(csv.body).toContain(caseA);
    expect(csv.body).toContain('erasure');
    for (const needle of [MARK, people.patient.email, people.patient.username]) expect(csv.body).not.toContain(needle);
    const research = await as('coordinator', 'GET', '/api/export/phq9.csv');
    expect(research.status).toBe(200);
    for (const needle of [MARK, people.patient.email, people.patient.username]) expect(String(research.body)).not.toContain(needle);
    // The audit chains still verify, through the CLI command as well.
    const { ok, lines } = describeVerdicts(await verifyChains(t.database.db.pool));
    expect(ok, lines.join('\n')).toBe(true);
    const out: string[] = [];
    await runCommand(['verify-audit'], { db: t.database.db, out: (line) => out.push(line) });
    expect(out.join('\n')).not.toMatch(/broken|changed|missing/i);
    // The account cannot sign in any more.
    expect((await t.api('POST', '/api/auth/tokens', { body: { username: people.patient.username, password: people.patient.password } })).status).toBe(401);
    expect((await as('coordinator', 'GET', `/api/withdrawal/cases/${caseA}`)).body.erasures).toEqual([expect.objectContaining({ cause: 'withdrawal' })]);
  });

  it('a tampered redacted row is still caught by the verifier', async () => {
    const [row] = await owner(`select a.id from app_public.audit_log a join app_private.audit_redactions r on r.audit_id = a.id limit 1`);
    await owner('alter table app_public.audit_log disable trigger _000_append_only');
    await owner(`update app_public.audit_log set row_hash = repeat('f', 64) where id = $1`, [row.id]);
    await owner('alter table app_public.audit_log enable trigger _000_append_only');
    const { ok } = describeVerdicts(await verifyChains(t.database.db.pool));
    expect(ok).toBe(false);
  });
});
