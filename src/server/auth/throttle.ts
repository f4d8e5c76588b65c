/**
 * Sign-in throttling (issue 16) in place of the account lock: failed sign-ins are counted per
 * (sign-in name, client address) and per client address, and after a few free failures each
 * further failure makes that pair or address wait longer (1 s, 2 s, 4 s, … up to a ceiling).
 *
 * Why not a lock: a lock per account is a switch anyone can flip to keep the real person out,
 * and its distinct answer tells an attacker that the account exists. Here the key is the name
 * as typed, known or not, so an unknown name is slowed exactly like a known one, and a person
 * signing in from their own address is never held back by someone else's guesses.
 * In this process's memory (a restart forgets the counts, docs/decisions/0002-sign-in-and-tokens.md),
 * or in PostgreSQL when several processes share one (SharedSignInThrottle, issue 28).
 */
import type pg from 'pg';

export interface ThrottleSettings {
  /** Failures allowed per name and address before delays start. */
  freeFailures: number;
  /** Failures are forgotten this long after the last one. */
  windowSeconds: number;
  /** The longest delay. */
  maxDelaySeconds: number;
  /** Failures allowed per address (across names) before delays start. */
  freeFailuresPerAddress: number;
}

/** What sign-in asks of a throttle: this process's memory (SignInThrottle) or PostgreSQL (SharedSignInThrottle). */
export interface SignInThrottling {
  waitSeconds(login: string, address: string): number | Promise<number>;
  recordFailure(login: string, address: string): number | Promise<number>;
  recordSuccess(login: string, address: string): void | Promise<void>;
}

interface Failures {
  count: number;
  lastAt: number;
  waitUntil: number;
}

export class SignInThrottle implements SignInThrottling {
  private readonly failures = new Map<string, Failures>();
  private nextSweep = 0;

  constructor(
    private readonly settings: ThrottleSettings,
    private readonly now: () => number = Date.now,
  ) {}

  static pairKey(login: string, address: string): string {
    return `pair:${login.trim().toLowerCase()}|${address}`;
  }

  /** Seconds the caller must still wait before the next attempt, or 0. */
  waitSeconds(login: string, address: string): number {
    const now = this.now();
    this.sweep(now);
    const until = Math.max(this.entry(SignInThrottle.pairKey(login, address), now)?.waitUntil ?? 0, this.entry(`address:${address}`, now)?.waitUntil ?? 0);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  /** Records a failed attempt; answers the wait it starts (0 while failures are still free). */
  recordFailure(login: string, address: string): number {
    const now = this.now();
    const pair = this.bump(SignInThrottle.pairKey(login, address), now, this.settings.freeFailures);
    const byAddress = this.bump(`address:${address}`, now, this.settings.freeFailuresPerAddress);
    const until = Math.max(pair, byAddress);
    return until > now ? Math.ceil((until - now) / 1000) : 0;
  }

  /** A successful sign-in forgets the failures of this name at this address. */
  recordSuccess(login: string, address: string): void {
    this.failures.delete(SignInThrottle.pairKey(login, address));
  }

  private entry(key: string, now: number): Failures | undefined {
    const entry = this.failures.get(key);
    if (entry && now - entry.lastAt > this.settings.windowSeconds * 1000 && entry.waitUntil <= now) {
      this.failures.delete(key);
      return undefined;
    }
    return entry;
  }

  private bump(key: string, now: number, free: number): number {
    const entry = this.entry(key, now) ?? { count: 0, lastAt: now, waitUntil: 0 };
    entry.count += 1;
    entry.lastAt = now;
    if (entry.count >= free) {
      const delay = Math.min(2 ** (entry.count - free), this.settings.maxDelaySeconds);
      entry.waitUntil = now + delay * 1000;
    }
    this.failures.set(key, entry);
    return entry.waitUntil;
  }

  private sweep(now: number): void {
    if (now < this.nextSweep) return;
    this.nextSweep = now + 60_000;
    for (const key of [...this.failures.keys()]) this.entry(key, now);
  }
}

/**
 * The same throttle kept in PostgreSQL (issue 28, migration 0170): failures count across every
 * server process, so several processes do not hand out several times the free attempts.
 */
export class SharedSignInThrottle implements SignInThrottling {
  constructor(
    private readonly pool: pg.Pool,
    private readonly settings: ThrottleSettings,
  ) {}

  async waitSeconds(login: string, address: string): Promise<number> {
    const { rows } = await this.pool.query<{ wait: number }>('select app_private.sign_in_wait($1::text[], $2) as wait', [
      [SignInThrottle.pairKey(login, address), `address:${address}`],
      this.settings.windowSeconds,
    ]);
    return rows[0]!.wait;
  }

  async recordFailure(login: string, address: string): Promise<number> {
    const { rows } = await this.pool.query<{ wait: number }>('select app_private.record_sign_in_failure($1::text[], $2::integer[], $3, $4) as wait', [
      [SignInThrottle.pairKey(login, address), `address:${address}`],
      [this.settings.freeFailures, this.settings.freeFailuresPerAddress],
      this.settings.windowSeconds,
      this.settings.maxDelaySeconds,
    ]);
    return rows[0]!.wait;
  }

  async recordSuccess(login: string, address: string): Promise<void> {
    await this.pool.query('select app_private.forget_sign_in_failures($1)', [SignInThrottle.pairKey(login, address)]);
  }
}
