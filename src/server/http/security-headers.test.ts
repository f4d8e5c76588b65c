import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import helmet from 'helmet';
import { describe, expect, it } from 'vitest';
import { securityHeaders } from './security-headers';

const OPTIONS = { contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], frameAncestors: ["'none'"] } }, crossOriginEmbedderPolicy: false };

describe('securityHeaders', () => {
  it('are exactly what helmet sets on a real response', () => {
    const response = new ServerResponse(new IncomingMessage(new Socket()));
    helmet(OPTIONS)(response.req, response, () => undefined);
    const real = Object.fromEntries(Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]));
    expect(securityHeaders(OPTIONS)).toEqual(real);
    expect(real['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(real['x-content-type-options']).toBe('nosniff');
  });

  it('refuse a policy helmet refuses, at start rather than per request', () => {
    expect(() => securityHeaders({ contentSecurityPolicy: { directives: { defaultSrc: ["'self'"], scriptSrc: ['self'] } } })).toThrow();
  });
});
