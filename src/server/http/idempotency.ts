/**
 * Safe retries (issue 28, item 6). A state-changing API request (POST, PUT, PATCH, DELETE) of a
 * signed-in person may carry an `Idempotency-Key` header. The first request with a key runs and
 * its answer (status, content type, body) is kept in the database (app_private.idempotency_keys,
 * migration 0275) before it leaves; a retry with the same key by the same person gets that
 * answer back, marked `Idempotent-Replayed: true`, and nothing runs again. The same key with
 * another request (method, URL or body) is refused with 422; while the first request still
 * runs, a retry gets 409 with Retry-After. Keys are per person (another person's key is a
 * different key) and expire after IDEMPOTENCY_KEY_TTL_SECONDS (24 h). Answers of 5xx are not
 * kept: the request did not happen, so the retry may run it. Nor are 401 and 403: a refusal
 * changed nothing, and the same request is sent again after signing in or signing the act
 * (issue 30's `signature_required`). The account routes (/api/auth/)
 * keep nothing: their answers carry tokens.
 *
 * Kept in the database rather than in memory so a retry that lands on another process, or
 * after a restart, still finds the first answer (docs/decisions/idempotency-and-observability.md).
 */
import crypto from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { HttpError } from './errors';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'idempotent-replayed';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Visible ASCII, as a UUID, a ULID or any client's random string is written. */
const KEY_FORMAT = /^[\x21-\x7e]{8,200}$/;
/** Seconds a client waits before asking again while the first request runs. */
const RUNNING_RETRY_SECONDS = 1;

export interface IdempotencySettings {
  /** How long a key and its answer are kept (seconds). */
  ttlSeconds: number;
  /** A claim without an answer older than this was lost with its process and is taken over (seconds). */
  staleSeconds: number;
}

interface Claim {
  userId: string;
  key: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, whose answer onSend keeps. */
    idempotencyClaim?: Claim | undefined;
  }
}

/** What a request is, for telling a retry from another request under the same key. */
export function requestHash(method: string, url: string, body: unknown): string {
  const hash = crypto.createHash('sha256').update(`${method} ${url}\n`);
  if (Buffer.isBuffer(body)) hash.update('bytes:').update(body);
  else if (typeof body === 'string') hash.update('text:').update(body);
  else if (body !== undefined) hash.update('json:').update(JSON.stringify(body));
  return hash.digest('hex');
}

/** The key of a request, or undefined when it has none; a malformed key is the client's to fix. */
export function idempotencyKeyOf(request: Pick<FastifyRequest, 'headers'>): string | undefined {
  const raw = request.headers[IDEMPOTENCY_HEADER];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw[0] : raw;
  if (key === undefined || !KEY_FORMAT.test(key)) {
    throw new HttpError(400, 'idempotency_key_invalid', 'The Idempotency-Key header must be 8 to 200 visible characters without spaces, for example a random UUID.');
  }
  return key;
}

interface BeginRow {
  outcome: 'new' | 'replay' | 'mismatch' | 'running';
  answer_status: number | null;
  answer_type: string | null;
  answer_body: Buffer | null;
}

export function registerIdempotency(app: FastifyInstance, pool: pg.Pool, settings: IdempotencySettings): void {
  app.decorateRequest('idempotencyClaim', undefined);

  app.addHook('preHandler', async (request, reply) => {
    if (!STATE_CHANGING.has(request.method) || !request.url.startsWith('/api/')) return undefined;
    // The account routes answer with tokens and secrets, which are not to be kept at rest.
    if (request.url.startsWith('/api/auth/')) return undefined;
    const key = idempotencyKeyOf(request);
    const userId = request.identity?.userId;
    // Keys are per person: a request without a person (sign-in, registration) has none to keep.
    if (key === undefined || !userId) return undefined;
    const hash = requestHash(request.method, request.url, request.body);
    const { rows } = await pool.query<BeginRow>('select * from app_private.idempotency_begin($1, $2, $3, $4, $5)', [
      userId,
      key,
      hash,
      settings.ttlSeconds,
      settings.staleSeconds,
    ]);
    const row = rows[0]!;
    switch (row.outcome) {
      case 'new':
        request.idempotencyClaim = { userId, key };
        return undefined;
      case 'replay':
        return replay(reply, row);
      case 'mismatch':
        throw new HttpError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was already used for a different request. Send a new key with each new request, and the same key only to repeat the very same request.',
        );
      case 'running':
        void reply.header('retry-after', String(RUNNING_RETRY_SECONDS));
        throw new HttpError(409, 'idempotency_key_in_use', 'The first request with this Idempotency-Key is still being handled. Please wait a moment and try again.', undefined, {
          retryAfterSeconds: RUNNING_RETRY_SECONDS,
        });
    }
    return undefined;
  });

  // Kept before the answer leaves, so a client that saw it can never miss it on a retry.
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    const body = typeof payload === 'string' ? Buffer.from(payload) : Buffer.isBuffer(payload) ? payload : undefined;
    try {
      if (body === undefined && payload != null) {
        // A streamed answer cannot be kept: the key is given up, a retry runs again.
        await pool.query('select app_private.idempotency_release($1, $2)', [claim.userId, claim.key]);
      } else if (reply.statusCode >= 500 || isRefusalToRepeat(reply.statusCode) || (body && isDatabaseUnavailable(body))) {
        await pool.query('select app_private.idempotency_release($1, $2)', [claim.userId, claim.key]);
      } else {
        const type = reply.getHeader('content-type');
        await pool.query('select app_private.idempotency_finish($1, $2, $3, $4, $5)', [
          claim.userId,
          claim.key,
          reply.statusCode,
          typeof type === 'string' ? type : null,
          body ?? Buffer.alloc(0),
        ]);
      }
    } catch (error) {
      // The answer still goes out; the claim turns stale and a later retry runs again.
      request.log.warn({ err: error }, 'could not keep the answer of an Idempotency-Key');
    }
    return payload;
  });
}

/** A refusal of who may act (sign in, sign the act): nothing ran, so the key stays free. */
function isRefusalToRepeat(status: number): boolean {
  return status === 401 || status === 403;
}

/** GraphQL answers the database being gone with 200 until its own hook turns it into 503. */
function isDatabaseUnavailable(body: Buffer): boolean {
  return body.length < 4096 && body.includes('"DATABASE_UNAVAILABLE"');
}

function replay(reply: FastifyReply, row: BeginRow): FastifyReply {
  void reply.status(row.answer_status ?? 200).header(REPLAYED_HEADER, 'true');
  if (row.answer_type) void reply.header('content-type', row.answer_type);
  const body = row.answer_body ?? Buffer.alloc(0);
  if (body.length === 0) return reply.send();
  // Text as text, so the other onSend hooks (access log, GraphQL) see it as they saw the first.
  return reply.send(/json|text/.test(row.answer_type ?? '') ? body.toString('utf8') : body);
}

/** Forgets expired keys now and then (the scheduler's interval, see app.ts). */
export async function sweepIdempotencyKeys(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ n: number }>('select app_private.idempotency_sweep() as n');
  return rows[0]?.n ?? 0;
}
