/**
 * Issue 30, item 2: the case audit log, the access log and the account log are hash-chained by
 * the database on insert, concurrent appends keep every chain intact, and `verify-audit`
 * recomputes every hash and names the first broken link after a row was changed, deleted or
 * inserted at the database by its owner (the append-only triggers bypassed).
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError, runCommand } from '../../src/server/cli/commands';
import { chainHash, describeVerdicts, GENESIS, verifyChains } from '../../src/server/integrity/chains';
import { startTestApp, type TestApp } from '../helpers/app';
import { castOfRoles, type CastMember } from '../helpers/people';
import type { Person } from '../helpers/trial';

let t: TestApp;
let pool: pg.Pool;
let people: Record<CastMember, Person>;
let caseA: string;

beforeAll(async () => {
  t = await startTestApp();
  pool = t.database.db.pool;
  ({ people, caseA } = await castOfRoles(t));
  await t.graphql(`query($id: UUID!) { caseById(id: $id) { id } }`, { id: caseA }, people.therapist.token);
});
afterAll(async () => {
  await t?.close();
});

/** Runs statements as the owner with the append-only and chain triggers off (a superuser's bypass). */
async function tamper(...statements: [string, unknown[]?][]): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query('set local session_replication_role = replica');
    for (const [text, values] of statements) await client.query(text, values ?? []);
    await client.query('commit');
  } finally {
    client.release();
  }
}

const verdictOf = async (log: string) => (await verifyChains(pool)).find((v) => v.log === log)!;

async function cli(): Promise<{ lines: string[]; error?: unknown }> {
  const lines: string[] = [];
  try {
    await runCommand(['verify-audit'], { db: t.database.db, out: (line) => lines.push(line) });
    return { lines };
  } catch (error) {
    return { lines, error };
  }
}

describe('chaining on insert', () => {
  it('every row carries its link, computed by the database and recomputable from its columns', async () => {
    const { rows } = await pool.query<{ chain: string; chain_seq: string; prev_hash: string; row_hash: string; id: string; micros: string; reader_id: string; record_kind: string; api: string; case_ids: string }>(
      `select chain, chain_seq::text, prev_hash, row_hash, id::text, (extract(epoch from at) * 1000000)::bigint::text as micros,
              reader_id::text, record_kind, api, case_ids::text from app_public.access_log order by chain_seq limit 1`,
    );
    const first = rows[0]!;
    expect(first).toMatchObject({ chain: 'all', chain_seq: '1', prev_hash: GENESIS });
    expect(chainHash(first.prev_hash, [first.chain, first.chain_seq, first.id, first.micros, first.reader_id, first.record_kind, first.api, first.case_ids])).toBe(first.row_hash);
  });

  it('a caller cannot choose the link: values sent for the chain columns are replaced', async () => {
    await pool.query(`insert into app_public.account_log (user_id, event, chain, chain_seq, prev_hash, row_hash) values ($1, 'sign_in', 'forged', 1, 'x', 'y')`, [people.patient.id]);
    const { rows } = await pool.query(`select chain, row_hash from app_public.account_log order by id desc limit 1`);
    expect(rows[0]).not.toMatchObject({ chain: 'forged' });
    expect(rows[0].row_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('concurrent appends from many requests keep every chain intact', async () => {
    const readers: CastMember[] = ['therapist', 'supervisor', 'interviewer', 'supporter', 'counselor', 'coordinator'];
    await Promise.all(
      Array.from({ length: 24 }, (_, i) => {
        const who = people[readers[i % readers.length]!];
        return i % 3 === 0
          ? t.api('POST', '/api/auth/tokens', { body: { username: who.username, password: i % 2 ? who.password : 'wrong password here' } })
          : t.graphql(`query($id: UUID!) { caseById(id: $id) { id stage } }`, { id: caseA }, who.token);
      }),
    );
    const { ok, lines } = describeVerdicts(await verifyChains(pool));
    expect(lines.join('\n')).not.toContain('BROKEN');
    expect(ok).toBe(true);
    const run = await cli();
    expect(run.error).toBeUndefined();
    // case audit log, access log, account log and (issue 30) the signature manifests
    expect(run.lines).toHaveLength(4);
    expect(run.lines[0]).toMatch(/^case audit log: intact \(\d+ rows in \d+ chains\)$/);
  });
});

describe('verify-audit finds tampering', () => {
  it('names a changed row of the case audit log', async () => {
    const { rows } = await pool.query<{ id: string }>(`select id::text from app_public.audit_log where case_id = $1 order by chain_seq limit 1 offset 1`, [caseA]);
    const id = rows[0]!.id;
    await tamper([`update app_public.audit_log set new_data = new_data || '{"title": "rewritten"}' where id = $1`, [id]]);
    const verdict = await verdictOf('case audit log');
    expect(verdict.breaks[0]).toMatchObject({ kind: 'changed', id, chain: caseA });
    const run = await cli();
    expect(run.error).toBeInstanceOf(CliError);
    expect(run.lines[0]).toContain(`First broken link: row ${id}`);
    expect(run.lines[0]).toContain('was changed after it was written');
  });

  it('names a deleted row of the access log', async () => {
    const { rows } = await pool.query<{ id: string; chain_seq: string }>(`select id::text, chain_seq::text from app_public.access_log order by chain_seq limit 1 offset 2`);
    await tamper([`delete from app_public.access_log where id = $1`, [rows[0]!.id]]);
    const verdict = await verdictOf('access log');
    const seq = Number(rows[0]!.chain_seq);
    expect(verdict.breaks[0]).toMatchObject({ kind: 'missing', seq: seq + 1 });
    expect(verdict.breaks[0]!.message).toContain(`link(s) ${seq}–${seq}`);
  });

  it('names a row inserted into the account log, with or without a forged link', async () => {
    const { rows } = await pool.query<{ chain_seq: string; prev_hash: string }>(`select chain_seq::text, prev_hash from app_public.account_log order by chain_seq limit 1 offset 3`);
    await tamper([
      `insert into app_public.account_log (user_id, event, chain, chain_seq, prev_hash, row_hash) values ($1, 'sign_in', 'all', $2, $3, repeat('a', 64))`,
      [people.coordinator.id, rows[0]!.chain_seq, rows[0]!.prev_hash],
    ]);
    let verdict = await verdictOf('account log');
    expect(verdict.breaks[0]).toMatchObject({ kind: 'inserted', seq: Number(rows[0]!.chain_seq) });
    await tamper([`insert into app_public.account_log (user_id, event) values ($1, 'sign_in')`, [people.coordinator.id]]);
    verdict = await verdictOf('account log');
    expect(verdict.breaks.some((b) => b.kind === 'unchained')).toBe(true);
  });

  it('names rows deleted from the end of a chain', async () => {
    const { rows } = await pool.query<{ id: string; chain: string }>(`select id::text, chain from app_public.audit_log where case_id is null order by chain, chain_seq desc limit 1`);
    await tamper([`delete from app_public.audit_log where id = $1`, [rows[0]!.id]]);
    const verdict = await verdictOf('case audit log');
    expect(verdict.breaks.some((b) => b.kind === 'missing' && b.chain === rows[0]!.chain && b.message.includes('the last 1 row(s)'))).toBe(true);
  });
});
