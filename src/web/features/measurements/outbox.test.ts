import { describe, expect, it } from 'vitest';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import { ApiError } from '../../api/client';
import { AnswerOutbox, clearAllOutboxes, isTransient, outboxKey, type OutboxState } from './outbox';

class MemoryStorage {
  readonly map = new Map<string, string>();
  get length() {
    return this.map.size;
  }
  key(i: number) {
    return [...this.map.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.map.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.map.set(k, v);
  }
  removeItem(k: string) {
    this.map.delete(k);
  }
  clear() {
    this.map.clear();
  }
}

/** A server whose connection can drop; it records what it stored. */
function server() {
  const stored: AnswerChanges[] = [];
  let failure: Error | null = null;
  return {
    stored,
    fail(error: Error | null) {
      failure = error;
    },
    async send(changes: AnswerChanges) {
      await Promise.resolve();
      if (failure) throw failure;
      stored.push(changes);
    },
  };
}

/** Timers the test fires by hand. */
function timers() {
  const queue: { callback: () => void; ms: number }[] = [];
  return {
    queue,
    setTimer: (callback: () => void, ms: number) => {
      const entry = { callback, ms };
      queue.push(entry);
      return entry;
    },
    clearTimer: (timer: unknown) => {
      const index = queue.indexOf(timer as (typeof queue)[number]);
      if (index >= 0) queue.splice(index, 1);
    },
    fire() {
      const entry = queue.shift();
      entry?.callback();
    },
  };
}

const OFFLINE = new ApiError(0, 'network', 'The server cannot be reached.');

function setup(retryDelaysMs = [10, 20], keepRefused = false) {
  const storage = new MemoryStorage();
  const remote = server();
  const clock = timers();
  const states: OutboxState[] = [];
  const rejected: ApiError[] = [];
  const key = outboxKey('u1', 'c1', 'screening', 'phq9');
  const outbox = new AnswerOutbox({
    key,
    storage,
    send: remote.send,
    retryDelaysMs,
    setTimer: clock.setTimer,
    clearTimer: clock.clearTimer,
    onState: (s) => states.push(s),
    onRejected: (e) => rejected.push(e),
    keepRefused,
  });
  return { storage, remote, clock, states, rejected, key, outbox };
}

describe('answer outbox', () => {
  it('keeps an answer on the device before it is sent, and forgets it once stored', async () => {
    const { outbox, storage, key, remote } = setup();
    outbox.add({ item1: 2 });
    expect(JSON.parse(storage.getItem(key)!)).toEqual({ item1: 2 });
    expect(await outbox.flush()).toBe(true);
    expect(remote.stored).toEqual([{ item1: 2 }]);
    expect(storage.getItem(key)).toBeNull();
  });

  it('loses nothing while offline and sends everything once the connection is back', async () => {
    const { outbox, remote, clock, states, storage, key } = setup();
    remote.fail(OFFLINE);
    outbox.add({ item1: 1 });
    expect(await outbox.flush()).toBe(false);
    outbox.add({ item2: 3, item3: null });
    expect(await outbox.flush()).toBe(false);
    expect(states).toContain('waiting');
    expect(JSON.parse(storage.getItem(key)!)).toEqual({ item1: 1, item2: 3, item3: null });
    // A retry is waiting; the connection comes back and it goes through.
    expect(clock.queue.length).toBe(1);
    remote.fail(null);
    clock.fire();
    await expect.poll(() => remote.stored.length).toBe(1);
    expect(remote.stored[0]).toEqual({ item1: 1, item2: 3, item3: null });
    expect(storage.getItem(key)).toBeNull();
    expect(states.at(-1)).toBe('saved');
  });

  it('backs off between retries, the last delay repeating', async () => {
    const { outbox, remote, clock } = setup([10, 20]);
    remote.fail(new ApiError(503, 'http_503', 'busy'));
    outbox.add({ item1: 1 });
    await outbox.flush();
    expect(clock.queue.map((t) => t.ms)).toEqual([10]);
    clock.fire();
    await expect.poll(() => clock.queue.map((t) => t.ms)).toEqual([20]);
    clock.fire();
    await expect.poll(() => clock.queue.map((t) => t.ms)).toEqual([20]);
  });

  it('keeps an answer changed again while the first value was on its way, then sends it', async () => {
    const storage = new MemoryStorage();
    const key = outboxKey('u1', 'c1', 'pre', 'phq9');
    const sent: AnswerChanges[] = [];
    const waiting: (() => void)[] = [];
    const slow = new AnswerOutbox({
      key,
      storage,
      send: (changes) => {
        sent.push(changes);
        return new Promise<void>((resolve) => waiting.push(resolve));
      },
      setTimer: () => null,
      clearTimer: () => undefined,
    });
    slow.add({ item1: 1 });
    const done = slow.flush();
    slow.add({ item1: 2 });
    waiting.shift()!();
    await expect.poll(() => sent.length).toBe(2);
    expect(JSON.parse(storage.getItem(key)!)).toEqual({ item1: 2 });
    waiting.shift()!();
    expect(await done).toBe(true);
    expect(sent).toEqual([{ item1: 1 }, { item1: 2 }]);
    expect(storage.getItem(key)).toBeNull();
  });

  it('does not retry a refusal, drops it and says so', async () => {
    const { outbox, remote, clock, rejected, storage, key } = setup();
    remote.fail(new ApiError(400, 'http_400', 'The answers do not fit phq9'));
    outbox.add({ item1: 9 });
    expect(await outbox.flush()).toBe(false);
    expect(rejected.map((e) => e.status)).toEqual([400]);
    expect(clock.queue).toEqual([]);
    expect(storage.getItem(key)).toBeNull();
  });

  it('with keepRefused keeps a refused change on the device, says refused (never saved) and sends it again once changed', async () => {
    const { outbox, remote, clock, rejected, states, storage, key } = setup([10, 20], true);
    remote.fail(new ApiError(400, 'interview_not_started', 'The interview has not started yet'));
    outbox.add({ age: 30 });
    expect(await outbox.flush()).toBe(false);
    expect(rejected.map((e) => e.code)).toEqual(['interview_not_started']);
    expect(clock.queue).toEqual([]);
    expect(JSON.parse(storage.getItem(key)!)).toEqual({ age: 30 });
    expect(states.at(-1)).toBe('rejected');
    remote.fail(null);
    outbox.add({ sex: 'FEMALE' });
    expect(await outbox.flush()).toBe(true);
    expect(remote.stored).toEqual([{ age: 30, sex: 'FEMALE' }]);
    expect(storage.getItem(key)).toBeNull();
  });

  it('reads a damaged local copy as nothing pending', () => {
    const { outbox, storage, key } = setup();
    storage.setItem(key, '{not json');
    expect(outbox.pending()).toEqual({});
    storage.setItem(key, '[1,2]');
    expect(outbox.hasPending()).toBe(false);
  });

  it('tells transient failures from refusals', () => {
    expect(isTransient(OFFLINE)).toBe(true);
    expect(isTransient(new ApiError(502, 'x', 'x'))).toBe(true);
    expect(isTransient(new ApiError(429, 'x', 'x'))).toBe(true);
    expect(isTransient(new ApiError(403, 'x', 'x'))).toBe(false);
    expect(isTransient(new TypeError('fetch failed'))).toBe(true);
  });

  it('clears every unsent answer on the device, and nothing else', () => {
    const storage = new MemoryStorage();
    storage.setItem(outboxKey('u1', 'c1', 'pre', 'gad7'), '{}');
    storage.setItem(outboxKey('u2', 'c2', 'pre', 'gad7'), '{}');
    storage.setItem('locale', 'ar');
    clearAllOutboxes(storage as unknown as Storage);
    expect([...storage.map.keys()]).toEqual(['locale']);
  });
});
