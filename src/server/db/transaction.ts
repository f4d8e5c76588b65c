/**
 * Transactions. `withUser` is how request code touches the database: it switches to the
 * request role and sets the user id for the policies, so row-level security decides what the
 * code sees. `withOwner` is for the few server routines (sign-in, registration, migrations,
 * the CLI) that must act before anyone is signed in; they check their own rules.
 */
import type pg from 'pg';

export type Sql = pg.PoolClient;

/** The identity a request runs as: a verified user id, or nobody. */
export interface Identity {
  userId: string | null;
}

export const ANONYMOUS: Identity = { userId: null };

/** The settings PostGraphile and withUser apply per transaction for an identity. */
export function pgSettingsFor(identity: Identity): Record<string, string> {
  // JIT compilation costs tens to hundreds of milliseconds and pays off only for long analytic
  // queries; request queries are short, and a pessimistic row estimate under a policy can
  // trigger it (measured: ~200 ms on the coordinator's offer list). Off for every request.
  return identity.userId
    ? { role: 'sanad_user', 'jwt.claims.user_id': identity.userId, jit: 'off' }
    : { role: 'sanad_anonymous', 'jwt.claims.user_id': '', jit: 'off' };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A user id fit to travel inside SQL text: a UUID (verified by the token service) or empty. */
function checkedUserId(userId: string | null | undefined): string {
  const id = userId ?? '';
  if (id !== '' && !UUID.test(id)) throw new Error('The identity is not a UUID');
  return id;
}

/**
 * Runs `fn` in a transaction that `begin` opens. `begin` is one simple-protocol message (the
 * transaction, the role and the user id together), so a request pays one round trip for its
 * setup instead of two: at 32 concurrent clients round trips, not the statements, dominate.
 */
async function inTransaction<T>(pool: pg.Pool, begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback');
      throw error;
    }
  } finally {
    client.release();
  }
}

export function withUser<T>(pool: pg.Pool, identity: Identity, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const settings = pgSettingsFor(identity);
  const userId = checkedUserId(settings['jwt.claims.user_id']);
  return inTransaction(pool, `begin; set local role ${settings.role}; set local jit = off; select set_config('jwt.claims.user_id', '${userId}', true)`, fn);
}

export function withOwner<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(pool, 'begin', fn);
}

/** Owner transaction that still records who acted, so audit rows name the person. */
export function withOwnerAs<T>(pool: pg.Pool, actorId: string | null, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(pool, `begin; select set_config('jwt.claims.user_id', '${checkedUserId(actorId)}', true)`, fn);
}

/**
 * One read-only query as the request role in a single round trip: the transaction, the role,
 * the user id and the query travel as one simple-protocol message. Only for statements without
 * parameters; the user id is a verified UUID (checked again here), never client text.
 */
export async function readAsUser<T extends pg.QueryResultRow>(pool: pg.Pool, identity: Identity, statement: string): Promise<T[]> {
  const settings = pgSettingsFor(identity);
  const userId = checkedUserId(settings['jwt.claims.user_id']);
  if (statement.includes(';')) throw new Error('readAsUser: one statement only');
  const results = (await pool.query(
    `begin read only; set local role ${settings.role}; set local jit = off; select set_config('jwt.claims.user_id', '${userId}', true); ${statement}; commit`,
  )) as unknown as pg.QueryResult<T>[];
  return results[4]!.rows;
}
