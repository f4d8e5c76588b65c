/**
 * How PostGraphile reaches the database: @dataplan/pg's node-postgres adaptor, with the
 * request's transaction opened in one round trip instead of two.
 *
 * Grafast runs each SQL statement of a request in a `withPgClient` call of its own (a case list
 * page is four: the cases, then their latest messages, patients and memberships in batches),
 * and the stock adaptor wraps each one in `begin`, a `set_config(…) from json_array_elements($1)`
 * statement (parsed and planned every time) and `commit`: four round trips for one statement.
 * Here `begin` and the settings travel as one simple-protocol message, as withUser's do
 * (src/server/db/transaction.ts), and the statement and `commit` follow: three. At 32
 * concurrent requests on two cores the round trips cost both processes more CPU than the
 * short statements themselves (docs/DECISIONS.md "Speed at clinic scale").
 *
 * Everything else is as the stock adaptor does it: prepared statements by name with a bounded
 * cache per connection, savepoints for nested transactions, and queries issued one after the
 * other on the connection. The settings come from pgSettingsFor (the server's own values,
 * never a client's); they are quoted as literals anyway.
 */
import pg from 'pg';
import type { PgClient, PgClientQuery, PgClientResult, WithPgClient } from '@dataplan/pg';

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
  const self: PgClient = {
    query<TData>(opts: PgClientQuery): Promise<PgClientResult<TData>> {
      return inTurn(async () => {
        const config: pg.QueryConfig & { rowMode?: 'array' } = { text: opts.text, values: opts.values ?? [] };
        if (opts.arrayMode) config.rowMode = 'array';
        if (opts.name != null && PREPARED_STATEMENTS_PER_CONNECTION > 0) {
          rememberPrepared(client, preparedCache(client), opts.name);
          config.name = opts.name;
        }
        const result = await client.query(config);
        return { rows: result.rows as TData[], rowCount: result.rowCount };
      });
    },
    withTransaction<T>(callback: (inner: PgClient) => Promise<T>): Promise<T> {
      return inTurn(async () => {
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
      });
    },
  };
  return self;
}

/** withPgClient for PostGraphile: one transaction per call, opened in one message. */
export function makeWithPgClient(pool: pg.Pool): WithPgClient {
  return async <T>(pgSettings: Record<string, string | undefined> | null, callback: (client: PgClient) => T | Promise<T>): Promise<T> => {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query(transactionSetup(pgSettings));
      const result = await callback(transactionClient(client, 1));
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      // A connection that could not roll back is closed rather than handed to the next request.
      client.release(broken);
    }
  };
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
