/**
 * Account events written by the server's own code (issue 30): sign-ins, sign-outs, password
 * and second-factor changes. Creation and every flag, role or address change come from the
 * trigger on app_public.users (migration 0180), whoever makes them.
 */
import type pg from 'pg';
import { withOwner, type Sql } from '../db/transaction';

export type AccountEvent =
  | 'invited'
  | 'sign_in'
  | 'sign_in_failed'
  | 'signed_out'
  | 'password_changed'
  | 'password_reset'
  | 'mfa_enrolled'
  | 'mfa_disabled'
  | 'mfa_reset'
  | 'mfa_recovery_used'
  | 'mfa_failed';

export interface AccountLogEntry {
  event: AccountEvent;
  /** The account the event is about; null for a sign-in with an unknown name. */
  userId: string | null;
  /** Who acted, when not the account's owner themselves (a coordinator resetting a device). */
  actorId?: string | null | undefined;
  detail?: Record<string, unknown> | undefined;
  address?: string | undefined;
}

/** Appends an account event inside the caller's transaction. */
export async function appendAccountEvent(sql: Sql, entry: AccountLogEntry): Promise<void> {
  await sql.query('insert into app_public.account_log (user_id, actor_id, event, detail, address) values ($1, $2, $3, $4, $5)', [
    entry.userId,
    entry.actorId === undefined ? entry.userId : entry.actorId,
    entry.event,
    JSON.stringify(entry.detail ?? {}),
    entry.address?.slice(0, 100) ?? null,
  ]);
}

/** Appends an account event in a transaction of its own (failed sign-ins leave nothing else). */
export async function recordAccountEvent(pool: pg.Pool, entry: AccountLogEntry): Promise<void> {
  await withOwner(pool, (sql) => appendAccountEvent(sql, entry));
}
