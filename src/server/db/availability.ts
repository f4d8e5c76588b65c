/**
 * Whether the database can be reached right now (issue 28). A PostgreSQL server that restarts,
 * fails over or drops off the network must not end the process or turn every answer into a 500:
 * errors that say "the connection is gone" mark the database unavailable, the API answers 503
 * with Retry-After while it is (src/server/http/unavailable.ts), the background workers pause,
 * and a probe every second notices when it is back, with no restart.
 */
import type pg from 'pg';

/** Node's socket errors that mean the server cannot be reached. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ECONNABORTED']);

/**
 * SQLSTATEs of a server that is going away or not yet there: class 08 (connection exception),
 * admin/crash shutdown (57P01, 57P02), cannot connect now (57P03: starting up, recovering), and
 * 55000 only with "not currently accepting connections" (a database closed to connections).
 */
function unavailableSqlState(code: string, message: string): boolean {
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03') return true;
  return code === '55000' && /not currently accepting connections/.test(message);
}

/** node-postgres's own messages for a connection that ended or could not be made. */
const CLIENT_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection closed|connect ECONNREFUSED|terminating connection due to/;

/** True when `error` (or an error it wraps) says the database cannot be reached. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const { code, message, cause, originalError, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; originalError?: unknown; errors?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && unavailableSqlState(code, text)))) return true;
  if (CLIENT_MESSAGES.test(text)) return true;
  // AggregateError (a connect to every address of a host failed), GraphQL's and Error's wrappers.
  if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1) || isDatabaseUnavailable(originalError, depth + 1);
}

export interface AvailabilityLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

/** What the API and the workers ask: is the database there, and here is an error I saw. */
export interface AvailabilityGate {
  readonly available: boolean;
  /** Records an error; true when it says the database cannot be reached (then a probe starts). */
  report(error: unknown): boolean;
}

export class DatabaseAvailability implements AvailabilityGate {
  private down = false;
  private since: Date | undefined;
  private probing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** How many times the database went away since start (for /metrics). */
  outages = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly log: AvailabilityLog,
    private readonly probeIntervalMs = 1000,
  ) {
    // An idle connection that dies (the server stopped, a backend was terminated) is reported
    // by the pool; a checked-out one by the client itself (database.ts forwards it to the pool).
    pool.on('error', this.onPoolError);
  }

  private readonly onPoolError = (error: Error): void => {
    this.report(error);
  };

  get available(): boolean {
    return !this.down;
  }

  /** When the current outage began, or undefined while the database is reachable. */
  get unavailableSince(): Date | undefined {
    return this.since;
  }

  report(error: unknown): boolean {
    if (!isDatabaseUnavailable(error)) return false;
    // One terminated connection is not yet an outage: a probe decides, at once.
    void this.probe(error);
    return true;
  }

  /** Asks the database for `select 1`; marks it down or up by the answer. */
  private probe(cause?: unknown): Promise<void> {
    if (this.probing || this.stopped) return this.probing ?? Promise.resolve();
    this.probing = (async () => {
      try {
        await this.pool.query('select 1');
        if (this.down) {
          this.log.info({ unavailableSince: this.since?.toISOString() }, 'database reachable again: serving requests and resuming background work');
          this.down = false;
          this.since = undefined;
        }
      } catch (error) {
        if (!this.down) {
          this.down = true;
          this.since = new Date();
          this.outages += 1;
          const reason = (error as Error)?.message ?? (cause as Error)?.message;
          this.log.warn({ reason }, 'database unreachable: answering 503 and pausing background work until it is back');
        }
        this.schedule();
      } finally {
        this.probing = undefined;
      }
    })();
    return this.probing;
  }

  private schedule(): void {
    if (this.timer || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.probe();
    }, this.probeIntervalMs);
    this.timer.unref();
  }

  /** Stops probing (shutdown); waits for a probe under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pool.off('error', this.onPoolError);
    if (this.timer) clearTimeout(this.timer);
    await this.probing;
  }
}
