import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

describe('hardening settings (issue 16)', () => {
  it('trusts no proxy by default and reads addresses, ranges, hop counts and true', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, loopback,::1' }).trustProxy).toEqual(['10.0.0.0/8', 'loopback', '::1']);
    expect(() => loadConfig({ TRUST_PROXY: 'everyone' })).toThrow(/TRUST_PROXY/);
  });

  it('has production limits by default, and 0 turns the request limits off', () => {
    const config = loadConfig({});
    expect(config.rateLimit).toEqual({ perPersonPerMinute: 600, perAddressPerMinute: 1200 });
    expect(config.graphqlLimits).toMatchObject({ maxCost: 100_000, maxDepth: 12, maxAliases: 64, maxRootFields: 64, defaultPageSize: 50 });
    expect(config.statementTimeoutMs).toBe(15_000);
    expect(loadConfig({ RATE_LIMIT_PER_PERSON_PER_MINUTE: '0' }).rateLimit.perPersonPerMinute).toBe(0);
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '0' })).toThrow(/GRAPHQL_MAX_DEPTH/);
  });
});
