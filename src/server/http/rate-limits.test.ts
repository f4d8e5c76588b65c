import { describe, expect, it } from 'vitest';
import { createRequestLimiter, WindowCounter } from './rate-limits';

describe('request limits', () => {
  it('counts a fixed window per key and says how long to wait', () => {
    let now = 0;
    const counter = new WindowCounter(2, 60_000, () => now);
    expect([counter.hit('a').allowed, counter.hit('a').allowed, counter.hit('a').allowed, counter.hit('b').allowed]).toEqual([true, true, false, true]);
    now = 45_000;
    expect(counter.hit('a')).toEqual({ allowed: false, retryAfterSeconds: 15 });
    now = 60_000;
    expect(counter.hit('a').allowed).toBe(true);
  });

  it('limits people and addresses separately; 0 turns a limit off', () => {
    const limiter = createRequestLimiter({ perPersonPerMinute: 1, perAddressPerMinute: 3 }, () => 0);
    expect(limiter.check({ userId: 'p' }, '1.1.1.1')).toBeUndefined();
    expect(limiter.check({ userId: 'p' }, '2.2.2.2')).toMatchObject({ limited: 'person' });
    expect(limiter.check({ userId: null }, '1.1.1.1')).toBeUndefined();
    expect(limiter.check({ userId: 'q' }, '1.1.1.1')).toBeUndefined();
    expect(limiter.check({ userId: 'r' }, '1.1.1.1')).toMatchObject({ limited: 'address', retryAfterSeconds: 60 });
    const off = createRequestLimiter({ perPersonPerMinute: 0, perAddressPerMinute: 0 });
    for (let i = 0; i < 1000; i++) expect(off.check({ userId: 'p' }, 'x')).toBeUndefined();
  });
});
