import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, graphql, isCodedError, sendSigned, setSigner, signatureAsked } from './client';

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

describe('refusals before execution (issue 16)', () => {
  it('turns a GraphQL limit refusal into its code and a 429 into rate_limited', async () => {
    vi.stubGlobal('sessionStorage', { getItem: () => null });
    vi.stubGlobal('localStorage', { getItem: () => null });
    const answers = [
      new Response(JSON.stringify({ errors: [{ message: 'too deep', extensions: { code: 'QUERY_TOO_DEEP' } }] }), { status: 400 }),
      new Response(JSON.stringify({ errors: [{ message: 'wait', extensions: { code: 'RATE_LIMITED', retryAfterSeconds: 7 } }] }), { status: 429 }),
    ];
    vi.stubGlobal('fetch', vi.fn(async () => answers.shift()!));
    await expect(graphql('{ a }')).rejects.toMatchObject({ status: 400, code: 'QUERY_TOO_DEEP', message: 'too deep' });
    await expect(graphql('{ a }')).rejects.toMatchObject({ status: 429, code: 'rate_limited', message: 'wait' });
  });
});

describe('signed acts (issue 30)', () => {
  it('reads the act and record of both refusal shapes, and nothing else', () => {
    expect(signatureAsked(403, { error: 'signature_required', act: 'exclude', recordId: 'r1' })).toEqual({ act: 'exclude', recordId: 'r1' });
    expect(signatureAsked(403, { code: 'signature_invalid', details: { act: 'randomize', recordId: 'c1' } })).toEqual({ act: 'randomize', recordId: 'c1' });
    expect(signatureAsked(403, { error: 'forbidden' })).toBeUndefined();
    expect(signatureAsked(400, { error: 'signature_required', act: 'exclude', recordId: 'r1' })).toBeUndefined();
  });

  it('asks the signer once and repeats the request with the token; a cancelled signature leaves the refusal', async () => {
    const sent: Record<string, string>[] = [];
    vi.stubGlobal('fetch', async (_path: string, init: RequestInit) => {
      const headers = init.headers as Record<string, string>;
      sent.push(headers);
      return headers['sanad-signature'] === 'tok'
        ? new Response(null, { status: 204 })
        : new Response(JSON.stringify({ error: 'signature_required', act: 'exclude', recordId: 'r1' }), { status: 403 });
    });
    const asked: unknown[] = [];
    setSigner(async (ask) => {
      asked.push(ask);
      return 'tok';
    });
    expect((await sendSigned('/x', { method: 'POST', headers: {} })).status).toBe(204);
    expect(asked).toEqual([{ act: 'exclude', recordId: 'r1' }]);
    expect(sent.map((h) => h['sanad-signature'])).toEqual([undefined, 'tok']);
    setSigner(async () => null);
    expect((await sendSigned('/x', { method: 'POST', headers: {} })).status).toBe(403);
    setSigner(null);
  });
});
