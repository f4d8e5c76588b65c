import { describe, expect, it } from 'vitest';
import { VersionReads } from './read-cache';

/** A version read the test ends by hand, counting how many were started. */
function manualReads() {
  const started: { resolve(version: string): void; reject(error: Error): void }[] = [];
  const reads = new VersionReads(
    () =>
      new Promise<string>((resolve, reject) => {
        started.push({ resolve, reject });
      }),
  );
  return { reads, started };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('VersionReads', () => {
  it('answers requests that arrive during a read with the next read, shared by all of them', async () => {
    const { reads, started } = manualReads();
    const first = reads.next();
    const second = reads.next();
    const third = reads.next();
    expect(started).toHaveLength(1);
    started[0]!.resolve('1');
    expect(await first).toBe('1');
    await tick();
    expect(started).toHaveLength(2);
    started[1]!.resolve('2');
    expect(await second).toBe('2');
    expect(await third).toBe('2');
    const fourth = reads.next();
    expect(started).toHaveLength(3);
    started[2]!.resolve('3');
    expect(await fourth).toBe('3');
  });

  it('starts the next read after a failed one, and passes the failure only to its own requests', async () => {
    const { reads, started } = manualReads();
    const first = reads.next();
    const second = reads.next();
    started[0]!.reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    await tick();
    started[1]!.resolve('7');
    expect(await second).toBe('7');
  });
});
