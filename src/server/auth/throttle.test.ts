import { describe, expect, it } from 'vitest';
import { SignInThrottle } from './throttle';

function throttle(settings: Partial<ConstructorParameters<typeof SignInThrottle>[0]> = {}) {
  let now = 1_000_000;
  const instance = new SignInThrottle({ freeFailures: 3, windowSeconds: 900, maxDelaySeconds: 60, freeFailuresPerAddress: 10, ...settings }, () => now);
  return { instance, advance: (ms: number) => (now += ms) };
}

describe('sign-in throttle', () => {
  it('lets the first failures through, then waits 1 s, 2 s, 4 s … up to the ceiling', () => {
    const { instance, advance } = throttle({ maxDelaySeconds: 8 });
    expect([instance.recordFailure('ana', '1.2.3.4'), instance.recordFailure('ana', '1.2.3.4')]).toEqual([0, 0]);
    const waits: number[] = [];
    for (let i = 0; i < 6; i++) {
      waits.push(instance.recordFailure('ana', '1.2.3.4'));
      expect(instance.waitSeconds('ana', '1.2.3.4')).toBe(waits.at(-1));
      advance(waits.at(-1)! * 1000);
    }
    expect(waits).toEqual([1, 2, 4, 8, 8, 8]);
    expect(instance.waitSeconds('ana', '1.2.3.4')).toBe(0);
  });

  it('keys by the name as typed (known or not, any case) and the address, so others are not held back', () => {
    const { instance } = throttle();
    for (let i = 0; i < 3; i++) instance.recordFailure('Ana', '1.2.3.4');
    expect(instance.waitSeconds('ana', '1.2.3.4')).toBe(1);
    expect(instance.waitSeconds('ana', '5.6.7.8')).toBe(0);
    expect(instance.waitSeconds('bob', '1.2.3.4')).toBe(0);
  });

  it('slows an address that tries many names', () => {
    const { instance } = throttle({ freeFailuresPerAddress: 4 });
    for (const name of ['a', 'b', 'c', 'd']) instance.recordFailure(name, '9.9.9.9');
    expect(instance.waitSeconds('e', '9.9.9.9')).toBe(1);
    expect(instance.waitSeconds('e', '9.9.9.8')).toBe(0);
  });

  it('forgets failures after the window and after a success', () => {
    const { instance, advance } = throttle();
    instance.recordFailure('ana', 'x');
    instance.recordFailure('ana', 'x');
    advance(901_000);
    expect(instance.recordFailure('ana', 'x')).toBe(0); // counting starts again
    instance.recordFailure('ana', 'x');
    instance.recordSuccess('ana', 'x');
    expect(instance.recordFailure('ana', 'x')).toBe(0);
  });
});
