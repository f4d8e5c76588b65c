/**
 * Request counters for the rate limits of issue 16: a fixed one-minute window per key
 * ("person:<id>", "address:<ip>"), in this process's memory (the embedded database, one
 * process), or in PostgreSQL for several processes (createSharedRequestLimiter, issue 28).
 */
import type pg from 'pg';

export interface WindowVerdict {
  allowed: boolean;
  /** Seconds until the key's window ends (the Retry-After of a refusal). */
  retryAfterSeconds: number;
}

export class WindowCounter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private nextSweep = 0;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Counts one request for `key`; refused once the window already holds `limit` requests. */
  hit(key: string): WindowVerdict {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + this.windowMs };
      this.windows.set(key, window);
    }
    const retryAfterSeconds = Math.max(1, Math.ceil((window.resetAt - now) / 1000));
    if (window.count >= this.limit) return { allowed: false, retryAfterSeconds };
    window.count += 1;
    return { allowed: true, retryAfterSeconds };
  }

  /** Drops ended windows at most once per window length, so memory follows the active keys. */
  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + this.windowMs;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

export type LimitVerdict = { retryAfterSeconds: number; limited: 'person' | 'address' } | undefined;

export interface RequestLimiter {
  /** undefined: go ahead; otherwise the seconds to wait and who was limited. */
  check(identity: { userId: string | null }, address: string): LimitVerdict | Promise<LimitVerdict>;
}

/**
 * The same limits kept in PostgreSQL (issue 28, migration 0170), so every server process
 * behind a balancer counts into one window per key: one statement per request for both keys.
 */
export function createSharedRequestLimiter(pool: pg.Pool, options: { perPersonPerMinute: number; perAddressPerMinute: number }): RequestLimiter {
  return {
    async check(identity, ip) {
      const keys: string[] = [];
      const limits: number[] = [];
      const kinds: ('address' | 'person')[] = [];
      if (options.perAddressPerMinute > 0) {
        keys.push(`address:${ip}`);
        limits.push(options.perAddressPerMinute);
        kinds.push('address');
      }
      if (identity.userId && options.perPersonPerMinute > 0) {
        keys.push(`person:${identity.userId}`);
        limits.push(options.perPersonPerMinute);
        kinds.push('person');
      }
      if (keys.length === 0) return undefined;
      const { rows } = await pool.query<{ waits: number[] }>('select app_private.hit_rate_limits($1::text[], $2::integer[], 60) as waits', [keys, limits]);
      const waits = rows[0]!.waits;
      const index = waits.findIndex((wait) => wait > 0);
      return index < 0 ? undefined : { retryAfterSeconds: waits[index]!, limited: kinds[index]! };
    },
  };
}

/**
 * The per-person and per-address limits of the API (GraphQL, REST collections, workflow and the
 * other data routes). A limit of 0 is off: tests and `npm run bench` (32 concurrent requests of
 * one person) turn them off or raise them in their own configuration.
 */
export function createRequestLimiter(options: { perPersonPerMinute: number; perAddressPerMinute: number }, now: () => number = Date.now): RequestLimiter {
  const person = options.perPersonPerMinute > 0 ? new WindowCounter(options.perPersonPerMinute, 60_000, now) : undefined;
  const address = options.perAddressPerMinute > 0 ? new WindowCounter(options.perAddressPerMinute, 60_000, now) : undefined;
  return {
    check(identity, ip) {
      const byAddress = address?.hit(`address:${ip}`);
      if (byAddress && !byAddress.allowed) return { retryAfterSeconds: byAddress.retryAfterSeconds, limited: 'address' };
      if (identity.userId && person) {
        const byPerson = person.hit(`person:${identity.userId}`);
        if (!byPerson.allowed) return { retryAfterSeconds: byPerson.retryAfterSeconds, limited: 'person' };
      }
      return undefined;
    },
  };
}
