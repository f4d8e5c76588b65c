/**
 * Transactions. `withUser` is how request code touches the database: it switches to the
 * request role and sets the user id for the policies, so row-level security decides what the
 * code sees. `withOwner` is for the few server routines (sign-in, registration, migrations,
 * the CLI) that must act before anyone is signed in; they check their own rules.
 */
import pg from 'pg';

const { escapeLiteral } = pg;

export type Sql = pg.PoolClient;

/** The identity a request runs as: a verified user id, or nobody. */
export interface Identity {
  userId: string | null;
}

export const ANONYMOUS: Identity = { userId: null };

// Hardening (issue 16): the statement timeout of request roles. `SET LOCAL ROLE` does not apply
// role-level settings (`alter role … set statement_timeout`), so every request transaction sets
// it itself: PostGraphile through pgSettingsFor, withUser/readAsUser/queryOnceAsUser in the
// same `select set_config(…)` as the user id (no extra statement, so result positions hold).
let requestStatementTimeoutMs = 0;

/** Sets the statement timeout of request transactions (buildApp, from STATEMENT_TIMEOUT_MS; 0: none). */
export function setRequestStatementTimeout(ms: number): void {
  if (!Number.isInteger(ms) || ms < 0) throw new Error('The statement timeout must be a whole number of milliseconds');
  requestStatementTimeoutMs = ms;
}

/** `, set_config('statement_timeout', …)` for the setup select, or nothing when there is no limit. */
function timeoutSetting(): string {
  return requestStatementTimeoutMs > 0 ? `, set_config('statement_timeout', '${requestStatementTimeoutMs}', true)` : '';
}

/** The settings PostGraphile and withUser apply per transaction for an identity. */
export function pgSettingsFor(identity: Identity): Record<string, string> {
  // JIT compilation costs tens to hundreds of milliseconds and pays off only for long analytic
  // queries; request queries are short, and a pessimistic row estimate under a policy can
  // trigger it (measured: ~200 ms on the coordinator's offer list). Off for every request.
  const settings = identity.userId
    ? { role: 'sanad_user', 'jwt.claims.user_id': identity.userId, jit: 'off' }
    : { role: 'sanad_anonymous', 'jwt.claims.user_id': '', jit: 'off' };
  // Hardening (issue 16): see setRequestStatementTimeout.
  return requestStatementTimeoutMs > 0 ? { ...settings, statement_timeout: String(requestStatementTimeoutMs) } : settings;
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
 * A connection that cannot roll back is closed rather than handed to the next caller.
 */
export async function inTransaction<T>(pool: pg.Pool, begin: string, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(begin);
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

export function withUser<T>(pool: pg.Pool, identity: Identity, fn: (sql: Sql) => Promise<T>): Promise<T> {
  const settings = pgSettingsFor(identity);
  const userId = checkedUserId(settings['jwt.claims.user_id']);
  return inTransaction(pool, `begin; set local role ${settings.role}; set local jit = off; select set_config('jwt.claims.user_id', '${userId}', true)${timeoutSetting()}`, fn);
}

/**
 * The owner's pool behind a request pool (issue 34): the request pool logs in as the powerless
 * authenticator, so an owner transaction asked of it runs on the owner's own connections. Every
 * caller of withOwner / withOwnerAs is a listed owner path (docs/decisions/authenticator-role.md,
 * counted by test/integration/authenticator.int.test.ts so the list only shrinks).
 */
const ownerPools = new WeakMap<pg.Pool, pg.Pool>();

/** Records that `ownerPool` is the owner's pool behind `requestPool` (openDatabase). */
export function registerOwnerPool(requestPool: pg.Pool, ownerPool: pg.Pool): void {
  if (requestPool !== ownerPool) ownerPools.set(requestPool, ownerPool);
}

/** The owner's pool for a pool: itself when it is the owner's (or PGlite's only one). */
export function ownerPoolFor(pool: pg.Pool): pg.Pool {
  return ownerPools.get(pool) ?? pool;
}

export function withOwner<T>(pool: pg.Pool, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(ownerPoolFor(pool), 'begin', fn);
}

/** Owner transaction that still records who acted, so audit rows name the person. */
export function withOwnerAs<T>(pool: pg.Pool, actorId: string | null, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return inTransaction(ownerPoolFor(pool), `begin; select set_config('jwt.claims.user_id', '${checkedUserId(actorId)}', true)`, fn);
}

/**
 * A request transaction on the owner's connection, for the remaining paths that check as the
 * person and then leave the request role with `set local role none` in the same transaction
 * (the workflow commands, the interview report, the randomization draw). A listed owner path:
 * each one converted to a security-definer function moves back to withUser.
 */
export function withUserThenOwner<T>(pool: pg.Pool, identity: Identity, fn: (sql: Sql) => Promise<T>): Promise<T> {
  return withUser(ownerPoolFor(pool), identity, fn);
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
    `begin read only; set local role ${settings.role}; set local jit = off; select set_config('jwt.claims.user_id', '${userId}', true)${timeoutSetting()}; ${statement}; commit`,
  )) as unknown as pg.QueryResult<T>[];
  return results[4]!.rows;
}

/**
 * The roles a signed-in person's request may run as: sanad_user, and sanad_scorer (sanad_user
 * plus the questionnaires' score columns, migration 0081) for the server's own scored write of
 * a whole questionnaire record. The server chooses; nothing a client sends names a role.
 */
export const SIGNED_IN_ROLES = ['sanad_user', 'sanad_scorer'] as const;
export type SignedInRole = (typeof SIGNED_IN_ROLES)[number];

/** A statement and its bind parameters. */
export interface Statement {
  text: string;
  values: readonly unknown[];
  /**
   * For queryOnceAsUser: the statement travels as `execute <name>(…)` of a statement prepared
   * under this name on its connection (preparedStatementName), so PostgreSQL parses and plans
   * it once per connection instead of once per message.
   */
  name?: string;
}

/** A parameter as a PostgreSQL array literal's element, as node-postgres would send it. */
function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return arrayLiteral(value);
  return `"${parameterText(value).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`;
}

function arrayLiteral(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(',')}}`;
}

/** A non-null parameter's text, as node-postgres sends it (its prepareValue). */
function parameterText(value: unknown): string {
  if (Array.isArray(value)) return arrayLiteral(value);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * The statement with each `$n` replaced by its value as a quoted literal (`'…'`, `E'…'` when it
 * holds a backslash), which PostgreSQL types from its context exactly as it types an untyped bind
 * parameter. Statement texts must hold `$` only as placeholders (the REST builders' do: names
 * come from the registry). A NUL cannot travel in a simple-protocol message, so it is refused.
 */
export function inlineParameters(statement: Statement): string {
  return statement.text.replace(/\$(\d+)/g, (_match, digits: string) => {
    const index = Number(digits) - 1;
    if (!(index >= 0 && index < statement.values.length)) throw new Error(`inlineParameters: no value for $${digits}`);
    return parameterLiteral(statement.values[index]);
  });
}

/** A parameter as a quoted literal, or `null`; a NUL cannot travel in a simple-protocol message. */
function parameterLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const text = parameterText(value);
  if (text.includes('\0')) throw new RangeError('A parameter holds a NUL character');
  return escapeLiteral(text);
}

/**
 * At most this many statement texts get a prepared name: texts come from the REST builders,
 * whose column and select lists a client chooses, so the statements a connection keeps are
 * bounded. Later texts travel inlined, as unnamed statements do.
 */
const MAX_PREPARED_TEXTS = 256;
const preparedNames = new Map<string, string>();

/**
 * The name under which a statement text is prepared on each connection that runs it, or
 * undefined once MAX_PREPARED_TEXTS texts have names. The text must hold `$` only as
 * placeholders, as for inlineParameters.
 */
export function preparedStatementName(text: string): string | undefined {
  const known = preparedNames.get(text);
  if (known !== undefined || preparedNames.size >= MAX_PREPARED_TEXTS) return known;
  const name = `sanad_once_${preparedNames.size + 1}`;
  preparedNames.set(text, name);
  return name;
}

/** The names prepared on each connection (a pool's client is its connection, for its life). */
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();

/**
 * Prepares on the connection the named statements it does not hold yet, each in a message of
 * its own outside any transaction: a PREPARE is not undone by a rollback, so one sent inside the
 * request's message would leave unknown whether it took effect when a later statement failed.
 * Prepared as the request role it will run as; PostgreSQL re-plans a statement under row-level
 * security when it is executed as another role, so policies apply as for any statement.
 */
async function prepareNamed(client: pg.ClientBase, statements: readonly Statement[], role: string): Promise<void> {
  let prepared = preparedOn.get(client);
  for (const { name, text } of statements) {
    if (name === undefined || prepared?.has(name)) continue;
    try {
      // As the request role (issue 34): the authenticator the pool logs in as may not even look
      // up the names a statement uses (schema usage is checked when it is parsed). One implicit
      // transaction: when the prepare fails, the role switch is undone with it.
      await client.query(`set role ${role}; prepare ${name} as ${text}; reset role`);
    } catch (error) {
      // 42P05: prepared on this connection by a message whose answer was lost; it is the same text.
      if ((error as { code?: string }).code !== '42P05') throw error;
    }
    if (!prepared) preparedOn.set(client, (prepared = new Set()));
    prepared.add(name);
  }
}

/** A statement as it travels in a simple-protocol message: executed by name, or with its parameters inlined. */
function messageStatement(statement: Statement): string {
  if (statement.name === undefined) return inlineParameters(statement);
  if (statement.values.length === 0) return `execute ${statement.name}`;
  return `execute ${statement.name}(${statement.values.map(parameterLiteral).join(', ')})`;
}

/**
 * Statements as the request role in one round trip: the transaction, role, user id, the
 * statements (their parameters inlined, or executed by name when they carry one) and the commit
 * travel as one simple-protocol message, where withUser needs three messages for one statement.
 * For reads: at concurrency 32 the round trips cost both processes more CPU than a short
 * statement does. A named statement the connection has not prepared yet costs one more round
 * trip, once per connection. Answers each statement's result.
 */
export async function queryOnceAsUser(
  pool: pg.Pool,
  identity: Identity,
  statements: readonly Statement[],
  role: SignedInRole = 'sanad_user',
  options: { genericPlans?: boolean } = {},
): Promise<pg.QueryResult[]> {
  const settings = pgSettingsFor(identity);
  const userId = checkedUserId(settings['jwt.claims.user_id']);
  if (role !== 'sanad_user' && (!identity.userId || !SIGNED_IN_ROLES.includes(role))) throw new Error(`queryOnceAsUser: ${role} is for signed-in people`);
  // genericPlans: a prepared statement's plan is made once and reused whatever its values (the
  // compiled case lists, whose plans do not depend on them: docs/decisions/
  // 0028-request-transactions.md); set in the same select, so the results keep their positions.
  const generic = options.genericPlans ? ", set_config('plan_cache_mode', 'force_generic_plan', true)" : '';
  const setup = `begin; set local role ${role === 'sanad_user' ? settings.role : role}; set local jit = off; select set_config('jwt.claims.user_id', '${userId}', true)${timeoutSetting()}${generic}`;
  const message = [setup, ...statements.map(messageStatement), 'commit'].join('; ');
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await prepareNamed(client, statements, role === 'sanad_user' ? (settings.role ?? 'sanad_anonymous') : role);
    const results = (await client.query(message)) as unknown as pg.QueryResult[];
    return results.slice(4, 4 + statements.length);
  } catch (error) {
    // A failed statement skips the rest of the message and leaves its transaction aborted.
    await client.query('rollback').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
