import { describe, expect, it } from 'vitest';
import { isMutation, needsIdempotencyKey, newIdempotencyKey } from './idempotency';

describe('idempotency keys of the web app', () => {
  it('are random version-4 UUIDs', () => {
    const a = newIdempotencyKey();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newIdempotencyKey()).not.toBe(a);
  });

  it('go with mutations and other writes, not with reads', () => {
    expect(isMutation('# a comment\n  mutation SendMessage($x: Int) { x }')).toBe(true);
    expect(isMutation('query Cases { x }')).toBe(false);
    expect(isMutation('{ mutationCount }')).toBe(false);
    expect(needsIdempotencyKey('POST', '/api/graphql', { query: 'mutation M { a }' })).toBe(true);
    expect(needsIdempotencyKey('POST', '/api/graphql', { query: 'query Q { a }' })).toBe(false);
    expect(needsIdempotencyKey('POST', '/api/phq9', {})).toBe(true);
    expect(needsIdempotencyKey('PATCH', '/api/phq9?id=eq.1', {})).toBe(true);
    expect(needsIdempotencyKey('GET', '/api/phq9', undefined)).toBe(false);
    expect(needsIdempotencyKey('POST', '/api/auth/tokens', {})).toBe(false);
  });
});
