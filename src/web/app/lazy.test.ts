import { afterEach, describe, expect, it, vi } from 'vitest';
import { CHUNK_TIMEOUT_MS, ChunkLoadError, ModuleNotFoundError, pickScreen, withChunkTimeout } from './lazy';

afterEach(() => {
  vi.useRealTimers();
});

describe('chunk loading (spec §8)', () => {
  it('raises a timeout error with the request after 120 seconds', async () => {
    vi.useFakeTimers();
    const pending = withChunkTimeout(() => new Promise<never>(() => undefined), 'assessments');
    const caught = pending.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(CHUNK_TIMEOUT_MS - 1);
    let settled = false;
    void caught.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const error = (await caught) as ChunkLoadError;
    expect(CHUNK_TIMEOUT_MS).toBe(120_000);
    expect(error).toBeInstanceOf(ChunkLoadError);
    expect(error.type).toBe('timeout');
    expect(error.request).toBe('assessments');
    expect(error.code).toBe('chunk_load_failed');
  });

  it('raises a script error when the chunk fails', async () => {
    const error = await withChunkTimeout(() => Promise.reject(new Error('net::ERR_FAILED')), 'main').catch((e: unknown) => e);
    expect(error).toMatchObject({ type: 'error', request: 'main' });
  });

  it('passes the module through when it arrives in time', async () => {
    await expect(withChunkTimeout(() => Promise.resolve({ ok: 1 }), 'main')).resolves.toEqual({ ok: 1 });
  });
});

describe('pickScreen (spec §8 module not found)', () => {
  it('returns the screen a section exports', () => {
    const Screen = () => null;
    expect(pickScreen({ Screen }, 'main', (m) => m.Screen).default).toBe(Screen);
  });
  it('raises a module-not-found error when the section has no such screen', () => {
    expect(() => pickScreen({} as { Screen?: () => null }, 'staff', (m) => m.Screen)).toThrow(ModuleNotFoundError);
    expect(() => pickScreen({} as { Screen?: () => null }, 'staff', (m) => m.Screen)).toThrow("Cannot find module 'staff'");
  });
});
