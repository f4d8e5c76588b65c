/**
 * The GraphQL routes carry their own hooks in a Fastify scope of their own (app.ts,
 * registerGraphqlRoutes), and requests log one line each (http/request-log.ts). What must hold:
 * the guard still refuses (read-cache.int and compiled-lists.int cover the other two hooks);
 * every route, inside the scope or not, still gets the security headers, maintenance mode and
 * the rate limits; CSP is relaxed for GraphiQL alone; and each request still leaves its method,
 * URL, status and time in the log.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/config';
import { startTestApp, type TestApp } from '../helpers/app';
import { createTestDatabase } from '../helpers/databases';

let t: TestApp;
let therapist: Awaited<ReturnType<TestApp['user']>>;
beforeAll(async () => {
  t = await startTestApp();
  therapist = await t.user({ flags: ['therapist'] });
});
afterAll(async () => {
  await t?.close();
});

const deepQuery = (depth: number) => `{ allCasesList { ${'caseMembersByCaseIdList { caseByCaseId { '.repeat(depth)}id${' } }'.repeat(depth)} } }`;

describe('the GraphQL scope', () => {
  it('still refuses an over-deep query, and runs nothing sent by GET (no GET route)', async () => {
    const posted = await t.api('POST', '/api/graphql', { token: therapist.token, body: { query: deepQuery(8) } });
    expect(posted.status).toBe(400);
    expect(posted.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    const got = await t.api('GET', `/api/graphql?query=${encodeURIComponent('{ allCasesList { id } }')}`, { token: therapist.token });
    expect(got.status).toBe(404);
    // GraphQL is served by POST only: /api/graphql by GET is a REST collection that does not exist.
    expect(got.body.code).toBe('PGRST205');
  });

  it('gives GraphQL, REST, account and unknown routes the same security headers', async () => {
    const answers = [
      await t.api('POST', '/api/graphql', { token: therapist.token, body: { query: '{ allCasesList { id } }' } }),
      await t.api('GET', '/api/my_messages?select=id', { token: therapist.token }),
      await t.api('GET', '/api/auth/users/me', { token: therapist.token }),
      await t.api('GET', '/api/nothing-here'),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404]);
    for (const answer of answers) {
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'self'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    }
  });

  it('relaxes CSP for GraphiQL alone (outside production)', async () => {
    const graphiql = await fetch(`${t.url}/api/graphiql`);
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers.get('content-security-policy')).toBeNull();
    const graphql = await t.api('POST', '/api/graphql', { token: therapist.token, body: { query: '{ allCasesList { id } }' } });
    expect(graphql.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('keeps maintenance mode and the per-person limit in front of GraphQL and REST alike', async () => {
    const closed = await startTestApp({ MAINTENANCE: '1' });
    try {
      for (const [method, path] of [
        ['POST', '/api/graphql'],
        ['GET', '/api/my_messages'],
      ] as const) {
        const answer = await closed.api(method, path, method === 'POST' ? { body: { query: '{ __typename }' } } : {});
        expect(answer.status).toBe(503);
        expect(answer.body.maintenance).toBe(true);
      }
    } finally {
      await closed.close();
    }
    const limited = await startTestApp({ RATE_LIMIT_PER_PERSON_PER_MINUTE: '2' });
    try {
      const person = await limited.user({ flags: ['therapist'] });
      const graphql = () => limited.api('POST', '/api/graphql', { token: person.token, body: { query: '{ allCasesList { id } }' } });
      expect((await graphql()).status).toBe(200);
      expect((await limited.api('GET', '/api/my_messages?select=id', { token: person.token })).status).toBe(200);
      const refused = await graphql();
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
      const rest = await limited.api('GET', '/api/my_messages?select=id', { token: person.token });
      expect(rest.status).toBe(429);
      expect(rest.body.code).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('the request log', () => {
  it('writes one line per request with its method, URL, status and time, and none for the health probe', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    const database = await createTestDatabase();
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', DATA_DIR: database.dataDir, JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-signing' });
    const sanad = await buildApp({ config, db: database.db, logger: pino({ level: 'info' }, sink), serveWebApp: false });
    try {
      const status = await sanad.app.inject({ method: 'GET', url: '/api/status?x=1' });
      const missing = await sanad.app.inject({ method: 'GET', url: '/api/nothing-here' });
      const health = await sanad.app.inject({ method: 'GET', url: '/healthz' });
      expect([status.statusCode, missing.statusCode, health.statusCode]).toEqual([200, 404, 200]);
      const requests = lines.filter((line) => line.req !== undefined || line.res !== undefined);
      expect(requests).toHaveLength(2);
      expect(requests.map((line) => line.msg)).toEqual(['request completed', 'request completed']);
      expect(requests.map((line) => (line.req as { method: string; url: string }).url)).toEqual(['/api/status?x=1', '/api/nothing-here']);
      expect(requests.map((line) => (line.res as { statusCode: number }).statusCode)).toEqual([200, 404]);
      for (const line of requests) {
        expect((line.req as { method: string }).method).toBe('GET');
        expect(typeof line.responseTime).toBe('number');
        expect(typeof line.reqId).toBe('string');
      }
      expect(lines.some((line) => line.msg === 'incoming request')).toBe(false);
    } finally {
      await sanad.close();
      await database.destroy();
    }
  });
});
