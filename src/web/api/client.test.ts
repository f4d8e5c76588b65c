import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, graphql, isCodedError } from './client';

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('coded errors (spec §8)', () => {
  it('recognises errors that carry a string code', () => {
    expect(isCodedError(new ApiError(401, 'invalid_credentials', 'x'))).toBe(true);
    expect(isCodedError({ code: 'NOT_FOUND_OR_DENIED', message: 'x' })).toBe(true);
    expect(isCodedError(new Error('plain'))).toBe(false);
    expect(isCodedError({ code: 42 })).toBe(false);
    expect(isCodedError(null)).toBe(false);
  });
});

describe('mutation errors (spec §7, §8)', () => {
  it('passes every error to the handler and records a throwing handler as uncaught', async () => {
    // Signed out: no token in either storage.
    vi.stubGlobal('sessionStorage', { getItem: () => null });
    vi.stubGlobal('localStorage', { getItem: () => null });
    vi.stubGlobal(
      'fetch',
      vi.fn(async () =>
        new Response(JSON.stringify({ data: { a: null }, errors: [{ message: 'first', extensions: { code: 'A' } }, { message: 'second', extensions: { code: 'B' } }] }), {
          status: 200,
        }),
      ),
    );
    const handled: string[] = [];
    const uncaught: unknown[] = [];
    const data = await graphql<{ a: null }>('mutation { a }', {}, {
      onError: (error) => {
        handled.push(error.code);
        if (error.code === 'B') throw error;
      },
      onUncaught: (error) => uncaught.push(error),
    });
    expect(data).toEqual({ a: null });
    expect(handled).toEqual(['A', 'B']);
    expect(uncaught).toHaveLength(1);
    await expect(graphql('mutation { a }')).rejects.toMatchObject({ code: 'A', message: 'first' });
  });
});
