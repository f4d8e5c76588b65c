/**
 * How PostGraphile reaches the database: @dataplan/pg's node-postgres adaptor, with a query
 * request's statements in one transaction opened in one round trip.
 *
 * Grafast runs each SQL statement of a request in a `withPgClient` call of its own (a case list
 * page with its `totalCount` is two: the count is a sibling step of the page's), and the stock
 * adaptor wraps each one in `begin`, a `set_config(…) from json_array_elements($1)` statement
 * (parsed and planned every time) and `commit`: four round trips per statement. Here:
 *
 * - `begin` and the settings travel as one simple-protocol message, as withUser's do
 *   (src/server/db/transaction.ts).
 * - A query operation's statements share one connection and one transaction
 *   (RequestTransaction, set up by the grafast plugin oneReadTransactionPerQuery): setup, the
 *   statements, `commit` when grafast's execution of the request ends. The web's case list is
 *   4 round trips instead of 6. A statement that fails aborts the transaction, so the next one
 *   rolls it back and opens a fresh one in the same message: a failing field never changes
 *   its siblings' answers.
 * - A mutation keeps one transaction per statement (setup, statement, commit), as before.
 *
 * At 32 concurrent requests on two cores the round trips cost both processes more CPU than the
 * short statements themselves (docs/decisions/0028-request-transactions.md; figures in
 * bench/RESULTS.md). On PGlite's one-connection pool a query request holds the connection
 * from its first statement to the end of its execution; nothing in that execution asks the pool
 * for another, so other requests wait their turn and never deadlock.
 *
 * Everything else is as the stock adaptor does it: prepared statements by name with a bounded
 * cache per connection, savepoints for nested transactions, and queries issued one after the
 * other on the connection. The settings come from pgSettingsFor (the server's own values,
 * never a client's) and are local to the transaction; they are quoted as literals anyway.
 */
import pg from 'pg';
import { inTransaction } from '../db/transaction';
import type { PgClient, PgClientQuery, PgClientResult, WithPgClient } from '@dataplan/pg';
import { getOperationAST, Kind, OperationTypeNode, type DocumentNode } from 'postgraphile/graphql';

const { escapeLiteral } = pg;

/** As @dataplan/pg's default (GRAPHILE_PREPARED_STATEMENT_CACHE_SIZE): statements kept per connection. */
const PREPARED_STATEMENTS_PER_CONNECTION = 100;

/** The message that opens a request's transaction: begin, then every setting, local to it. */
export function transactionSetup(pgSettings: Record<string, string | undefined> | null): string {
  const settings = Object.entries(pgSettings ?? {}).filter((entry): entry is [string, string] => entry[1] != null);
  if (settings.length === 0) return 'begin';
  const calls = settings.map(([key, value]) => `set_config(${escapeLiteral(key)}, ${escapeLiteral(value)}, true)`);
  return `begin; select ${calls.join(', ')}`;
}

interface PreparedCache {
  names: Map<string, true>;
}

type Connection = { parsedStatements?: Record<string, unknown> };

/** Names of prepared statements, least recently used first; the oldest are deallocated. */
function rememberPrepared(client: pg.PoolClient & { connection?: Connection }, cache: PreparedCache, name: string): void {
  cache.names.delete(name);
  cache.names.set(name, true);
  while (cache.names.size > PREPARED_STATEMENTS_PER_CONNECTION) {
    const oldest = cache.names.keys().next().value as string;
    cache.names.delete(oldest);
    const parsed = client.connection?.parsedStatements;
    if (parsed?.[oldest]) {
      client
        .query(`deallocate ${client.escapeIdentifier(oldest)}`)
        .then(() => {
          delete parsed[oldest];
        })
        .catch(() => undefined);
    }
  }
}

const caches = new WeakMap<pg.PoolClient, PreparedCache>();

function preparedCache(client: pg.PoolClient): PreparedCache {
  let cache = caches.get(client);
  if (!cache) {
    cache = { names: new Map() };
    caches.set(client, cache);
  }
  return cache;
}

/** A PgClient over a connection whose transaction is open; `level` counts savepoints. */
function transactionClient(client: pg.PoolClient, level: number): PgClient {
  // Statements and nested transactions run one after the other, in the order they were asked.
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work, work);
    queue = result.catch(() => undefined);
    return result;
  };
  return {
    query: <TData>(opts: PgClientQuery): Promise<PgClientResult<TData>> => inTurn(() => runQuery<TData>(client, opts)),
    withTransaction: <T>(callback: (inner: PgClient) => Promise<T>): Promise<T> => inTurn(() => inSavepoint(client, level, callback)),
  };
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

const ignore = (): void => undefined;

/**
 * The read transaction of one GraphQL query request: one connection and one transaction for
 * all of the request's statements, opened by the first of them and committed by `end()`.
 *
 * - Statements run one at a time, in the order they were asked (grafast starts sibling steps
 *   together; on one connection they would queue anyway).
 * - A statement that fails aborts the transaction. The next statement rolls it back and opens
 *   a fresh one with the same settings in the same message (`rollback; begin; select
 *   set_config(…)`), so a failing field never changes what its siblings answer.
 * - `end()` waits for the statements already asked, then commits (or rolls back) and releases
 *   the connection, once. A statement asked after that (a step still running when grafast gave
 *   up at its execution time-out) gets a transaction of its own, as every statement did before.
 * - Only selects run here: PostGraphile makes volatile functions mutations, and stable ones
 *   cannot write. So a failed `commit` loses nothing; the connection is closed, not reused.
 */
export class RequestTransaction {
  private client: pg.PoolClient | undefined;
  private state: 'none' | 'open' | 'aborted' = 'none';
  private queue: Promise<unknown> = Promise.resolve();
  private ending: Promise<void> | undefined;
  private released = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly setup: string,
  ) {}

  /** Whether `end()` was called: new withPgClient calls then take transactions of their own. */
  get ended(): boolean {
    return this.ending !== undefined;
  }

  /** The PgClient grafast's callbacks use: every statement in turn on the request's connection. */
  readonly pgClient: PgClient = {
    query: <TData>(opts: PgClientQuery): Promise<PgClientResult<TData>> => this.inTurn((client) => runQuery<TData>(client, opts)),
    withTransaction: <T>(callback: (inner: PgClient) => Promise<T>): Promise<T> =>
      this.inTurn((client) => inSavepoint(client, 1, callback)),
  };

  /** Commits (or rolls back) after the statements already asked, and releases the connection once. */
  end(): Promise<void> {
    this.ending ??= this.queue.then(() => this.finish());
    this.queue = this.ending;
    return this.ending;
  }

  private inTurn<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const result = this.queue.then(() => (this.released ? inTransaction(this.pool, this.setup, work) : this.onConnection(work)));
    this.queue = result.then(ignore, ignore);
    return result;
  }

  private async onConnection<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    try {
      return await work(await this.ready());
    } catch (error) {
      // Whatever failed (the statement, or opening the transaction), the next one starts afresh.
      if (this.state === 'open') this.state = 'aborted';
      throw error;
    }
  }

  /** The connection with an open, healthy transaction: connected, begun, or rolled back and begun again. */
  private async ready(): Promise<pg.PoolClient> {
    this.client ??= await this.pool.connect();
    if (this.state === 'open') return this.client;
    const opening = this.state === 'aborted' ? `rollback; ${this.setup}` : this.setup;
    // Until it succeeds, the next attempt must roll back whatever this one left open.
    this.state = 'aborted';
    try {
      await this.client.query(opening);
    } catch (error) {
      this.drop(asError(error));
      throw error;
    }
    this.state = 'open';
    return this.client;
  }

  /** Closes a connection that failed to open or reset its transaction; the next statement connects anew. */
  private drop(error: Error): void {
    const client = this.client;
    this.client = undefined;
    this.state = 'none';
    client?.release(error);
  }

  private async finish(): Promise<void> {
    this.released = true;
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    let broken: Error | undefined;
    try {
      if (this.state === 'open') await client.query('commit');
      else if (this.state === 'aborted') await client.query('rollback');
    } catch (error) {
      broken = asError(error);
    } finally {
      this.state = 'none';
      client.release(broken);
    }
  }
}

async function runQuery<TData>(client: pg.PoolClient, opts: PgClientQuery): Promise<PgClientResult<TData>> {
  const config: pg.QueryConfig & { rowMode?: 'array' } = { text: opts.text, values: opts.values ?? [] };
  if (opts.arrayMode) config.rowMode = 'array';
  if (opts.name != null && PREPARED_STATEMENTS_PER_CONNECTION > 0) {
    rememberPrepared(client, preparedCache(client), opts.name);
    config.name = opts.name;
  }
  const result = await client.query(config);
  return { rows: result.rows as TData[], rowCount: result.rowCount };
}

async function inSavepoint<T>(client: pg.PoolClient, level: number, callback: (inner: PgClient) => Promise<T>): Promise<T> {
  const savepoint = `tx${level}`;
  await client.query(`savepoint ${savepoint}`);
  try {
    const result = await callback(transactionClient(client, level + 1));
    await client.query(`release savepoint ${savepoint}`);
    return result;
  } catch (error) {
    await client.query(`rollback to savepoint ${savepoint}`);
    throw error;
  }
}

/**
 * The read transactions of the query requests being executed, by the request's own settings
 * object (a copy made for the request by oneReadTransactionPerQuery, so no two requests share one).
 */
const requestTransactions = new WeakMap<object, RequestTransaction>();

/** withPgClient for PostGraphile: the request's read transaction if it has one, else one transaction per call. */
export function makeWithPgClient(pool: pg.Pool): WithPgClient {
  return <T>(pgSettings: Record<string, string | undefined> | null, callback: (client: PgClient) => T | Promise<T>): Promise<T> => {
    const shared = pgSettings ? requestTransactions.get(pgSettings) : undefined;
    if (shared && !shared.ended) return (async () => callback(shared.pgClient))();
    return inTransaction(pool, transactionSetup(pgSettings), async (client) => callback(transactionClient(client, 1)));
  };
}

type GrafastContext = { pgSettings?: Record<string, string | undefined> | null };

/** Whether the operation is a query (not a mutation or subscription). */
function isQuery(document: DocumentNode, operationName: string | null | undefined): boolean {
  return getOperationAST(document, operationName ?? undefined)?.operation === OperationTypeNode.QUERY;
}

/**
 * The root fields of the case lists (case_list, paged_cases). Their statements inline the
 * per-case columns' SQL twins (inline-columns.ts), so planning one costs PostgreSQL 2–4 ms, and
 * PostgreSQL keeps planning them afresh on every execution (a custom plan: with the
 * parameters known it can drop the branches of paged_cases that do not apply, so it rates the
 * generic plan dearer). The generic plan is as fast to run and needs no planning after the
 * first time: measured, it halves the PostgreSQL CPU of a paged list (docs/decisions/
 * 0028-request-transactions.md). Other reads keep PostgreSQL's own choice.
 */
const GENERIC_PLAN_ROOT_FIELDS: ReadonlySet<string> = new Set(['caseList', 'pagedCases']);

/** Whether every root field of the operation is a case list (fragments and `__typename` aside, nothing else). */
export function asksOnlyCaseLists(document: DocumentNode, operationName: string | null | undefined): boolean {
  const selections = getOperationAST(document, operationName ?? undefined)?.selectionSet.selections ?? [];
  const fields = selections.filter((selection) => !(selection.kind === Kind.FIELD && selection.name.value === '__typename'));
  return fields.length > 0 && fields.every((selection) => selection.kind === Kind.FIELD && GENERIC_PLAN_ROOT_FIELDS.has(selection.name.value));
}

/** The settings of a query request: the server's own, plus generic plans for the case lists. */
export function readSettings(
  pgSettings: Record<string, string | undefined>,
  document: DocumentNode,
  operationName: string | null | undefined,
): Record<string, string | undefined> {
  return asksOnlyCaseLists(document, operationName) ? { ...pgSettings, plan_cache_mode: 'force_generic_plan' } : { ...pgSettings };
}

/**
 * A grafast plugin: each query operation's selects share one read transaction (RequestTransaction),
 * ended when grafast's execution of the request ends, however it ends (an answer, errors, its
 * time-out, a thrown error). Mutations keep one transaction per statement, as before.
 */
export function oneReadTransactionPerQuery(pool: pg.Pool): GraphileConfig.Plugin {
  return {
    name: 'SanadOneReadTransactionPerQuery',
    version: '1.0.0',
    grafast: {
      middleware: {
        execute(next, event) {
          const { args } = event;
          const context = args.contextValue as GrafastContext | undefined;
          if (!context?.pgSettings || !isQuery(args.document, args.operationName)) return next();
          // The request's own copy: the key of its transaction can belong to no other request.
          const pgSettings = readSettings(context.pgSettings, args.document, args.operationName);
          context.pgSettings = pgSettings;
          const transaction = new RequestTransaction(pool, transactionSetup(pgSettings));
          requestTransactions.set(pgSettings, transaction);
          return finishAfter(next, transaction);
        },
      },
    },
  };
}

/** Runs the execution and ends the request's transaction when it is done, before its answer goes out. */
async function finishAfter<T>(next: () => T, transaction: RequestTransaction): Promise<Awaited<T>> {
  try {
    return await next();
  } finally {
    await transaction.end();
  }
}

/** The service with its request connections made by makeWithPgClient; other variants (SUPERUSER) as before. */
export function withOneMessageSetup(service: GraphileConfig.PgServiceConfiguration, pool: pg.Pool): GraphileConfig.PgServiceConfiguration {
  const stock = service.adaptor;
  return {
    ...service,
    adaptor: {
      ...stock,
      createWithPgClient: (settings: unknown, variant?: 'SUPERUSER' | null) =>
        variant === 'SUPERUSER' ? stock.createWithPgClient(settings as never, variant) : makeWithPgClient(pool),
    } as typeof stock,
  };
}
