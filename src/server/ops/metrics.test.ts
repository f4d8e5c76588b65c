import Fastify from 'fastify';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { DatabaseAvailability } from '../db/availability';
import { escapeLabel, registerMetrics, RequestMetrics } from './metrics';

/** An app with /metrics as configured; refusals are answered before the database is asked. */
async function appWith(env: Record<string, string>) {
  const app = Fastify({ logger: false });
  const pool = new pg.Pool({
    connectionString: 'postgres://nobody@127.0.0.1:1/none',
    max: 1,
  });
  const availability = new DatabaseAvailability(pool, {
    warn: () => undefined,
    info: () => undefined,
  });
  registerMetrics(app, {
    pool,
    availability,
    settings: loadConfig(env).metrics,
    metrics: new RequestMetrics(),
  });
  return {
    app,
    close: async () => {
      await app.close();
      await availability.stop();
      await pool.end();
    },
  };
}

describe('/metrics access', () => {
  it('is off without METRICS_TOKEN: there is no such page', async () => {
    const { app, close } = await appWith({});
    expect((await app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
    await close();
  });

  it('METRICS=local refuses other machines and anything a proxy forwarded', async () => {
    const { app, close } = await appWith({ METRICS: 'local' });
    expect(
      (
        await app.inject({
          method: 'GET',
          url: '/metrics',
          remoteAddress: '10.0.0.7',
        })
      ).statusCode,
    ).toBe(403);
    const forwarded = await app.inject({
      method: 'GET',
      url: '/metrics',
      remoteAddress: '127.0.0.1',
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(forwarded.statusCode).toBe(403);
    expect(forwarded.json()).toMatchObject({ error: 'metrics_local_only' });
    await close();
  });

  it('refuses settings that would leave it open or broken', () => {
    expect(() => loadConfig({ METRICS: 'token' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/16 characters/);
    expect(() => loadConfig({ METRICS: 'public' })).toThrow(/off, local or token/);
    expect(loadConfig({ METRICS_TOKEN: 'a-long-enough-token-123' }).metrics.access).toBe('token');
  });
});

describe('request metrics', () => {
  it('keeps cumulative histogram buckets and escapes labels', () => {
    const metrics = new RequestMetrics();
    metrics.record('GET', '/api/x', 200, 0.004);
    metrics.record('GET', '/api/x', 200, 0.3);
    const text = metrics.lines().join('\n');
    expect(text).toContain('sanad_http_requests_total{method="GET",route="/api/x",status="200"} 2');
    expect(text).toContain('sanad_http_request_duration_seconds_bucket{method="GET",route="/api/x",le="0.005"} 1');
    expect(text).toContain('sanad_http_request_duration_seconds_bucket{method="GET",route="/api/x",le="0.5"} 2');
    expect(text).toContain('sanad_http_request_duration_seconds_bucket{method="GET",route="/api/x",le="+Inf"} 2');
    expect(escapeLabel('a"b\\c\nd')).toBe('a\\"b\\\\c\\nd');
  });
});
