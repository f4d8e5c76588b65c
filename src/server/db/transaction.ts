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
  return identity.userId
    ? { role: 'sanad_user', 'jwt.claims.user_id': identity.userId }
    : { role: 'sanad_anonymous', 'jwt.claims.user_id': '' };
}

async function inTransaction<T>(pool: pg.Pool, setup: (client: Sql) => Promise<unknown>, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    try {
      await setup(client);
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
  return inTransaction(
    pool,
    (client) =>
      client.query(`select set_config('role', $1, true), set_config('jwt.claims.user_id', $2, true)`, [
        settings.role,
        settings['jwt.claims.user_id'],
      ]),
    fn,
  );
}

export function withOwner<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(pool, async () => undefined, fn);
}

/** Owner transaction that still records who acted, so audit rows name the person. */
export function withOwnerAs<T>(pool: pg.Pool, actorId: string | null, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(
    pool,
    (client) => client.query(`select set_config('jwt.claims.user_id', $1, true)`, [actorId ?? '']),
    fn,
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * One read-only query as the request role in a single round trip: the transaction, the role,
 * the user id and the query travel as one simple-protocol message. Only for statements without
 * parameters; the user id is a verified UUID (checked again here), never client text.
 */
export async function readAsUser<T extends pg.QueryResultRow>(pool: pg.Pool, identity: Identity, statement: string): Promise<T[]> {
  const settings = pgSettingsFor(identity);
  const userId = settings['jwt.claims.user_id'] ?? '';
  if (userId !== '' && !UUID.test(userId)) throw new Error('readAsUser: the identity is not a UUID');
  if (statement.includes(';')) throw new Error('readAsUser: one statement only');
  const results = (await pool.query(
    `begin read only; set local role ${settings.role}; select set_config('jwt.claims.user_id', '${userId}', true); ${statement}; commit`,
  )) as unknown as pg.QueryResult<T>[];
  return results[3]!.rows;
}
