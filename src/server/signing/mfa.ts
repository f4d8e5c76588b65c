/**
 * Staff second factor (issue 30 item 4): TOTP enrolment with recovery codes, the check at
 * sign-in and at signing, and the reset of a lost device by another coordinator. Secrets and
 * hashed recovery codes live in app_private (0260); every change is in the account log (0180).
 * All functions here run as the owner, inside the caller's transaction.
 */
import { HttpError, conflict, forbidden, notFound } from '../http/errors';
import type { Sql } from '../db/transaction';
import { appendAccountEvent } from '../integrity/account-log';
import { hashRecoveryCode, looksLikeRecoveryCode, matchTotp, newRecoveryCodes, newTotpSecret, otpauthUri } from './totp';

import type { MfaRole } from '../../domain/signatures';

export interface MfaState {
  enrolled: boolean;
  /** An enrolment was begun and awaits its first code. */
  pending: boolean;
  /** One of the person's account roles requires a second factor. */
  required: boolean;
  recoveryCodesLeft: number;
}

/** Whether one of the account's roles requires a second factor, asked of the users row. */
async function requiredFor(sql: Sql, userId: string, roles: readonly MfaRole[]): Promise<boolean> {
  if (roles.length === 0) return false;
  const { rows } = await sql.query<{ required: boolean }>(
    `select coalesce(bool_or(v::boolean), false) as required
       from app_public.users u, jsonb_each_text(to_jsonb(u)) as f(k, v)
      where u.id = $1 and k = any($2::text[])`,
    [userId, roles.map((role) => `is_${role}_account`)],
  );
  return rows[0]?.required ?? false;
}

export async function mfaState(sql: Sql, userId: string, requiredRoles: readonly MfaRole[]): Promise<MfaState> {
  const { rows } = await sql.query<{ confirmed: boolean | null; left: string }>(
    `select (select m.confirmed_at is not null from app_private.staff_mfa m where m.user_id = $1) as confirmed,
            (select count(*) from app_private.mfa_recovery_codes c where c.user_id = $1 and c.used_at is null)::text as left`,
    [userId],
  );
  const confirmed = rows[0]?.confirmed;
  return { enrolled: confirmed === true, pending: confirmed === false, required: await requiredFor(sql, userId, requiredRoles), recoveryCodesLeft: Number(rows[0]?.left ?? 0) };
}

export type FactorCheck = 'totp' | 'recovery' | 'missing' | 'wrong';

/**
 * Checks a code of an enrolled person: a TOTP code of a step after the last one used (no replay)
 * or an unused recovery code (then spent). Logs a wrong code and a spent recovery code.
 */
export async function checkSecondFactor(sql: Sql, userId: string, code: unknown, nowMs: number, purpose: 'sign_in' | 'signature', address?: string): Promise<FactorCheck> {
  if (typeof code !== 'string' || code.trim() === '') return 'missing';
  const text = code.trim().replace(/\s/g, '');
  const { rows } = await sql.query<{ secret: string; last_step: string }>(
    'select secret, last_step::text from app_private.staff_mfa where user_id = $1 and confirmed_at is not null for update',
    [userId],
  );
  const mfa = rows[0];
  if (!mfa) return 'missing';
  const step = matchTotp(mfa.secret, text, nowMs);
  if (step !== null && step > BigInt(mfa.last_step)) {
    await sql.query('update app_private.staff_mfa set last_step = $2 where user_id = $1', [userId, step.toString()]);
    return 'totp';
  }
  if (looksLikeRecoveryCode(text)) {
    const spent = await sql.query(
      'update app_private.mfa_recovery_codes set used_at = now() where user_id = $1 and code_hash = $2 and used_at is null returning 1',
      [userId, hashRecoveryCode(text)],
    );
    if (spent.rowCount) {
      await appendAccountEvent(sql, { event: 'mfa_recovery_used', userId, detail: { purpose }, address });
      return 'recovery';
    }
  }
  return 'wrong';
}

/** Begins (or begins again) an enrolment: a new pending secret and the URI for the app. */
export async function beginEnrolment(sql: Sql, userId: string): Promise<{ secret: string; otpauthUri: string }> {
  const { rows } = await sql.query<{ account: string; confirmed: boolean | null }>(
    `select coalesce(u.email::text, u.username::text) as account,
            (select m.confirmed_at is not null from app_private.staff_mfa m where m.user_id = u.id) as confirmed
       from app_public.users u where u.id = $1`,
    [userId],
  );
  const row = rows[0];
  if (!row) throw notFound('not_found', 'There is no such account.');
  if (row.confirmed) throw conflict('mfa_already_enrolled', 'A second factor is set up already. Ask a coordinator to reset it if the device is lost.');
  const secret = newTotpSecret();
  await sql.query(
    `insert into app_private.staff_mfa (user_id, secret) values ($1, $2)
     on conflict (user_id) do update set secret = excluded.secret, created_at = now(), last_step = 0`,
    [userId, secret],
  );
  return { secret, otpauthUri: otpauthUri(secret, row.account) };
}

/** Confirms an enrolment with a first code; answers the recovery codes, shown this once. */
export async function confirmEnrolment(sql: Sql, userId: string, code: unknown, nowMs: number, address?: string): Promise<{ recoveryCodes: string[] }> {
  const { rows } = await sql.query<{ secret: string; confirmed_at: Date | null }>('select secret, confirmed_at from app_private.staff_mfa where user_id = $1 for update', [userId]);
  const pending = rows[0];
  if (!pending || pending.confirmed_at) throw conflict('mfa_not_pending', 'Begin the set-up first: scan the code in your authenticator app.');
  const step = typeof code === 'string' ? matchTotp(pending.secret, code.trim().replace(/\s/g, ''), nowMs) : null;
  if (step === null) {
    // Logged by the route after this transaction rolled back (recordAccountEvent).
    throw new HttpError(400, 'mfa_code_invalid', 'The code is not right. Enter the current 6-digit code of your authenticator app.');
  }
  await sql.query('update app_private.staff_mfa set confirmed_at = now(), last_step = $2 where user_id = $1', [userId, step.toString()]);
  const recoveryCodes = newRecoveryCodes();
  await sql.query('delete from app_private.mfa_recovery_codes where user_id = $1', [userId]);
  for (const recovery of recoveryCodes) {
    await sql.query('insert into app_private.mfa_recovery_codes (user_id, code_hash) values ($1, $2)', [userId, hashRecoveryCode(recovery)]);
  }
  await appendAccountEvent(sql, { event: 'mfa_enrolled', userId, address });
  return { recoveryCodes };
}

/**
 * A lost device: another coordinator removes the person's second factor, so they enrol again at
 * their next sign-in. Never one's own (a stolen password must not reset the factor guarding it).
 */
export async function resetSecondFactor(sql: Sql, actorId: string, userId: string, reason: unknown, address?: string): Promise<void> {
  const { rows } = await sql.query<{ coordinator: boolean }>('select is_coordinator_account as coordinator from app_public.users where id = $1', [actorId]);
  if (!rows[0]?.coordinator) throw forbidden('mfa_reset_coordinators_only', 'Only a coordinator can reset another person’s second factor.');
  if (actorId === userId) throw forbidden('mfa_reset_not_own', 'Another coordinator must reset your own second factor.');
  if (typeof reason !== 'string' || reason.trim().length === 0 || reason.length > 500) {
    throw new HttpError(400, 'reason_required', 'Say why the second factor is reset (up to 500 characters).');
  }
  const exists = await sql.query('select 1 from app_public.users where id = $1', [userId]);
  if (!exists.rowCount) throw notFound('not_found', 'There is no such account.');
  const removed = await sql.query('delete from app_private.staff_mfa where user_id = $1', [userId]);
  if (!removed.rowCount) throw conflict('mfa_not_enrolled', 'This person has no second factor to reset.');
  await sql.query('delete from app_private.mfa_recovery_codes where user_id = $1', [userId]);
  await appendAccountEvent(sql, { event: 'mfa_reset', userId, actorId, detail: { reason: reason.trim() }, address });
}
