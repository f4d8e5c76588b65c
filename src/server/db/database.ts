/**
 * One interface over both databases: a node-postgres Pool. For PostgreSQL it is a real pool;
 * for the embedded PGlite it is a one-connection pool over PGlite's node-postgres bridge, so
 * every caller (services, PostGraphile, migrations, tests) writes the same code.
 */
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { citext } from '@electric-sql/pglite/contrib/citext';
import { btree_gist } from '@electric-sql/pglite/contrib/btree_gist';
import { acquireDirectoryLock, type DirectoryLock } from './dir-lock';
import { derivedAuthenticatorUrl } from './authenticator';
import { registerOwnerPool } from './transaction';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  kind: DatabaseKind;
  /**
   * Connections as the schema owner: migrations, the CLI and background work (the owner paths
   * listed in docs/decisions/authenticator-role.md). Requests use requestPool.
   */
  pool: pg.Pool;
  /**
   * Connections as sanad_authenticator (PostgreSQL; migration 0300): requests switch to their
   * role per transaction, and `reset role` leaves a role without privileges. On PGlite, one
   * session serves both and this is `pool` (what PGlite cannot guarantee: the decision record).
   */
  requestPool: pg.Pool;
  /** The embedded database itself (PGlite only): its data directory can be dumped (backup). */
  pglite?: PGlite;
  close(): Promise<void>;
}

/** Extensions the migrations use; PGlite must load them on every open, not only the first. */
const PGLITE_EXTENSIONS = { pg_trgm, citext, btree_gist };

// timestamptz and friends come back as JS Dates by default; keep that, but parse int8 counts
// (count(*)) as numbers: no count here comes near 2^53.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export interface OpenOptions {
  databaseUrl?: string | undefined;
  dataDir: string;
  poolSize?: number;
  /** How long to wait for a new PostgreSQL connection before giving up, in ms (issue 28). */
  connectTimeoutMs?: number;
  /** The request pool's login (issue 34); unset: derived from databaseUrl (authenticator.ts). */
  authenticatorUrl?: string | undefined;
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  if (options.databaseUrl) {
    const authenticatorUrl = options.authenticatorUrl || derivedAuthenticatorUrl(options.databaseUrl);
    return openPostgres(options.databaseUrl, authenticatorUrl, options.poolSize ?? 20, options.connectTimeoutMs ?? 5000);
  }
  return openPglite(options.dataDir);
}

function openPostgres(ownerUrl: string, authenticatorUrl: string, max: number, connectionTimeoutMillis: number): Database {
  // A connect that cannot succeed (the server is down or off the network) fails within
  // connectionTimeoutMillis instead of holding the request forever; keepAlive notices a peer
  // that vanished without closing the connection. Both pools may open `max` connections: the
  // owner's still serves the routes listed as owner paths (docs/decisions/authenticator-role.md),
  // and a pool opens a connection only when one is asked for.
  const pool = new pg.Pool({ connectionString: ownerUrl, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis, keepAlive: true });
  const requestPool = new pg.Pool({ connectionString: authenticatorUrl, max, idleTimeoutMillis: 30_000, connectionTimeoutMillis, keepAlive: true });
  guardConnectionErrors(pool);
  guardConnectionErrors(requestPool);
  registerOwnerPool(requestPool, pool);
  return {
    kind: 'postgres',
    pool,
    requestPool,
    close: async () => {
      await Promise.all([requestPool.end(), pool.end()]);
    },
  };
}

/**
 * No database error may end the process (issue 28). node-postgres emits 'error' on a client
 * whose connection dies: the pool listens while the client is idle, but a client checked out by
 * a request between two queries has no listener, and an 'error' event without one ends Node
 * ("Unhandled 'error' event … terminating connection due to unexpected postmaster exit"). Every
 * client gets a listener that hands the error to the pool's 'error' event, where the
 * availability monitor (availability.ts) hears it; the pool always has a listener too.
 */
function guardConnectionErrors(pool: pg.Pool): void {
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', (error) => {
      pool.emit('error', error, client);
    });
  });
}

/** Opens (or, with `loadDataDir`, first fills from a dump) PGlite's files in `directory`. */
export function createPglite(directory: string, loadDataDir?: Blob): Promise<PGlite> {
  return PGlite.create(directory, { extensions: PGLITE_EXTENSIONS, ...(loadDataDir ? { loadDataDir } : {}) });
}

/** The folder inside DATA_DIR that holds PGlite's files. */
export function pgliteDirectory(dataDir: string): string {
  return path.join(dataDir, 'pgdata');
}

async function openPglite(dataDir: string): Promise<Database> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock: DirectoryLock = acquireDirectoryLock(dataDir);
  try {
    const pglite = await createPglite(pgliteDirectory(dataDir));
    const pool = new pg.Pool({ ...createPgConfig(pglite), max: 1, idleTimeoutMillis: 0 });
    guardConnectionErrors(pool);
    return {
      kind: 'pglite',
      pool,
      requestPool: pool,
      pglite,
      async close() {
        await pool.end();
        await pglite.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
