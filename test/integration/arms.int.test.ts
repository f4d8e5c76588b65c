/**
 * Issue 27 item 3, arms own their content (migration 0220): the arm matrix. Case A is in the CBT
 * arm, case B in the IPT arm. The CBT patient cannot write (nor read) an IPT sheet; a therapist
 * of the case may send one only with a reason, which is recorded and counted per arm; every role
 * tries the send on its own case and the other case, and a refusal changes nothing. A letter from
 * another arm's template is sent only with a reason, counted the same way.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKSHEETS, type WorksheetCode } from '../../src/domain/worksheets';
import { RAW_DATABASE_TEXT } from '../../src/domain/refusals';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, STAFF_ROLES, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people = {} as Record<CastMember, Person>;
let caseA: string, caseB: string;
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t);
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
  // Fixtures of the assignments the trial's randomization step would have made (the step's own
  // door, 0150's _050_in_step, is tested in one-door.int.test.ts).
  await withOwner(pool(), async (sql) => {
    await sql.query('alter table app_public.treatment_assignments disable trigger _050_in_step');
    await sql.query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'cbt', '*', 'blocks'), ($2, 'ipt', '*', 'blocks')`, [caseA, caseB]);
    await sql.query('alter table app_public.treatment_assignments enable trigger _050_in_step');
  });
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const UPSERT = { Prefer: 'resolution=merge-duplicates, return=representation' };

function filled(code: WorksheetCode, caseId: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const row: Record<string, unknown> = { id: randomUUID(), case_id: caseId };
  for (const field of WORKSHEETS[code].fields) row[field.name] = field.kind === 'scale' ? 5 : field.kind === 'choices' ? [] : `${field.name} text`;
  return { ...row, ...extra };
}
const postSheet = (code: WorksheetCode, body: unknown, who: CastMember) => t.api('POST', `/api/${code}`, { body, token: people[who].token, headers: UPSERT });
const stored = async (code: WorksheetCode, id: string) => (await pool().query(`select id from app_public.${code} where id = $1`, [id])).rowCount;
const sends = async () => Number((await pool().query('select count(*) as n from app_public.out_of_arm_sends')).rows[0].n);

const SEND = `mutation Send($caseId: UUID!, $worksheet: String!, $reason: String) {
  sendOutOfArmWorksheet(input: { caseId: $caseId, worksheet: $worksheet, reason: $reason }) { outOfArmSend { arm content reason } }
}`;
async function send(who: CastMember, caseId: string, worksheet: string, reason: string | null) {
  const result = await t.graphql(SEND, { caseId, worksheet, reason }, people[who].token);
  const error = result.errors?.[0];
  if (error) expect(error.message, 'no database text reaches the person').not.toMatch(RAW_DATABASE_TEXT);
  return { code: error?.extensions?.refusal as string | undefined, data: result.data?.sendOutOfArmWorksheet?.outOfArmSend };
}
async function codesFor(who: CastMember, caseId: string) {
  const result = await t.graphql('query($caseId: UUID!) { caseWorksheetCodesList(caseId: $caseId) { worksheet inArm week } }', { caseId }, people[who].token);
  return { errors: result.errors, list: result.data?.caseWorksheetCodesList as { worksheet: string; inArm: boolean; week: number | null }[] | undefined };
}

describe('arms own their worksheets', () => {
  it('the CBT patient writes CBT sheets; an IPT sheet is refused with a code and nothing is stored', async () => {
    const cbt = filled('cbt_thoughts', caseA);
    expect((await postSheet('cbt_thoughts', cbt, 'patient')).status).toBe(201);
    for (const code of ['ipt_conflicts', 'ipt_relationships', 'ipt_situations'] as const) {
      for (const extra of [{}, { published_at: '2026-01-01T00:00:00Z' }]) {
        const row = filled(code, caseA, extra);
        const answer = await postSheet(code, row, 'patient');
        expect(answer.status, code).toBe(403);
        expect(JSON.stringify(answer.body)).not.toMatch(RAW_DATABASE_TEXT);
        expect(await stored(code, row.id as string)).toBe(0);
      }
    }
    // and the IPT patient the other way round
    expect((await postSheet('ipt_conflicts', filled('ipt_conflicts', caseB), 'otherPatient')).status).toBe(201);
    expect((await postSheet('cbt_thoughts', filled('cbt_thoughts', caseB), 'otherPatient')).status).toBe(403);
  });

  it('the patient is offered their arm’s sheets only, in the order of their weeks', async () => {
    const { list } = await codesFor('patient', caseA);
    expect(list).toEqual([
      { worksheet: 'cbt_thoughts', inArm: true, week: 1 },
      { worksheet: 'cbt_reframings', inArm: true, week: 2 },
      { worksheet: 'cbt_activities', inArm: true, week: 3 },
    ]);
    expect((await codesFor('otherPatient', caseA)).errors?.[0]?.extensions?.refusal).toBe('not_involved');
  });

  it('an IPT entry written before the rule (a fixture past the policies) stays hidden from the CBT patient', async () => {
    const id = randomUUID();
    await withOwner(pool(), (sql) => sql.query(`insert into app_public.ipt_situations (id, case_id, submitter_id, situation) values ($1, $2, $3, 'old')`, [id, caseA, people.patient.id]));
    const read = await t.api('GET', `/api/ipt_situations?case_id=eq.${caseA}`, { token: people.patient.token });
    expect(read.status).toBe(200);
    expect(read.body).toEqual([]);
    await withOwner(pool(), (sql) => sql.query('delete from app_public.ipt_situations where id = $1', [id]));
  });

  it('a therapist sends an out-of-arm sheet only with a reason; without one nothing changes', async () => {
    const before = await sends();
    for (const reason of [null, '', '   ']) {
      expect((await send('therapist', caseA, 'ipt_conflicts', reason)).code).toBe('out_of_arm_reason_required');
    }
    expect(await sends()).toBe(before);
    expect((await postSheet('ipt_conflicts', filled('ipt_conflicts', caseA), 'patient')).status).toBe(403);

    const sent = await send('therapist', caseA, 'ipt_conflicts', '  The conflict with her sister dominates every session.  ');
    expect(sent.data).toEqual({ arm: 'cbt', content: 'ipt_conflicts', reason: 'The conflict with her sister dominates every session.' });
    expect(await sends()).toBe(before + 1);
    const { rows } = await pool().query('select kind, sent_by from app_public.out_of_arm_sends where case_id = $1', [caseA]);
    expect(rows).toEqual([{ kind: 'worksheet', sent_by: people.therapist.id }]);

    // now the patient has it, marked as sent from outside the arm, and may write it
    expect((await codesFor('patient', caseA)).list).toContainEqual({ worksheet: 'ipt_conflicts', inArm: false, week: null });
    expect((await postSheet('ipt_conflicts', filled('ipt_conflicts', caseA), 'patient')).status).toBe(201);
    // the other IPT sheets stay closed
    expect((await postSheet('ipt_situations', filled('ipt_situations', caseA), 'patient')).status).toBe(403);
  });

  it('a sheet of the arm or one already sent, an unknown sheet and an unrandomized case are clear refusals', async () => {
    const before = await sends();
    expect((await send('therapist', caseA, 'cbt_thoughts', 'why')).code).toBe('worksheet_already_open');
    expect((await send('therapist', caseA, 'ipt_conflicts', 'again')).code).toBe('worksheet_already_open');
    expect((await send('therapist', caseA, 'diary', 'why')).code).toBe('worksheet_unknown');
    expect((await send('therapist', caseA, 'ipt_situations', 'x'.repeat(2001))).code).toBe('out_of_arm_reason_too_long');
    const fresh = await t.user({ flags: ['patient'] });
    const { addMember } = await import('../../src/server/admin/accounts');
    await addMember(pool(), fresh.caseId!, people.therapist.username, ['therapist']);
    const unrandomized = await t.graphql(SEND, { caseId: fresh.caseId, worksheet: 'ipt_conflicts', reason: 'why' }, people.therapist.token);
    expect(unrandomized.errors?.[0]?.extensions?.refusal, JSON.stringify(unrandomized)).toBe('case_not_randomized');
    expect(await sends()).toBe(before);
  });

  it('every role, own case and other case: only the case’s therapist sends, and a refusal records nothing', async () => {
    const everyone: CastMember[] = ['patient', ...STAFF_ROLES, 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];
    for (const who of everyone) {
      for (const [caseId, sheet] of [[caseA, 'ipt_relationships'], [caseB, 'cbt_activities']] as const) {
        const mayA = who === 'therapist' && caseId === caseA;
        const mayB = who === 'otherTherapist' && caseId === caseB;
        const before = await sends();
        const answer = await send(who, caseId, sheet, `reason of ${who}`);
        const label = `${who} → ${caseId === caseA ? 'A' : 'B'}`;
        if (mayA || mayB) {
          expect(answer.data?.content, label).toBe(sheet);
          expect(await sends(), label).toBe(before + 1);
        } else {
          expect(answer.code, label).toBe('not_case_therapist');
          expect(await sends(), label).toBe(before);
        }
      }
    }
  });

  it('no one writes the contamination record directly', async () => {
    const before = await sends();
    const answer = await t.api('POST', '/api/out_of_arm_sends', { body: { case_id: caseA, arm: 'cbt', kind: 'worksheet', content: 'ipt_situations', reason: 'x' }, token: people.therapist.token });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    const gql = await t.graphql(`mutation { createOutOfArmSend(input: { outOfArmSend: { caseId: "${caseA}", arm: "cbt", kind: "worksheet", content: "ipt_situations", reason: "x" } }) { clientMutationId } }`, {}, people.therapist.token);
    expect(gql.errors?.length).toBeGreaterThan(0);
    expect(await sends()).toBe(before);
  });
});

describe('arms own their letters', () => {
  let iptTemplate: string, cbtTemplate: string;
  beforeAll(async () => {
    const insert = (code: string, treatment: string) =>
      withOwner(pool(), (sql) =>
        sql.query<{ id: string }>(
          `insert into app_public.content_templates (type, code, language_code, title, subject, content, treatment_code)
           values ('LETTER', $1, 'en', 'Week', 'Your week', 'Dear {{patient_alias}}, …', $2) returning id`,
          [code, treatment],
        ),
      ).then((r) => r.rows[0]!.id);
    iptTemplate = await insert('armsIpt', 'IPT');
    cbtTemplate = await insert('armsCbt', 'CBT');
  });
  const letter = (body: Record<string, unknown>, who: CastMember) => t.api('POST', '/api/letters', { body, token: people[who].token, headers: UPSERT });

  it('a letter from the arm’s own template is sent as before; one from another arm’s needs a reason', async () => {
    const before = await sends();
    const own = { id: randomUUID(), case_id: caseA, template_id: cbtTemplate };
    expect((await letter(own, 'therapist')).status).toBe(201);
    expect((await letter({ ...own, body: 'Dear Rim', published_at: '2026-01-01T00:00:00Z' }, 'therapist')).status).toBe(201);
    expect(await sends()).toBe(before);

    const other = { id: randomUUID(), case_id: caseA, template_id: iptTemplate };
    expect((await letter(other, 'therapist')).status).toBe(201); // a draft needs no reason yet
    const refused = await letter({ ...other, body: 'Dear Rim', published_at: '2026-01-01T00:00:00Z' }, 'therapist');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('out_of_arm_reason_required');
    expect((await pool().query('select published_at from app_public.letters where id = $1', [other.id])).rows[0].published_at).toBeNull();
    expect(await sends()).toBe(before);

    const sent = await letter({ ...other, body: 'Dear Rim', published_at: '2026-01-01T00:00:00Z', out_of_arm_reason: 'Grief after her father died' }, 'therapist');
    expect(sent.status).toBe(201);
    const { rows } = await pool().query(`select arm, kind, content, reason from app_public.out_of_arm_sends where kind = 'letter'`);
    expect(rows).toEqual([{ arm: 'cbt', kind: 'letter', content: 'IPT', reason: 'Grief after her father died' }]);
  });

  it('the letter screen learns before sending whether the letter needs a reason (0270), and only the case’s people may ask', async () => {
    const ask = (id: string, who: CastMember) => t.graphql('query($id: UUID!) { letterOtherArm(letterId: $id) }', { id }, people[who].token);
    const own = { id: randomUUID(), case_id: caseA, template_id: cbtTemplate };
    const other = { id: randomUUID(), case_id: caseA, template_id: iptTemplate };
    for (const draft of [own, other]) expect((await letter(draft, 'therapist')).status).toBe(201);
    expect((await ask(own.id, 'therapist')).data?.letterOtherArm).toBeNull();
    expect((await ask(other.id, 'therapist')).data?.letterOtherArm).toBe('IPT');
    expect((await ask(other.id, 'coordinator')).data?.letterOtherArm).toBe('IPT');
    for (const who of ['otherTherapist', 'otherPatient', 'outsider'] as const) {
      const refused = await ask(other.id, who);
      expect(refused.errors?.[0]?.extensions?.refusal, who).toBe('not_involved');
      expect(JSON.stringify(refused)).not.toMatch(RAW_DATABASE_TEXT);
    }
  });
});

describe('the contamination report', () => {
  it('counts the out-of-arm sends per arm for coordinators, and for nobody else', async () => {
    const query = 'query { armContaminationList { arm randomized sends cases worksheets letters } }';
    const report = await t.graphql(query, {}, people.coordinator.token);
    expect(report.errors).toBeUndefined();
    expect(report.data.armContaminationList).toEqual([
      // case A (CBT): ipt_conflicts, ipt_relationships and the IPT letter; case B (IPT): cbt_activities
      { arm: 'cbt', randomized: 1, sends: 3, cases: 1, worksheets: 2, letters: 1 },
      { arm: 'ipt', randomized: 1, sends: 1, cases: 1, worksheets: 1, letters: 0 },
    ]);
    for (const who of ['patient', 'therapist', 'supervisor', 'outsider'] as const) {
      const refused = await t.graphql(query, {}, people[who].token);
      expect(refused.errors?.[0]?.extensions?.refusal, who).toBe('forbidden');
    }
  });
});

describe('the contamination export', () => {
  it('lists every out-of-arm send with its reason for coordinators only', async () => {
    const csv = await t.api('GET', '/api/trial/out-of-arm.csv', { token: people.coordinator.token });
    expect(csv.status).toBe(200);
    const text = csv.body as string;
    const lines = text.trim().split(/\r?\n/);
    expect(lines[0]).toBe('case_id,arm,kind,content,reason,sent_at');
    expect(lines).toHaveLength(5);
    expect(text).toContain('Grief after her father died');
    expect((await t.api('GET', '/api/trial/out-of-arm.csv', { token: people.therapist.token })).status).toBe(403);
  });
});
