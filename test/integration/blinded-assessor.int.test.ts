/**
 * The blinded outcome assessor (issue 30 item 6): the account flag alone, never a case member;
 * the role matrix of every new read and action (a refusal changes nothing); post and follow-up
 * assessments, the arm guess after the post assessment and Bang's blinding index in the export;
 * a logged unblinding of one case; and a crawl of every REST route and GraphQL field as the
 * assessor that finds no arm-revealing text (arm codes, arm names in ar/de/en, the titles of the
 * arms' worksheets) although both cases are in treatment with their arm's worksheets open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ar from '../../src/web/i18n/ar.json';
import de from '../../src/web/i18n/de.json';
import en from '../../src/web/i18n/en.json';
import { addMember, createUser } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { csvObjects } from '../helpers/csv';
import { crawlGraphql, crawlRest } from '../helpers/crawl';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
const pool = () => t.database.db.pool;
let coordinator: Person, assessor: Person, otherAssessor: Person;
const staff: Record<string, Person> = {};
const cases: { caseId: string; patient: Person; arm: string }[] = [];

async function count(sql: string, params: unknown[] = []): Promise<number> {
  return Number((await pool().query(sql, params)).rows[0].count);
}

/** Everything that would tell the arm: codes, names in the three languages, worksheet titles. */
function armRevealing(): { pattern: RegExp; texts: string[] } {
  const texts: string[] = [];
  for (const locale of [ar, de, en] as Record<string, any>[]) {
    texts.push(...(Object.values(locale.careTeam.arms) as string[]));
    for (const [key, sheet] of Object.entries(locale.therapy.sheet as Record<string, { title?: string }>)) {
      if (/^(cbt|ipt)_/.test(key) && sheet.title) texts.push(sheet.title);
    }
  }
  return { pattern: /(^|[^a-z])(cbt|ipt)([^a-z]|$)/i, texts: [...new Set(texts)] };
}

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  assessor = await t.user({ flags: ['assessor'] });
  otherAssessor = await t.user({ flags: ['assessor'] });
  for (const role of ['therapist', 'interviewer', 'supervisor', 'supporter', 'counselor'] as const) staff[role] = await t.user({ flags: [role] });
  const configured = await t.api('POST', '/api/trial/allocation', {
    token: coordinator.token,
    body: { method: 'table', arms: [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }], table: 'arm\ncbt\nipt\ncbt\nipt\n' },
  });
  expect(configured.status).toBe(201);
  // Two patients in treatment, one per arm, with their arm's worksheets and tasks open.
  for (let i = 0; i < 2; i++) {
    const { patient, caseId } = await trial.newTrialCase([
      { person: staff.therapist!, roles: ['therapist'] },
      { person: staff.interviewer!, roles: ['interviewer'] },
    ]);
    await trial.advance(caseId, 'treatment', { interviewer: staff.interviewer!, coordinator, outcome: 'ptsd' });
    await t.sanad.workflow.tick();
    const arm = (await pool().query('select treatment from app_public.treatment_assignments where case_id = $1', [caseId])).rows[0].treatment;
    cases.push({ caseId, patient, arm });
  }
  staff.patient = cases[0]!.patient;
  for (const c of cases) {
    expect((await t.api('POST', '/api/blinding/assignments', { token: coordinator.token, body: { caseId: c.caseId, assessorId: assessor.id } })).status).toBe(204);
  }
}, 180_000);

afterAll(async () => {
  await t?.close();
});

describe('the account flag', () => {
  it('stands alone and never joins a case', async () => {
    await expect(createUser(pool(), { username: 'mixed_assessor', email: 'mixed@example.org', password: 'correct horse battery', flags: ['assessor', 'therapist'] }))
      .rejects.toThrow();
    await expect(addMember(pool(), cases[0]!.caseId, assessor.username, ['supporter'])).rejects.toThrow(/blinded assessor/);
    expect(await count('select count(*) from app_public.case_members where user_id = $1', [assessor.id])).toBe(0);
    const me = await t.graphql('{ currentUser { isAssessorAccount isCoordinatorAccount } }', {}, assessor.token);
    expect(me.data.currentUser).toEqual({ isAssessorAccount: true, isCoordinatorAccount: false });
  });
});

describe('role matrix', () => {
  it('only a blinded assessor reads their cases, without the arm; each listing lands in the access log', async () => {
    for (const [role, person] of Object.entries({ ...staff, coordinator })) {
      expect((await t.api('GET', '/api/blinding/my-cases', { token: person.token })).status, role).toBe(403);
    }
    const mine = await t.api('GET', '/api/blinding/my-cases', { token: assessor.token });
    expect(mine.status).toBe(200);
    expect(mine.body.cases.map((c: { caseId: string }) => c.caseId).sort()).toEqual(cases.map((c) => c.caseId).sort());
    expect(mine.body.cases.every((c: { unblindedArm: string | null }) => c.unblindedArm === null)).toBe(true);
    expect((await t.api('GET', '/api/blinding/my-cases', { token: otherAssessor.token })).body.cases).toEqual([]);
    expect(await count(`select count(*) from app_public.access_log where reader_id = $1`, [assessor.id])).toBeGreaterThanOrEqual(1);
  });

  it('only the assigned assessor enters an assessment; follow-ups after the post one; a refusal writes nothing', async () => {
    const [a] = cases;
    const post = { timeOfMeasurement: 'post', ptsdSeverity: 31, depressionSeverity: 18, notes: 'calm' };
    for (const [role, person] of Object.entries({ ...staff, coordinator })) {
      expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: person.token, body: post })).status, role).toBe(403);
    }
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: otherAssessor.token, body: post })).status).toBe(404);
    const early = await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: { ...post, timeOfMeasurement: 'fu1' } });
    expect([early.status, early.body.error]).toEqual([409, 'post_assessment_first']);
    const bad = await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: { ...post, ptsdSeverity: 81 } });
    expect([bad.status, bad.body.error]).toEqual([400, 'out_of_range']);
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: { timeOfMeasurement: 'post' } })).status).toBe(400);
    expect(await count('select count(*) from app_public.blinded_assessments')).toBe(0);
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: post })).status).toBe(201);
    const twice = await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: post });
    expect([twice.status, twice.body.error]).toEqual([409, 'already_recorded']);
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/assessments`, { token: assessor.token, body: { ...post, timeOfMeasurement: 'fu1' } })).status).toBe(201);
    expect(await count('select count(*) from app_public.blinded_assessments')).toBe(2);
  });

  it('the guess comes after the post assessment, once, from the trial’s arms or “don’t know”', async () => {
    const [a, b] = cases;
    const before = await t.api('POST', `/api/blinding/cases/${b!.caseId}/guess`, { token: assessor.token, body: { guess: 'cbt' } });
    expect([before.status, before.body.error]).toEqual([409, 'post_assessment_first']);
    expect((await t.api('GET', '/api/blinding/guess-options', { token: assessor.token })).body.options).toEqual(['cbt', 'ipt', 'dont_know']);
    expect((await t.api('GET', '/api/blinding/guess-options', { token: staff.therapist!.token })).status).toBe(403);
    const unknown = await t.api('POST', `/api/blinding/cases/${a!.caseId}/guess`, { token: assessor.token, body: { guess: 'placebo' } });
    expect([unknown.status, unknown.body.error]).toEqual([400, 'guess_unknown']);
    for (const [role, person] of Object.entries({ ...staff, coordinator })) {
      expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/guess`, { token: person.token, body: { guess: a!.arm } })).status, role).toBe(403);
    }
    expect(await count('select count(*) from app_public.blinding_guesses')).toBe(0);
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/guess`, { token: assessor.token, body: { guess: a!.arm } })).status).toBe(204);
    expect((await t.api('POST', `/api/blinding/cases/${a!.caseId}/guess`, { token: assessor.token, body: { guess: 'dont_know' } })).body.error).toBe('already_recorded');
    expect((await t.api('POST', `/api/blinding/cases/${b!.caseId}/assessments`, { token: assessor.token, body: { timeOfMeasurement: 'post', ptsdSeverity: 40 } })).status).toBe(201);
    expect((await t.api('POST', `/api/blinding/cases/${b!.caseId}/guess`, { token: assessor.token, body: { guess: 'dont_know' } })).status).toBe(204);
  });

  it('coordinators only: assignments, the export with the guess and Bang’s index', async () => {
    for (const [role, person] of Object.entries({ ...staff, assessor })) {
      expect((await t.api('POST', '/api/blinding/assignments', { token: person.token, body: { caseId: cases[0]!.caseId, assessorId: otherAssessor.id } })).status, role).toBe(403);
      for (const path of ['/api/blinding/assessments.csv', '/api/blinding/index', '/api/blinding/index.csv', '/api/blinding/assignments', '/api/blinding/assessors']) {
        expect((await t.api('GET', path, { token: person.token })).status, `${role} ${path}`).toBe(403);
      }
    }
    expect(await count('select count(*) from app_public.assessor_assignments where assessor_id = $1', [otherAssessor.id])).toBe(0);
    const notAssessor = await t.api('POST', '/api/blinding/assignments', { token: coordinator.token, body: { caseId: cases[0]!.caseId, assessorId: staff.therapist!.id } });
    expect([notAssessor.status, notAssessor.body.error]).toEqual([400, 'not_an_assessor']);
    const index = await t.api('GET', '/api/blinding/index', { token: coordinator.token });
    // One correct guess in the first case's arm: index 1; "don't know" in the other: index 0.
    expect(index.body.arms).toEqual(expect.arrayContaining([
      { treatment: cases[0]!.arm, guesses: 1, correct: 1, incorrect: 0, dontKnow: 0, bangIndex: 1 },
      { treatment: cases[1]!.arm, guesses: 1, correct: 0, incorrect: 0, dontKnow: 1, bangIndex: 0 },
    ]));
    const csv = await t.api('GET', '/api/blinding/assessments.csv', { token: coordinator.token });
    const rows = csvObjects(csv.body as string);
    const post = rows.find((r) => r.case_id === cases[0]!.caseId && r.time_of_measurement === 'post')!;
    expect(post).toMatchObject({ treatment: cases[0]!.arm, arm_guess: cases[0]!.arm, guess_correct: '1', bang_blinding_index_of_arm: '1', ptsd_severity: '31' });
  });

  it('a coordinator unblinds one case for its assessor with a reason; it is logged and the guess no longer counts', async () => {
    const [, b] = cases;
    const fresh = await t.user({ flags: ['patient'] });
    await t.api('POST', '/api/blinding/assignments', { token: coordinator.token, body: { caseId: fresh.caseId, assessorId: assessor.id } });
    for (const [role, person] of Object.entries({ ...staff, assessor })) {
      expect((await t.api('POST', `/api/blinding/cases/${b!.caseId}/unblind`, { token: person.token, body: { assessorId: assessor.id, reason: 'x' } })).status, role).toBe(403);
    }
    const noReason = await t.api('POST', `/api/blinding/cases/${b!.caseId}/unblind`, { token: coordinator.token, body: { assessorId: assessor.id, reason: '' } });
    expect([noReason.status, noReason.body.error]).toEqual([400, 'reason_required']);
    expect(await count(`select count(*) from app_public.unblinding_events`)).toBe(0);
    expect((await t.api('POST', `/api/blinding/cases/${b!.caseId}/unblind`, { token: coordinator.token, body: { assessorId: assessor.id, reason: 'Serious adverse event review' } })).status).toBe(204);
    const log = await t.api('GET', '/api/trial/unblindings', { token: coordinator.token });
    expect(log.body.events[0]).toMatchObject({ kind: 'case', caseId: b!.caseId, assessor: assessor.username, reason: 'Serious adverse event review' });
    const mine = (await t.api('GET', '/api/blinding/my-cases', { token: assessor.token })).body.cases as { caseId: string; unblindedArm: string | null }[];
    expect(mine.find((c) => c.caseId === b!.caseId)!.unblindedArm).toBe(b!.arm);
    expect(mine.filter((c) => c.unblindedArm !== null)).toHaveLength(1);
    // A guess after the case was shown would not be blind: refused.
    expect((await t.api('POST', `/api/blinding/cases/${fresh.caseId}/assessments`, { token: assessor.token, body: { timeOfMeasurement: 'post', ptsdSeverity: 5 } })).status).toBe(201);
    await t.api('POST', `/api/blinding/cases/${fresh.caseId}/unblind`, { token: coordinator.token, body: { assessorId: assessor.id, reason: 'Patient asked' } });
    const late = await t.api('POST', `/api/blinding/cases/${fresh.caseId}/guess`, { token: assessor.token, body: { guess: 'cbt' } });
    expect([late.status, late.body.error]).toEqual([409, 'case_unblinded']);
    expect(await count(`select count(*) from app_public.unblinding_events where kind = 'case'`)).toBe(2);
  });
});

describe('the assessor crawl', () => {
  it('no REST route, export, collection, workflow variable or GraphQL field shows the assessor anything that reveals an arm', async () => {
    // The crawl runs on the two blinded cases: take back the one unblinding of the test above.
    await pool().query('alter table app_public.unblinding_events disable trigger _010_append_only');
    await pool().query(`delete from app_public.unblinding_events where kind = 'case'`);
    await pool().query('alter table app_public.unblinding_events enable trigger _010_append_only');
    const { pattern, texts } = armRevealing();
    expect(texts.length).toBeGreaterThanOrEqual(24);
    // Per case: its trial process, a worksheet process of its arm and an open task of it.
    const ids: string[] = [...cases.map((c) => c.caseId)];
    let trialInstance = '';
    for (const c of cases) {
      const trialId = (await pool().query(`select id from app_public.workflow_instances where case_id = $1 and business_key = 'trial'`, [c.caseId])).rows[0].id;
      trialInstance ||= trialId;
      const other = (await pool().query(`select id from app_public.workflow_instances where case_id = $1 and business_key is distinct from 'trial' limit 1`, [c.caseId])).rows;
      const task = (await pool().query('select id from app_public.workflow_tasks where case_id = $1 and end_time is null order by created limit 1', [c.caseId])).rows;
      ids.push(trialId, ...other.map((r) => r.id), ...task.map((r) => r.id));
    }
    // The check has teeth: the case's therapist reads the arm in the same workflow variables.
    const therapistSees = await t.api('GET', `/api/workflow/rest/process-instance/${trialInstance}/variables`, { token: staff.therapist!.token });
    expect(pattern.test(JSON.stringify(therapistSees.body))).toBe(true);
    const answers = [
      ...(await crawlRest(t, assessor.token, { caseId: cases.map((c) => c.caseId), id: ids }, { '/api/trial/invoices': '?year=2026', '/api/trial/invoices.csv': '?year=2026' })),
      ...(await crawlGraphql(t, assessor.token, ids)),
    ];
    expect(answers.length).toBeGreaterThan(80);
    // The assessor's own page answers, and shows both cases.
    expect(answers.find((a) => a.path === 'GET /api/blinding/my-cases')?.status).toBe(200);
    const leaks: string[] = [];
    for (const answer of answers) {
      expect(answer.status, answer.path).toBeLessThan(500);
      // The guess options list the trial's arms (its public design), not a case's arm.
      if (answer.path === 'GET /api/blinding/guess-options' || answer.path.includes('blindingGuessOptions')) continue;
      if (pattern.test(answer.text)) leaks.push(`${answer.path}: ${answer.text.slice(0, 200)}`);
      for (const text of texts) if (answer.text.includes(text)) leaks.push(`${answer.path} shows "${text}"`);
    }
    expect(leaks).toEqual([]);
  }, 600_000);
});
