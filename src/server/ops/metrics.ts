/**
 * /metrics for operators (issue 28, item 8), in Prometheus' text format (version 0.0.4):
 * requests and their latency by route template, method and status; the database pool; whether
 * the database is reachable; the workflow's job and message queues and the mail queues (depth,
 * due, failing, given up, age of the oldest due entry: the timer lag); mails sent and failed by
 * this process. Counts per process: Prometheus adds the processes up.
 *
 * Access (METRICS, METRICS_TOKEN; docs/decisions/idempotency-and-observability.md): off by
 * default; with a token, `Authorization: Bearer <METRICS_TOKEN>`; `local` admits only direct
 * connections from this machine's loopback address that no proxy forwarded.
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../config';
import type { AvailabilityGate } from '../db/availability';
import type { Mailer } from '../mail/mailer';

/** Latency buckets in seconds: the API's targets (20–50 ms) sit in the middle. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

/** What this process counted since it started. */
export class RequestMetrics {
  private readonly requests = new Map<string, number>();
  private readonly latency = new Map<string, Histogram>();
  mailsSent = 0;
  mailsFailed = 0;

  record(method: string, route: string, status: number, seconds: number): void {
    const labels = `method="${escapeLabel(method)}",route="${escapeLabel(route)}"`;
    const counted = `${labels},status="${status}"`;
    this.requests.set(counted, (this.requests.get(counted) ?? 0) + 1);
    let histogram = this.latency.get(labels);
    if (!histogram) this.latency.set(labels, (histogram = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }));
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) histogram.counts[i]! += 1;
    histogram.sum += seconds;
    histogram.count += 1;
  }

  /** The mailer, counting what it sends and what fails (a failure is answered false, never thrown). */
  countMails(mailer: Mailer): Mailer {
    const count = (sent: boolean) => {
      if (sent) this.mailsSent += 1;
      else this.mailsFailed += 1;
      return sent;
    };
    return {
      send: async (mail) => count(await mailer.send(mail)),
      sendRendered: async (mail) => count(await mailer.sendRendered(mail)),
      close: () => mailer.close(),
    };
  }

  lines(): string[] {
    const out: string[] = [];
    out.push('# HELP sanad_http_requests_total HTTP requests answered, by route template, method and status.', '# TYPE sanad_http_requests_total counter');
    for (const [labels, n] of this.requests) out.push(`sanad_http_requests_total{${labels}} ${n}`);
    out.push('# HELP sanad_http_request_duration_seconds Time from receiving a request to its answer, by route template and method.');
    out.push('# TYPE sanad_http_request_duration_seconds histogram');
    for (const [labels, h] of this.latency) {
      BUCKETS.forEach((le, i) => out.push(`sanad_http_request_duration_seconds_bucket{${labels},le="${le}"} ${h.counts[i]}`));
      out.push(`sanad_http_request_duration_seconds_bucket{${labels},le="+Inf"} ${h.count}`);
      out.push(`sanad_http_request_duration_seconds_sum{${labels}} ${h.sum}`);
      out.push(`sanad_http_request_duration_seconds_count{${labels}} ${h.count}`);
    }
    out.push('# HELP sanad_mails_total Mails this process handed to the mail server (or outbox), by outcome.', '# TYPE sanad_mails_total counter');
    out.push(`sanad_mails_total{outcome="sent"} ${this.mailsSent}`, `sanad_mails_total{outcome="failed"} ${this.mailsFailed}`);
    return out;
  }
}

export function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

interface QueueRow {
  queue: string;
  waiting: number;
  due: number;
  failing: number;
  failed: number;
  oldest_due_seconds: number;
}

const QUEUE_GAUGES: [keyof QueueRow, string, string][] = [
  ['waiting', 'sanad_queue_entries', 'Entries in a workflow or mail queue.'],
  ['due', 'sanad_queue_due_entries', 'Entries whose time has come and that wait for a worker.'],
  ['failing', 'sanad_queue_failing_entries', 'Entries that failed at least once and are retried.'],
  ['failed', 'sanad_queue_failed_entries', 'Entries given up after too many failures (workflow only).'],
  ['oldest_due_seconds', 'sanad_queue_oldest_due_seconds', 'How long the oldest due entry has waited (for workflow_jobs: the timer lag).'],
];

/** The pool and the queues, read at scrape time. */
async function stateLines(pool: pg.Pool, availability: AvailabilityGate): Promise<string[]> {
  const out: string[] = [];
  const inUse = pool.totalCount - pool.idleCount;
  out.push('# HELP sanad_db_pool_connections Database connections of this process, by state.', '# TYPE sanad_db_pool_connections gauge');
  out.push(`sanad_db_pool_connections{state="in_use"} ${inUse}`, `sanad_db_pool_connections{state="idle"} ${pool.idleCount}`);
  out.push('# HELP sanad_db_pool_waiting Requests of this process waiting for a database connection.', '# TYPE sanad_db_pool_waiting gauge');
  out.push(`sanad_db_pool_waiting ${pool.waitingCount}`);
  out.push('# HELP sanad_database_available Whether this process can reach the database (1) or not (0).', '# TYPE sanad_database_available gauge');
  out.push(`sanad_database_available ${availability.available ? 1 : 0}`);
  const outages = (availability as { outages?: unknown }).outages;
  if (typeof outages === 'number') {
    out.push('# HELP sanad_database_outages_total Times this process lost the database since it started.', '# TYPE sanad_database_outages_total counter');
    out.push(`sanad_database_outages_total ${outages}`);
  }
  if (!availability.available) return out;
  let rows: QueueRow[];
  try {
    rows = (await pool.query<QueueRow>('select * from app_private.operations_metrics()')).rows;
  } catch (error) {
    availability.report(error);
    return out;
  }
  for (const [column, name, help] of QUEUE_GAUGES) {
    out.push(`# HELP ${name} ${help}`, `# TYPE ${name} gauge`);
    for (const row of rows) out.push(`${name}{queue="${escapeLabel(row.queue)}"} ${Number(row[column])}`);
  }
  return out;
}

/** Whether `request` may read /metrics, and the refusal otherwise. */
function refusal(request: FastifyRequest, settings: Config['metrics']): { status: number; error: string; message: string } | undefined {
  if (settings.access === 'token') {
    const expected = Buffer.from(`Bearer ${settings.token ?? ''}`);
    const given = Buffer.from(request.headers.authorization ?? '');
    if (given.length === expected.length && crypto.timingSafeEqual(given, expected)) return undefined;
    return { status: 401, error: 'metrics_token_required', message: 'Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".' };
  }
  const peer = request.socket.remoteAddress ?? '';
  const loopback = peer === '127.0.0.1' || peer === '::1' || peer === '::ffff:127.0.0.1';
  const forwarded = request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  if (loopback && !forwarded) return undefined;
  return { status: 403, error: 'metrics_local_only', message: 'Metrics are served only to this machine itself (METRICS=local).' };
}

export function registerMetrics(app: FastifyInstance, deps: { pool: pg.Pool; availability: AvailabilityGate; settings: Config['metrics']; metrics: RequestMetrics }): void {
  const { metrics } = deps;
  // Every answer is counted by its route template (never the URL itself: ids would make a
  // series per case); requests no route matched count under "unmatched".
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    metrics.record(request.method, reply.statusCode === 404 && !request.routeOptions.url ? 'unmatched' : route, reply.statusCode, reply.elapsedTime / 1000);
  });
  if (deps.settings.access === 'off') return;
  app.get('/metrics', { logLevel: 'warn' }, async (request, reply) => {
    const refused = refusal(request, deps.settings);
    if (refused) {
      if (refused.status === 401) void reply.header('www-authenticate', 'Bearer realm="metrics"');
      return reply.status(refused.status).send({ error: refused.error, message: refused.message });
    }
    const lines = [...metrics.lines(), ...(await stateLines(deps.pool, deps.availability)), `# HELP sanad_uptime_seconds Seconds since this process started.`, '# TYPE sanad_uptime_seconds gauge', `sanad_uptime_seconds ${process.uptime()}`];
    return reply.header('cache-control', 'no-store').type('text/plain; version=0.0.4; charset=utf-8').send(`${lines.join('\n')}\n`);
  });
}
