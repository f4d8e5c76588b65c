/**
 * Verifiable concealed allocation (issue 30 item 5): the commitment fixed at configuration and
 * published at go-live, the role matrix of go-live, unblinding and the unblinding log, the
 * verifier on real draws of the database (through the trial's randomization step, and in bulk),
 * a tampered table and a changed assignment reported by case code, and a crawl of every read
 * path that finds no future allocation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitmentOf, derivedTickets, parametersText, type AllocationParameters } from '../../src/domain/allocation-verify';
import { addMember } from '../../src/server/admin/accounts';
import { runCommand } from '../../src/server/cli/commands';
import { withOwnerAs } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';
import { crawlGraphql, crawlRest } from '../helpers/crawl';
import { trialDriver, type Person } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
let coordinator: Person;
const others: Record<string, Person> = {};
let realCase: string;
const pool = () => t.database.db.pool;
const ARMS = [{ code: 'cbt', ratio: 1 }, { code: 'ipt', ratio: 1 }];
const GENDERS = ['FEMALE', 'MALE', 'DIVERSE'] as const;

async function cli(args: string[]): Promise<{ lines: string[]; error?: Error }> {
  const lines: string[] = [];
  try {
    await runCommand(args, { db: t.database.db, out: (line) => lines.push(line) });
    return { lines };
  } catch (error) {
    return { lines, error: error as Error };
  }
}

async function count(sql: string): Promise<number> {
  return Number((await pool().query(sql)).rows[0].count);
}

/**
 * `n` accepted cases drawn by app_public.randomize_case itself, as the coordinator, in bulk: the
 * cases are written directly (a patient with a gender, an accepted trial instance) and the
 * randomization-step trigger of 0150 is off for this transaction only, because driving 1,000
 * processes through the interview would measure the workflow, not the allocation.
 */
async function drawInBulk(n: number): Promise<void> {
  await withOwnerAs(pool(), coordinator.id, async (sql) => {
    const definition = (await sql.query(`select key, version from app_private.workflow_definitions where key = 'trial' order by version desc limit 1`)).rows[0];
    await sql.query('alter table app_public.treatment_assignments disable trigger _050_in_step');
    const suffix = Math.random().toString(36).slice(2, 7);
    for (let i = 0; i < n; i++) {
      const user = await sql.query(
        `insert into app_public.users (username, email, gender, is_patient_account, agreed_to_terms, agreed_to_privacy_policy, confirmed_adult)
         values ($1, $2, $3, true, true, true, true) returning id`,
        [`bulk${i}_${suffix}`, `bulk${i}_${suffix}@example.org`, GENDERS[i % 3]],
      );
      const created = await sql.query(`insert into app_public.cases (stage) values ('randomization') returning id`);
      const caseId = created.rows[0].id;
      await sql.query('insert into app_public.case_members (case_id, user_id, acts_as_patient) values ($1, $2, true)', [caseId, user.rows[0].id]);
      await sql.query(
        `insert into app_public.workflow_instances (definition_key, definition_version, business_key, case_id, state, start_time, end_time, variables)
         values ($1, $2, 'trial', $3, 'COMPLETED', now(), now(), $4)`,
        [definition.key, definition.version, caseId, JSON.stringify({ outcome: { value: i % 5 === 0 ? 'depression' : 'ptsd', type: 'String' } })],
      );
      await sql.query('select app_public.randomize_case($1)', [caseId]);
    }
    await sql.query('alter table app_public.treatment_assignments enable trigger _050_in_step');
  });
}

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'] });
  for (const role of ['therapist', 'interviewer', 'supervisor', 'supporter', 'counselor'] as const) {
    others[role] = await t.user({ flags: [role] });
  }
  const patient = await t.user({ flags: ['patient'], gender: 'FEMALE' });
  others.patient = patient;
  realCase = patient.caseId!;
  await addMember(pool(), realCase, others.interviewer!.username, ['interviewer']);
  await addMember(pool(), realCase, others.therapist!.username, ['therapist']);
});

afterAll(async () => {
  await t?.close();
});

describe('commitment at configuration and go-live', () => {
  it('configuration returns the commitment; it is the hash of the parameters, the seed and the sequence', async () => {
    const created = await t.api('POST', '/api/trial/allocation', {
      token: coordinator.token,
      body: { method: 'minimization', arms: ARMS, factors: ['gender', 'problem'], probability: 0.8, ticketsPerStratum: 1200 },
    });
    expect(created.status).toBe(201);
    expect(created.body.commitment).toMatch(/^[0-9a-f]{64}$/);
    const shown = await t.api('GET', '/api/trial/allocation/commitment', { token: coordinator.token });
    expect(shown.status).toBe(200);
    expect(shown.body.allocation).toMatchObject({ commitment: created.body.commitment, fixedAt: null, revealedAt: null, seed: null });
    const parameters = JSON.parse(shown.body.allocation.parameters) as AllocationParameters;
    expect(parameters).toEqual({ method: 'minimization', arms: ARMS, factors: ['gender', 'problem'], settings: { probability: 0.8, ticketsPerStratum: 1200 } });
    // Recomputed from what the database holds, the commitment is the one shown.
    const seed = (await pool().query('select seed from app_private.allocation_config')).rows[0].seed;
    expect(commitmentOf(parameters, seed, derivedTickets(parameters, seed)!)).toBe(created.body.commitment);
    expect(parametersText(parameters)).toBe(shown.body.allocation.parameters);
  });

  it('role matrix: only a coordinator reads the commitment, fixes, unblinds or reads the log; a refusal changes nothing', async () => {
    for (const [role, person] of Object.entries(others)) {
      expect((await t.api('GET', '/api/trial/allocation/commitment', { token: person.token })).status, role).toBe(403);
      expect((await t.api('POST', '/api/trial/allocation/fix', { token: person.token })).status, role).toBe(403);
      expect((await t.api('POST', '/api/trial/allocation/unblind', { token: person.token, body: { reason: 'curious' } })).status, role).toBe(403);
      expect((await t.api('GET', '/api/trial/unblindings', { token: person.token })).status, role).toBe(403);
    }
    expect((await t.api('GET', '/api/trial/allocation/commitment')).status).toBe(401);
    expect(await count('select count(*) from app_private.allocation_config where fixed_at is not null or revealed_at is not null')).toBe(0);
    expect(await count('select count(*) from app_public.unblinding_events')).toBe(0);
  });

  it('unblinding before go-live is refused; go-live fixes the allocation against re-configuration', async () => {
    const early = await t.api('POST', '/api/trial/allocation/unblind', { token: coordinator.token, body: { reason: 'end of trial' } });
    expect([early.status, early.body.error]).toEqual([409, 'allocation_not_fixed']);
    const fixed = await t.api('POST', '/api/trial/allocation/fix', { token: coordinator.token });
    expect(fixed.status).toBe(200);
    expect(fixed.body.allocation.fixedAt).toBeTruthy();
    expect(fixed.body.allocation.fixedBy).toBe(coordinator.username);
    const again = await t.api('POST', '/api/trial/allocation', { token: coordinator.token, body: { method: 'blocks', arms: ARMS } });
    expect([again.status, again.body.error]).toEqual([409, 'allocation_fixed']);
  });
});

describe('drawing, unblinding and verify-allocation', () => {
  it('a draw through the trial step records its ticket; verifying before unblinding is refused', async () => {
    await trial.atRandomization(realCase, others.interviewer!, 'ptsd');
    const drawn = await t.api('POST', `/api/trial/cases/${realCase}/randomize`, { token: coordinator.token });
    expect(drawn.status).toBe(201);
    const row = (await pool().query('select allocation_position from app_public.treatment_assignments where case_id = $1', [realCase])).rows[0];
    expect(row.allocation_position).toBe(1);
    const refused = await cli(['verify-allocation']);
    expect(refused.error?.message).toMatch(/not unblinded yet/);
  });

  it('1,000 draws of the database verify against the revealed seed; the unblinding is logged with its reason', async () => {
    await drawInBulk(1000);
    expect(await count('select count(*) from app_public.treatment_assignments')).toBe(1001);
    const missing = await t.api('POST', '/api/trial/allocation/unblind', { token: coordinator.token, body: { reason: ' ' } });
    expect([missing.status, missing.body.error]).toEqual([400, 'reason_required']);
    const revealed = await t.api('POST', '/api/trial/allocation/unblind', { token: coordinator.token, body: { reason: 'Primary analysis completed' } });
    expect(revealed.status).toBe(200);
    expect(revealed.body.allocation.seed).toMatch(/^[0-9a-f]{64}$/);
    const log = await t.api('GET', '/api/trial/unblindings', { token: coordinator.token });
    expect(log.body.events).toEqual([expect.objectContaining({ kind: 'allocation', reason: 'Primary analysis completed', unblindedBy: coordinator.username })]);
    expect((await t.api('POST', '/api/trial/allocation/unblind', { token: coordinator.token, body: { reason: 'again' } })).body.error).toBe('already_unblinded');
    const verified = await cli(['verify-allocation']);
    expect(verified.error).toBeUndefined();
    expect(verified.lines.join('\n')).toMatch(/1001 assignments checked/);
    // The published commitment and the seed given by hand, as a monitor runs it.
    const published = revealed.body.allocation.commitment;
    expect((await cli(['verify-allocation', '--seed', revealed.body.allocation.seed, '--commitment', published])).error).toBeUndefined();
    const wrongSeed = await cli(['verify-allocation', '--seed', '0'.repeat(64), '--commitment', published]);
    expect(wrongSeed.error?.message).toMatch(/does not match/);
  }, 300_000);

  it('no role can change or delete an unblinding (not even the owner)', async () => {
    await expect(pool().query(`update app_public.unblinding_events set reason = 'x'`)).rejects.toThrow(/append-only/);
    await expect(pool().query('delete from app_public.unblinding_events')).rejects.toThrow(/append-only/);
    await expect(withOwnerAs(pool(), coordinator.id, (sql) => sql.query('set local role sanad_user; delete from app_public.unblinding_events'))).rejects.toThrow();
    expect(await count('select count(*) from app_public.unblinding_events')).toBe(1);
  });

  it('a changed assignment is named by its case code; a tampered ticket is reported', async () => {
    const victim = (await pool().query(
      `select a.case_id, app_public.cases_short_id(c) as code, a.treatment from app_public.treatment_assignments a join app_public.cases c on c.id = a.case_id
        where a.allocation_position = 150`,
    )).rows[0];
    await pool().query(`update app_public.treatment_assignments set treatment = $2 where case_id = $1`, [victim.case_id, victim.treatment === 'cbt' ? 'ipt' : 'cbt']);
    const changed = await cli(['verify-allocation']);
    expect(changed.error?.message).toMatch(/does not match/);
    // Minimization counts earlier arms, so later draws differ too; the first mismatch is the changed case.
    expect(changed.lines.find((l) => l.startsWith('MISMATCH'))).toContain(`Case ${victim.code}: assigned`);
    await pool().query(`update app_public.treatment_assignments set treatment = $2 where case_id = $1`, [victim.case_id, victim.treatment]);
    // A future ticket changed at the database: the seed's sequence differs from the stored one.
    await pool().query(`update app_private.allocation_tickets set random1 = 0.001 where position = 1100`);
    const tampered = await cli(['verify-allocation']);
    expect(tampered.lines.some((l) => /MISMATCH The stored ticket 1100/.test(l))).toBe(true);
    await pool().query(`update app_private.allocation_tickets set random1 = 0.5 where position = 1100`);
  });
});

describe('no read path reveals a future allocation', () => {
  it('the seed and the undrawn tickets appear in no REST route, collection, export, workflow variable or GraphQL field, for any role', async () => {
    // A fresh, unrevealed allocation would be the real case; here the test knows what is secret.
    const { rows: [config] } = await pool().query('select seed from app_private.allocation_config');
    const future = (await pool().query(`select random1, random2 from app_private.allocation_tickets where case_id is null order by position limit 20`)).rows;
    const secrets = [config.seed, ...future.flatMap((r) => [String(r.random1), String(r.random2)])];
    const processIds = (await pool().query('select id from app_public.workflow_instances where case_id = $1', [realCase])).rows.map((r) => r.id);
    const taskIds = (await pool().query('select id from app_public.workflow_tasks where case_id = $1', [realCase])).rows.map((r) => r.id);
    const values = { caseId: [realCase], id: [...processIds, ...taskIds] };
    // Before unblinding the seed is hidden from coordinators as well: drop the reveal for the crawl.
    await pool().query('alter table app_private.allocation_config disable trigger all');
    const revealedAt = (await pool().query('select revealed_at from app_private.allocation_config')).rows[0].revealed_at;
    await pool().query('update app_private.allocation_config set revealed_at = null');
    try {
      // The coordinator sees most; the case's therapist and patient see the case's own records.
      for (const person of [coordinator, others.therapist!, others.patient!]) {
        const answers = [
          ...(await crawlRest(t, person.token, values, { '/api/trial/invoices': '?year=2026', '/api/trial/invoices.csv': '?year=2026' })),
          ...(await crawlGraphql(t, person.token, [realCase, ...processIds])),
        ];
        expect(answers.length).toBeGreaterThan(60);
        for (const answer of answers) {
          expect(answer.status, answer.path).toBeLessThan(500);
          for (const secret of secrets) expect(answer.text.includes(secret), `${person.username} ${answer.path}`).toBe(false);
          expect(answer.text, answer.path).not.toMatch(/random1|random2|allocation_tickets|"seed":"[0-9a-f]/);
        }
      }
    } finally {
      await pool().query('update app_private.allocation_config set revealed_at = $1', [revealedAt]);
      await pool().query('alter table app_private.allocation_config enable trigger all');
    }
  }, 240_000);

  it('no request role holds a privilege on the concealed tables, and only the known functions read them', async () => {
    for (const table of ['allocation_config', 'allocation_tickets', 'allocation_counters']) {
      const { rows } = await pool().query(`select has_table_privilege('sanad_user', 'app_private.' || $1, 'select') as can`, [table]);
      expect(rows[0].can, table).toBe(false);
    }
    const { rows } = await pool().query(
      `select p.oid::regprocedure::text as name from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname in ('app_public', 'app_hidden') and p.prosrc ~ 'allocation_tickets|allocation_config'
          and has_function_privilege('sanad_user', p.oid, 'execute') order by 1`,
    );
    // Each of these returns no ticket and no seed (the seed only after unblinding, to coordinators).
    expect(rows.map((r) => r.name)).toEqual([
      'app_hidden.configure_committed_allocation(text,jsonb,text[],jsonb,text,jsonb,text,text)',
      'app_hidden.fix_allocation()',
      'app_hidden.reveal_allocation(text)',
      'app_public.allocation_commitment()',
      'app_public.allocation_summary()',
      // the arm codes only (the trial's public design), for the blinded assessor's guess (0241)
      'app_public.blinding_guess_options()',
      'app_public.cases_randomization_check(app_public.cases)',
    ]);
  });
});
