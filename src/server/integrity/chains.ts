/**
 * Verifying the hash chains of the case audit log, the access log and the account log
 * (issue 30; migration 0181 says how rows are chained). The rows are read as raw column text
 * and every hash is recomputed here, in TypeScript, from those columns: a monitor needs to trust
 * PostgreSQL's own text output of a value, never a function of the server's schema.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { withOwner } from '../db/transaction';

export const GENESIS = '0'.repeat(64);

/** One field of the hashed text: N for null, else S<octets>:<text>. */
export function chainField(value: string | null): string {
  return value === null ? 'N' : `S${Buffer.byteLength(value, 'utf8')}:${value}`;
}

export function chainHash(prevHash: string, fields: readonly (string | null)[]): string {
  return crypto.createHash('sha256').update(prevHash + fields.map(chainField).join(''), 'utf8').digest('hex');
}

interface ChainedLog {
  /** The table in app_public and its name in app_private.log_chain_heads. */
  table: 'audit_log' | 'access_log' | 'account_log' | 'signatures';
  /** What people call it in the report. */
  title: string;
  /** The hashed columns after chain, chain_seq and id, in order, as SQL giving text. */
  columns: string[];
  /** The chain a row belongs in, as SQL giving text. */
  chainOf: string;
  /** The type of its id column (the keyset of the batches); bigint unless said. */
  idType?: 'bigint' | 'uuid';
}

const MICROS = `(extract(epoch from at) * 1000000)::bigint::text`;

export const CHAINED_LOGS: readonly ChainedLog[] = [
  {
    table: 'audit_log',
    title: 'case audit log',
    columns: [MICROS, 'actor_id::text', 'actor_role', 'table_name', 'operation', 'record_id::text', 'case_id::text', 'old_data::text', 'new_data::text'],
    chainOf: `coalesce(case_id::text, 'table:' || table_name)`,
  },
  { table: 'access_log', title: 'access log', columns: [MICROS, 'reader_id::text', 'record_kind', 'api', 'case_ids::text'], chainOf: `'all'` },
  { table: 'account_log', title: 'account log', columns: [MICROS, 'user_id::text', 'actor_id::text', 'event', 'detail::text', 'address'], chainOf: `'all'` },
  // Issue 30 item 3 (migration 0260): the e-signature manifests.
  {
    table: 'signatures',
    title: 'signature manifests',
    columns: [MICROS, 'signer_id::text', 'printed_name', 'act', 'meaning', 'case_id::text', 'record_kind', 'record_id::text', 'content_hash'],
    chainOf: `'all'`,
    idType: 'uuid',
  },
];

export type BreakKind = 'changed' | 'missing' | 'inserted' | 'unchained' | 'moved' | 'head';

export interface ChainBreak {
  log: string;
  chain: string | null;
  id: string | null;
  seq: number | null;
  kind: BreakKind;
  message: string;
}

export interface LogVerdict {
  log: string;
  rows: number;
  chains: number;
  breaks: ChainBreak[];
}

interface Row {
  id: string;
  chain: string | null;
  chain_seq: string | null;
  prev_hash: string | null;
  row_hash: string | null;
  expected_chain: string;
  fields: (string | null)[];
  /** For an audit row whose identifiers were erased (issue 31): its hash as recorded then. */
  redacted_hash: string | null;
}

const BATCH = 5000;

/** Reads a log's rows in chain order, in batches (keyset), and checks every link. */
async function verifyLog(sql: pg.PoolClient, log: ChainedLog): Promise<LogVerdict> {
  const breaks: ChainBreak[] = [];
  const report = (row: Row | null, chain: string | null, kind: BreakKind, message: string) =>
    breaks.push({ log: log.title, chain, id: row?.id ?? null, seq: row?.chain_seq === null || row === null ? null : Number(row.chain_seq), kind, message });
  const heads = new Map<string, { seq: number; hash: string }>();
  for (const head of (await sql.query<{ chain: string; seq: string; hash: string }>('select chain, seq::text, hash from app_private.log_chain_heads where log = $1', [log.table])).rows) {
    heads.set(head.chain, { seq: Number(head.seq), hash: head.hash });
  }
  const select = `select id::text, chain, chain_seq::text, prev_hash, row_hash, ${log.chainOf} as expected_chain,
                         array[${log.columns.join(', ')}] as fields,
                         ${log.table === 'audit_log' ? '(select x.row_hash from app_private.audit_redactions x where x.audit_id = l.id)' : 'null::text'} as redacted_hash
                    from app_public.${log.table} l`;
  let rows = 0;
  const chains = new Set<string>();
  let current: string | null = null;
  let lastSeq = 0;
  let lastHash = GENESIS;
  const closeChain = () => {
    if (current === null) return;
    const head = heads.get(current);
    if (head && head.seq > lastSeq) report(null, current, 'missing', `chain ${current}: the last ${head.seq - lastSeq} row(s) after link ${lastSeq} are missing`);
    else if (head && head.seq === lastSeq && head.hash !== lastHash) report(null, current, 'head', `chain ${current}: its recorded last link does not match row ${lastSeq}`);
    heads.delete(current);
  };
  let after: [string, string, string] | null = null;
  for (;;) {
    const batch: Row[] = (
      await sql.query<Row>(
        `${select} where l.chain is not null and l.chain_seq is not null ${after ? `and (l.chain, l.chain_seq, l.id) > ($1, $2::bigint, $3::${log.idType ?? 'bigint'})` : ''}
          order by l.chain, l.chain_seq, l.id limit ${BATCH}`,
        after ?? [],
      )
    ).rows;
    for (const row of batch) {
      rows += 1;
      if (row.chain !== current) {
        closeChain();
        current = row.chain;
        chains.add(row.chain!);
        lastSeq = 0;
        lastHash = GENESIS;
      }
      const seq = Number(row.chain_seq);
      if (row.chain !== row.expected_chain) report(row, row.chain, 'moved', `row ${row.id} sits in chain ${row.chain} but its content belongs in ${row.expected_chain}`);
      if (seq === lastSeq) report(row, row.chain, 'inserted', `row ${row.id} repeats link ${seq} of chain ${row.chain}: a row was inserted`);
      else if (seq > lastSeq + 1) report(row, row.chain, 'missing', `chain ${row.chain}: link(s) ${lastSeq + 1}–${seq - 1} before row ${row.id} are missing`);
      else if (row.prev_hash !== lastHash) report(row, row.chain, 'inserted', `row ${row.id} (link ${seq} of chain ${row.chain}) does not follow the link before it`);
      // An erasure overwrote this row's copies of identifiers (migration 0246): its content can
      // no longer be hashed again, so its link is checked against the hash recorded at erasure.
      const recomputed = row.redacted_hash ?? chainHash(row.prev_hash ?? '', [row.chain, row.chain_seq, row.id, ...row.fields]);
      if (recomputed !== row.row_hash) report(row, row.chain, 'changed', `row ${row.id} (link ${seq} of chain ${row.chain}) was changed after it was written`);
      lastSeq = seq;
      lastHash = row.row_hash ?? '';
    }
    if (batch.length < BATCH) break;
    const last = batch.at(-1)!;
    after = [last.chain!, last.chain_seq!, last.id];
  }
  closeChain();
  for (const [chain, head] of heads) report(null, chain, 'missing', `chain ${chain}: all ${head.seq} row(s) are missing`);
  const unchained = await sql.query<{ id: string }>(`select id::text from app_public.${log.table} where chain is null or chain_seq is null or row_hash is null order by id limit 20`);
  for (const row of unchained.rows) {
    rows += 1;
    breaks.push({ log: log.title, chain: null, id: row.id, seq: null, kind: 'unchained', message: `row ${row.id} carries no link: it was inserted past the chain` });
  }
  return { log: log.title, rows, chains: chains.size, breaks };
}

/** Verifies every chained log; read in one repeatable-read snapshot so appends meanwhile do not confuse it. */
export async function verifyChains(pool: pg.Pool): Promise<LogVerdict[]> {
  return withOwner(pool, async (sql) => {
    await sql.query('set transaction isolation level repeatable read, read only');
    const verdicts: LogVerdict[] = [];
    for (const log of CHAINED_LOGS) verdicts.push(await verifyLog(sql, log));
    return verdicts;
  });
}

/** The report's lines: per log, rows and chains, and its first broken link (with the count). */
export function describeVerdicts(verdicts: readonly LogVerdict[]): { ok: boolean; lines: string[] } {
  const lines: string[] = [];
  for (const verdict of verdicts) {
    const first = verdict.breaks[0];
    if (!first) lines.push(`${verdict.log}: intact (${verdict.rows} rows in ${verdict.chains} chains)`);
    else {
      lines.push(`${verdict.log}: BROKEN (${verdict.breaks.length} problem(s) in ${verdict.rows} rows). First broken link: ${first.message}`);
      for (const other of verdict.breaks.slice(1, 10)) lines.push(`  also: ${other.message}`);
    }
  }
  return { ok: verdicts.every((v) => v.breaks.length === 0), lines };
}
