import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerRequestId, requestIdFor, withRequestId } from './request-id';

describe('request ids', () => {
  it('keeps a sane incoming id and replaces anything else', () => {
    expect(requestIdFor({ headers: { 'x-request-id': 'abc-123:4@lb' } })).toBe('abc-123:4@lb');
    for (const bad of ['', 'has space', 'x'.repeat(129), '<script>', 'a\nb']) {
      expect(requestIdFor({ headers: { 'x-request-id': bad } })).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('puts the id into a 5xx JSON body, once', () => {
    expect(JSON.parse(withRequestId('{"error":"internal"}', 'r1'))).toEqual({
      error: 'internal',
      requestId: 'r1',
    });
    expect(withRequestId('{"requestId":"kept"}', 'r2')).toBe('{"requestId":"kept"}');
    expect(withRequestId('not json', 'r3')).toBe('not json');
  });

  it('a failing route answers 500 with the id in the header and the body', async () => {
    const app = Fastify({ genReqId: requestIdFor, requestIdHeader: false });
    registerRequestId(app);
    app.get('/boom', async () => {
      throw new Error('broken');
    });
    app.get('/fine', async () => ({ ok: true }));
    const boom = await app.inject({
      method: 'GET',
      url: '/boom',
      headers: { 'x-request-id': 'quote-me-1' },
    });
    expect(boom.statusCode).toBe(500);
    expect(boom.headers['x-request-id']).toBe('quote-me-1');
    expect(boom.json()).toMatchObject({ requestId: 'quote-me-1' });
    const fine = await app.inject({ method: 'GET', url: '/fine' });
    expect(fine.json()).toEqual({ ok: true });
    await app.close();
  });
});
