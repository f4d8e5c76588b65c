/**
 * The one re-authentication step of an electronic signature (issue 30 item 3) and the manifest
 * it leaves. A person proves who they are again (password, and the TOTP or a recovery code when
 * they have a second factor or their role requires one) and gets a signing token bound to
 * themselves, one act and one record, valid for a few minutes and spent by the act. Each act's
 * one door calls `requireSignature` after its own rules passed and `recordSignature` with the
 * record as it is stored, in the act's transaction: a refused act spends no token and leaves
 * no manifest.
 */
import crypto from 'node:crypto';
import type pg from 'pg';
import { canonicalJson, MEANING_OF_ACT, RECORD_OF_ACT, isSignedAct, type ManifestAct, type MfaRole, type SignedAct } from '../../domain/signatures';
import { withOwner, type Sql } from '../db/transaction';
import { HttpError, badRequest } from '../http/errors';
import { appendAccountEvent, recordAccountEvent } from '../integrity/account-log';
import { verifyPassword } from '../auth/passwords';
import type { SignInThrottling } from '../auth/throttle';
import { checkSecondFactor, mfaState } from './mfa';

/** How long a signing token may wait for its act. */
export const SIGNING_TOKEN_SECONDS = 300;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface SigningContext {
  pool: pg.Pool;
  mfaRequiredRoles: readonly MfaRole[];
  throttle?: SignInThrottling | undefined;
  now?: () => number;
}

function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The refusal of an act without a valid signature: says which act and record to sign. */
export function signatureRequired(act: SignedAct, recordId: string, code = 'signature_required'): HttpError {
  const message =
    code === 'signature_required'
      ? 'This act needs your electronic signature: confirm it with your password (and your code, if you use a second factor).'
      : 'The signature is not valid for this act any more. Confirm it again with your password.';
  return new HttpError(403, code, message, undefined, { act, recordId });
}

/**
 * POST /api/signing/tokens: re-authentication for one act on one record. Wrong password: 401
 * signing_password_wrong; a second factor enrolled or required and no code: 401
 * mfa_code_required; a wrong code: 401 mfa_code_invalid; required but not set up: 403
 * mfa_enrolment_required. Failures are slowed like sign-in and logged in the account log.
 */
export async function issueSigningToken(
  ctx: SigningContext,
  userId: string,
  body: Record<string, unknown>,
  address: string,
): Promise<{ token: string; expiresAt: string; act: SignedAct; recordId: string }> {
  const { act, recordId, password, code } = body;
  if (!isSignedAct(act)) throw badRequest('signature_act_unknown', 'Say which act you sign.');
  if (typeof recordId !== 'string' || !UUID.test(recordId)) throw badRequest('signature_record_invalid', 'Say which record you sign.');
  if (typeof password !== 'string' || password.length === 0 || password.length > 1000) throw badRequest('password_required', 'Enter your password to sign.');
  const throttleKey = `signature:${userId}`;
  const wait = (await ctx.throttle?.waitSeconds(throttleKey, address)) ?? 0;
  if (wait > 0) throw new HttpError(429, 'too_many_attempts', `Too many attempts. Please wait ${wait} seconds and try again.`, undefined, { retryAfter: wait });
  const secret = await withOwner(ctx.pool, async (sql) => {
    const { rows } = await sql.query<{ password_hash: string }>('select password_hash from app_private.user_secrets where user_id = $1 and disabled_at is null', [userId]);
    return rows[0]?.password_hash;
  });
  if (!secret || !(await verifyPassword(secret, password))) {
    await ctx.throttle?.recordFailure(throttleKey, address);
    await recordAccountEvent(ctx.pool, { event: 'sign_in_failed', userId, detail: { purpose: 'signature', act, reason: 'password' }, address });
    throw new HttpError(401, 'signing_password_wrong', 'The password is not right. Your signature was not given.');
  }
  const now = ctx.now?.() ?? Date.now();
  const outcome = await withOwner(ctx.pool, async (sql) => {
    const state = await mfaState(sql, userId, ctx.mfaRequiredRoles);
    if (state.required && !state.enrolled) return { refusal: 'enrol' as const };
    const factors = ['password'];
    if (state.enrolled) {
      const check = await checkSecondFactor(sql, userId, code, now, 'signature', address);
      if (check === 'missing') return { refusal: 'missing' as const };
      if (check === 'wrong') {
        await appendAccountEvent(sql, { event: 'mfa_failed', userId, detail: { purpose: 'signature', act }, address });
        return { refusal: 'wrong' as const };
      }
      factors.push(check);
    }
    const token = crypto.randomBytes(32).toString('base64url');
    const expiresAt = new Date(now + SIGNING_TOKEN_SECONDS * 1000);
    await sql.query(
      'insert into app_private.signing_tokens (token_hash, user_id, act, record_id, factors, expires_at) values ($1, $2, $3, $4, $5, $6)',
      [hashToken(token), userId, act, recordId, factors, expiresAt],
    );
    return { token, expiresAt };
  });
  if ('refusal' in outcome) {
    if (outcome.refusal === 'enrol') throw new HttpError(403, 'mfa_enrolment_required', 'Your role signs with a second factor: set up your authenticator app in your profile first.');
    if (outcome.refusal === 'missing') throw new HttpError(401, 'mfa_code_required', 'Enter the 6-digit code of your authenticator app (or a recovery code).');
    await ctx.throttle?.recordFailure(throttleKey, address);
    throw new HttpError(401, 'mfa_code_invalid', 'The code is not right. Enter the current 6-digit code of your authenticator app.');
  }
  await ctx.throttle?.recordSuccess(throttleKey, address);
  return { token: outcome.token, expiresAt: outcome.expiresAt.toISOString(), act, recordId };
}

/** Runs `fn` as the owner inside the caller's transaction and returns to the caller's role. */
async function asOwner<T>(sql: Sql, fn: () => Promise<T>): Promise<T> {
  const role = (await sql.query<{ role: string }>('select current_user as role')).rows[0]!.role;
  await sql.query('set local role none');
  const owner = (await sql.query<{ role: string }>('select current_user as role')).rows[0]!.role;
  try {
    return await fn();
  } finally {
    if (role !== owner && /^[a-z_]+$/.test(role)) await sql.query(`set local role ${role}`);
  }
}

/**
 * Spends the signing token of an act at its door: refuses (403 signature_required, or
 * signature_invalid for a token of another person, act or record, spent or expired) before the
 * act's writes commit. Call it in the act's transaction after its own rules passed.
 */
export async function requireSignature(sql: Sql, token: unknown, binding: { userId: string; act: SignedAct; recordId: string }): Promise<void> {
  if (typeof token !== 'string' || token.length === 0) throw signatureRequired(binding.act, binding.recordId);
  const spent = await asOwner(sql, () =>
    sql.query(
      `update app_private.signing_tokens set used_at = now()
        where token_hash = $1 and user_id = $2 and act = $3 and record_id = $4 and used_at is null and expires_at > now()
        returning 1`,
      [hashToken(token), binding.userId, binding.act, binding.recordId],
    ),
  );
  if (!spent.rowCount) throw signatureRequired(binding.act, binding.recordId, 'signature_invalid');
}

export interface SignedRecord {
  signerId: string;
  act: ManifestAct;
  caseId: string;
  recordId: string;
  /** The record as stored after the act; a nonce is added so the hash reveals nothing by guessing. */
  content: Record<string, unknown>;
}

/** Appends the manifest (and keeps the signed text for verification). Returns its id and hash. */
export async function recordSignature(sql: Sql, record: SignedRecord): Promise<{ id: string; contentHash: string }> {
  const text = canonicalJson({ act: record.act, recordId: record.recordId, caseId: record.caseId, nonce: crypto.randomBytes(16).toString('hex'), record: record.content });
  const contentHash = crypto.createHash('sha256').update(text, 'utf8').digest('hex');
  const recordKind = record.act === 'rule_override' ? 'interview_report' : RECORD_OF_ACT[record.act];
  const id = await asOwner(sql, async () => {
    const { rows } = await sql.query<{ id: string }>(
      `insert into app_public.signatures (signer_id, printed_name, act, meaning, case_id, record_kind, record_id, content_hash)
       select u.id, coalesce(nullif(u.alias, ''), u.username::text), $2, $3, $4, $5, $6, $7 from app_public.users u where u.id = $1
       returning id`,
      [record.signerId, record.act, MEANING_OF_ACT[record.act], record.caseId, recordKind, record.recordId, contentHash],
    );
    await sql.query('insert into app_private.signed_contents (signature_id, content) values ($1, $2)', [rows[0]!.id, text]);
    return rows[0]!.id;
  });
  return { id, contentHash };
}

/** A row of a table as JSON (the stored record a signature covers). */
export async function storedRecord(sql: Sql, table: 'interview_reports' | 'treatment_assignments' | 'workflow_tasks' | 'cases' | 'case_withdrawals', where: string, value: string): Promise<Record<string, unknown>> {
  return asOwner(sql, async () => {
    const { rows } = await sql.query<{ row: Record<string, unknown> }>(`select to_jsonb(t) as row from app_public.${table} t where t.${where} = $1`, [value]);
    return rows[0]?.row ?? {};
  });
}
