/**
 * Issue 28, item 8: what an operator sees. /metrics answers in Prometheus' text format only to
 * the metrics token; it counts requests by route template and status, with a latency
 * histogram, and shows the database pool, the queues and the mails. Every answer names its
 * request (X-Request-Id, a sane one from a proxy kept), and every log line written while a
 * request runs carries that id — the request's own line and the lines of the services it calls.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/server/logger';
import { startTestApp, type TestApp } from '../helpers/app';

const TOKEN = 'metrics-token-for-the-test-0123456789';
let t: TestApp;
const lines: Record<string, unknown>[] = [];
const rawLines: string[] = [];

beforeAll(async () => {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) {
          rawLines.push(line);
          lines.push(JSON.parse(line) as Record<string, unknown>);
        }
      done();
    },
  });
  t = await startTestApp({ METRICS_TOKEN: TOKEN }, {}, { logger: createLogger({ logLevel: 'info' }, sink) });
});
afterAll(async () => {
  await t?.close();
});

async function metrics(token?: string) {
  const response = await fetch(`${t.url}/metrics`, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('/metrics', () => {
  it('answers only to the metrics token', async () => {
    const none = await metrics();
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text)).toMatchObject({
      error: 'metrics_token_required',
    });
    expect((await metrics('wrong-token-of-the-same-length-xxxxx')).status).toBe(401);
    const user = await t.user({ flags: ['coordinator'] });
    expect((await metrics(user.token)).status).toBe(401);
  });

  it('counts requests by route template and status, with latency, pool, queues and mails', async () => {
    const patient = await t.user({ flags: ['patient'] });
    const before = sample((await metrics(TOKEN)).text, 'sanad_http_requests_total{method="GET",route="/api/auth/users/me",status="200"}') ?? 0;
    for (let i = 0; i < 3; i++) expect((await t.api('GET', '/api/auth/users/me', { token: patient.token })).status).toBe(200);
    expect((await t.api('GET', '/api/auth/users/me')).status).toBe(401);
    const scraped = await metrics(TOKEN);
    expect(scraped.status).toBe(200);
    expect(scraped.type).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = scraped.text;
    expect(sample(text, 'sanad_http_requests_total{method="GET",route="/api/auth/users/me",status="200"}')).toBe(before + 3);
    expect(sample(text, 'sanad_http_requests_total{method="GET",route="/api/auth/users/me",status="401"}')).toBeGreaterThanOrEqual(1);
    // Route templates, never a URL with an id in it.
    expect(text).not.toContain(patient.id);
    const count = sample(text, 'sanad_http_request_duration_seconds_count{method="GET",route="/api/auth/users/me"}')!;
    expect(count).toBeGreaterThanOrEqual(4);
    expect(sample(text, 'sanad_http_request_duration_seconds_bucket{method="GET",route="/api/auth/users/me",le="+Inf"}')).toBe(count);
    expect(text).toContain('# TYPE sanad_http_request_duration_seconds histogram');
    expect(sample(text, 'sanad_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'sanad_db_pool_waiting')).toBe(0);
    expect(sample(text, 'sanad_database_available')).toBe(1);
    for (const queue of [
      'workflow_jobs',
      'workflow_outbox',
      'workflow_start_requests',
      'mail_notifications',
      'mail_interviews',
      'mail_reports',
      'mail_workflow',
    ]) {
      expect(sample(text, `sanad_queue_entries{queue="${queue}"}`), queue).toBeGreaterThanOrEqual(0);
      expect(sample(text, `sanad_queue_oldest_due_seconds{queue="${queue}"}`), queue).toBeGreaterThanOrEqual(0);
    }
    expect(sample(text, 'sanad_mails_total{outcome="failed"}')).toBe(0);
    // Every sample line is `name{labels} number` or `name number`.
    for (const line of text
      .trim()
      .split('\n')
      .filter((l) => !l.startsWith('#')))
      expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? -?[0-9.e+-]+$/);
  });

  it('shows a due workflow start as queue depth and lag until the scheduler runs it', async () => {
    const patient = await t.user({ flags: ['patient'] });
    await t.database.db.pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);
    await t.database.db.pool.query(`update app_private.workflow_start_requests set run_after = now() - interval '90 seconds' where case_id = $1`, [
      patient.caseId,
    ]);
    const waiting = (await metrics(TOKEN)).text;
    expect(sample(waiting, 'sanad_queue_due_entries{queue="workflow_start_requests"}')).toBeGreaterThanOrEqual(1);
    expect(sample(waiting, 'sanad_queue_oldest_due_seconds{queue="workflow_start_requests"}')).toBeGreaterThanOrEqual(90);
    await t.sanad.workflow.tick();
    expect(sample((await metrics(TOKEN)).text, 'sanad_queue_due_entries{queue="workflow_start_requests"}')).toBe(0);
  });
});

describe('request ids', () => {
  it('every answer names its request; a sane id from a proxy is kept, a strange one replaced', async () => {
    const own = await t.api('GET', '/healthz');
    expect(own.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const other = await t.api('GET', '/healthz');
    expect(other.headers.get('x-request-id')).not.toBe(own.headers.get('x-request-id'));
    const proxied = await t.api('GET', '/api/status', {
      headers: { 'x-request-id': 'lb-7f3a9c.001' },
    });
    expect(proxied.headers.get('x-request-id')).toBe('lb-7f3a9c.001');
    const strange = await t.api('GET', '/api/status', {
      headers: { 'x-request-id': 'a b"<script>' },
    });
    expect(strange.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await t.api('GET', '/api/auth/users/me', {
      headers: { 'x-request-id': 'lb-refused-1' },
    });
    expect([refused.status, refused.headers.get('x-request-id')]).toEqual([401, 'lb-refused-1']);
  });

  it("every log line of a request carries its id: the request's line and the mail service's", async () => {
    const user = await t.user({ flags: ['patient'] });
    t.smtp.clear();
    const id = `reset-${Date.now()}`;
    const requested = await t.api('POST', '/api/auth/password-reset', {
      body: { email: user.email },
      headers: { 'x-request-id': id },
    });
    expect(requested.status).toBeLessThan(300);
    await t.smtp.waitFor(user.email);
    await t.sanad.auth.background?.idle();
    const mine = lines.filter((l) => l.reqId === id);
    expect(mine.map((l) => l.msg)).toEqual(expect.arrayContaining(['request completed', expect.stringMatching(/^mail (sent|written)/)]));
    const mailLine = lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('mail sent') && l.reqId === id);
    expect(mailLine, 'the mail line written by the mail service during the request').toBeDefined();
    // One id per line, never two (the request's logger and the mixin do not both write it).
    for (const line of rawLines) expect(line.split('"reqId"').length - 1, line).toBeLessThanOrEqual(1);
  });
});
