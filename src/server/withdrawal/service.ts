/**
 * Withdrawal with levels (issue 31 item 3): the acts, each one named function in the caller's
 * transaction; app_hidden.withdraw_case (0246) checks the rules. See
 * docs/decisions/withdrawal-and-erasure.md.
 */
import type { Sql } from '../db/transaction';
import { notFound } from '../http/errors';
import { recordSignature, requireSignature, storedRecord } from '../signing/service';

export const WITHDRAWAL_LEVELS = ['stop_contact', 'stop_data', 'erasure'] as const;
export type WithdrawalLevel = (typeof WITHDRAWAL_LEVELS)[number];

type Row = Record<string, unknown>;
const iso = (value: unknown): string | null => (value instanceof Date ? value.toISOString() : value === null || value === undefined ? null : String(value));

export interface Withdrawal {
  id: string;
  level: WithdrawalLevel;
  reason: string;
  decidedAt: string;
}

/** Who signs an act and the token they brought (issue 30: the header sanad-signature). */
export interface Signer {
  userId: string;
  signature: unknown;
}

/**
 * A coordinator withdraws a participant at a level, with a reason: the act the screen confirms.
 * An e-signature (issue 30): the token is spent after the SQL accepted the withdrawal, in its
 * transaction, and the manifest covers the withdrawal as stored.
 */
export async function withdrawParticipant(sql: Sql, caseId: string, level: WithdrawalLevel, reason: string, signer: Signer): Promise<Withdrawal> {
  const { rows } = await sql.query<Row>('select id, level, reason, decided_at from app_hidden.withdraw_case($1, $2, $3)', [caseId, level, reason]);
  const r = rows[0]!;
  await requireSignature(sql, signer.signature, { userId: signer.userId, act: 'withdraw', recordId: caseId });
  const stored = await storedRecord(sql, 'case_withdrawals', 'id', r.id as string);
  await recordSignature(sql, { signerId: signer.userId, act: 'withdraw', caseId, recordId: caseId, content: { withdrawal: stored } });
  return { id: r.id as string, level: r.level as WithdrawalLevel, reason: r.reason as string, decidedAt: iso(r.decided_at)! };
}

/** Sets or lifts the legal hold that blocks erasure (coordinators; confirmed with a reason; signed). */
export async function setLegalHold(sql: Sql, caseId: string, hold: boolean, reason: string, signer: Signer): Promise<void> {
  await sql.query('select app_hidden.set_legal_hold($1, $2, $3)', [caseId, hold, reason]);
  await requireSignature(sql, signer.signature, { userId: signer.userId, act: 'legal_hold', recordId: caseId });
  await recordSignature(sql, { signerId: signer.userId, act: 'legal_hold', caseId, recordId: caseId, content: { hold, reason } });
}

export interface ErasureField {
  recordKind: string;
  field: string;
  records: number;
}

/** The dry run: which fields an erasure of the case would overwrite, and in how many records. */
export async function erasurePreview(sql: Sql, caseId: string): Promise<ErasureField[]> {
  const { rows } = await sql.query<Row>('select record_kind, field, records from app_hidden.erasure_preview($1)', [caseId]);
  return rows.map((r) => ({ recordKind: r.record_kind as string, field: r.field as string, records: Number(r.records) }));
}

export interface WithdrawalState {
  withdrawals: Withdrawal[];
  legalHold: { reason: string; setAt: string } | null;
  erasures: { erasedAt: string; cause: string }[];
}

/** What the caller may see of a case's withdrawal (row-level security decides). */
export async function withdrawalState(sql: Sql, caseId: string): Promise<WithdrawalState> {
  const visible = await sql.query('select 1 from app_public.cases where id = $1', [caseId]);
  if (visible.rowCount === 0) throw notFound('case_not_found', 'There is no such case, or you cannot see it.');
  const withdrawals = await sql.query<Row>('select id, level, reason, decided_at from app_public.case_withdrawals where case_id = $1 order by decided_at, id', [caseId]);
  const hold = await sql.query<Row>('select reason, set_at from app_public.case_legal_holds where case_id = $1', [caseId]);
  const erasures = await sql.query<Row>('select erased_at, cause from app_public.case_erasures where case_id = $1 order by erased_at', [caseId]);
  return {
    withdrawals: withdrawals.rows.map((r) => ({ id: r.id as string, level: r.level as WithdrawalLevel, reason: r.reason as string, decidedAt: iso(r.decided_at)! })),
    legalHold: hold.rows[0] ? { reason: hold.rows[0].reason as string, setAt: iso(hold.rows[0].set_at)! } : null,
    erasures: erasures.rows.map((r) => ({ erasedAt: iso(r.erased_at)!, cause: r.cause as string })),
  };
}
