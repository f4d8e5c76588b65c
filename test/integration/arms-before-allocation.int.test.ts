/**
 * Issue 27 item 3, the rule for cases without an arm (migration 0270): a case in the trial before
 * its allocation (screening, interview) gets no worksheet at all; a counseling case and a case
 * outside the trial (registration) get every sheet; a randomized case its arm's. Every role tries
 * every sheet on its own case and the other case; a refusal says why by its code and stores
 * nothing; the list of sheets offered follows the same rule.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RAW_DATABASE_TEXT } from '../../src/domain/refusals';
import { WORKSHEET_CODES, WORKSHEETS, type WorksheetCode } from '../../src/domain/worksheets';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, STAFF_ROLES, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
const people = {} as Record<CastMember, Person>;
let caseA: string, caseB: string;
const pool = () => t.database.db.pool;
const EVERYONE: CastMember[] = ['patient', ...STAFF_ROLES, 'coordinator', 'outsider', 'otherPatient', 'otherTherapist'];

beforeAll(async () => {
  t = await startTestApp();
  const cast = await castOfRoles(t);
  Object.assign(people, cast.people);
  ({ caseA, caseB } = cast);
}, 120_000);
afterAll(async () => {
  await t?.close();
});

const setStage = (caseId: string, stage: string) => withOwner(pool(), (sql) => sql.query('update app_public.cases set stage = $2 where id = $1', [caseId, stage]));
const UPSERT = { Prefer: 'resolution=merge-duplicates, return=representation' };

function filled(code: WorksheetCode, caseId: string): Record<string, unknown> {
  const row: Record<string, unknown> = { id: randomUUID(), case_id: caseId };
  for (const field of WORKSHEETS[code].fields) row[field.name] = field.kind === 'scale' ? 5 : field.kind === 'choices' ? [] : `${field.name} text`;
  return row;
}

/** Every sheet written by `who` into `caseId`: the code of each refusal (or 'stored'), and how many rows exist after. */
async function writeEverySheet(who: CastMember, caseId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const code of WORKSHEET_CODES) {
    const row = filled(code, caseId);
    const answer = await t.api('POST', `/api/${code}`, { body: row, token: people[who].token, headers: UPSERT });
    expect(JSON.stringify(answer.body ?? null), `${who} ${code}`).not.toMatch(RAW_DATABASE_TEXT);
    expect(answer.status, `${who} ${code}`).toBeLessThan(500);
    const kept = (await pool().query(`select 1 from app_public.${code} where id = $1`, [row.id])).rowCount;
    if (answer.status === 201) {
      expect(kept, `${who} ${code} stored`).toBe(1);
      out[code] = 'stored';
    } else {
      expect(kept, `${who} ${code}: a refusal stores nothing`).toBe(0);
      out[code] = String(answer.body?.error ?? answer.status);
    }
  }
  return out;
}

async function offered(who: CastMember, caseId: string): Promise<string[]> {
  const result = await t.graphql('query($caseId: UUID!) { caseWorksheetCodesList(caseId: $caseId) { worksheet } }', { caseId }, people[who].token);
  expect(result.errors, who).toBeUndefined();
  return (result.data.caseWorksheetCodesList as { worksheet: string }[]).map((r) => r.worksheet).sort();
}

const all = (value: string) => Object.fromEntries(WORKSHEET_CODES.map((code) => [code, value]));

describe('worksheets follow the allocation', () => {
  it('before the allocation (screening, interview): nobody writes any sheet; the patient is told why', async () => {
    for (const stage of ['screening', 'interview']) {
      await setStage(caseA, stage);
      await setStage(caseB, stage);
      for (const who of EVERYONE) {
        for (const caseId of [caseA, caseB]) {
          const own = (who === 'patient' && caseId === caseA) || (who === 'otherPatient' && caseId === caseB);
          const answers = await writeEverySheet(who, caseId);
          // The case's patient reads the reason; everyone else is simply not allowed to write.
          expect(answers, `${stage} ${who} → ${caseId === caseA ? 'A' : 'B'}`).toEqual(all(own ? 'worksheets_after_allocation' : 'forbidden'));
        }
      }
      expect(await offered('patient', caseA), stage).toEqual([]);
      expect(await offered('therapist', caseA), stage).toEqual([]);
    }
  });

  it('on counseling and outside the trial: the patient writes every sheet, nobody else any', async () => {
    for (const stage of ['counseling', 'registration']) {
      await setStage(caseA, stage);
      await setStage(caseB, stage);
      for (const who of EVERYONE) {
        for (const caseId of [caseA, caseB]) {
          const own = (who === 'patient' && caseId === caseA) || (who === 'otherPatient' && caseId === caseB);
          expect(await writeEverySheet(who, caseId), `${stage} ${who} → ${caseId === caseA ? 'A' : 'B'}`).toEqual(all(own ? 'stored' : 'forbidden'));
        }
      }
      expect(await offered('patient', caseA), stage).toEqual([...WORKSHEET_CODES].sort());
    }
  });

  it('once randomized: the arm’s sheets only, and another arm’s sheet is refused by its own code', async () => {
    await setStage(caseA, 'treatment');
    await withOwner(pool(), async (sql) => {
      await sql.query('alter table app_public.treatment_assignments disable trigger _050_in_step');
      await sql.query(`insert into app_public.treatment_assignments (case_id, treatment, stratum, method) values ($1, 'ipt', '*', 'blocks')`, [caseA]);
      await sql.query('alter table app_public.treatment_assignments enable trigger _050_in_step');
    });
    const answers = await writeEverySheet('patient', caseA);
    expect(answers).toEqual(Object.fromEntries(WORKSHEET_CODES.map((code) => [code, code.startsWith('ipt_') ? 'stored' : 'worksheet_not_in_arm'])));
    expect(await offered('patient', caseA)).toEqual(['ipt_conflicts', 'ipt_relationships', 'ipt_situations']);
    for (const who of EVERYONE.filter((w) => w !== 'patient')) expect(await writeEverySheet(who, caseA), who).toEqual(all('forbidden'));
  });
});
