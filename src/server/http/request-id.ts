/**
 * Request ids (issue 28, item 8). Every request gets an id: a sane `X-Request-Id` from a proxy
 * in front (so the proxy's log and ours name the request alike), otherwise a new UUID. The id is
 * sent back as `X-Request-Id`, stands in 5xx error bodies as `requestId` (a person can quote it
 * to the clinic's operator) and is on every log line written while the request runs: Fastify's
 * request logger carries it, and lines written through the app's own logger (services, workers
 * called by a request) get it from an AsyncLocalStorage through pino's mixin.
 */
import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import crypto from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/** Letters, digits and a few separators, at most 128: a UUID, a ULID, a proxy's trace id. */
const SANE_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

interface RequestStore {
  reqId: string;
}

const context = new AsyncLocalStorage<RequestStore>();
/** Marks the request loggers Fastify creates, which carry the id in their own bindings. */
const CARRIES_ID = Symbol('sanad.carriesRequestId');

/** The id of a request: the incoming header when it is sane, a new UUID otherwise. */
export function requestIdFor(request: Pick<IncomingMessage, 'headers'>): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  const value = Array.isArray(incoming) ? incoming[0] : incoming;
  return value !== undefined && SANE_ID.test(value) ? value : crypto.randomUUID();
}

/** pino's mixin: the running request's id on lines of loggers that do not already carry it. */
export function requestIdMixin(_object: object, _level: number, logger: unknown): Record<string, string> {
  if ((logger as Record<symbol, unknown> | undefined)?.[CARRIES_ID]) return {};
  const store = context.getStore();
  return store ? { reqId: store.reqId } : {};
}

/** For Fastify's `childLoggerFactory`: the request logger, marked so the mixin adds nothing. */
export function requestLogger<T extends { child(bindings: object, options?: object): T }>(logger: T, bindings: object, options: object): T {
  const child = logger.child(bindings, options);
  (child as unknown as Record<symbol, boolean>)[CARRIES_ID] = true;
  return child;
}

declare module 'fastify' {
  interface FastifyRequest {
    requestContext?: AsyncResource;
  }
}

/**
 * Runs each request's hooks and handler inside its own context. Body parsing continues on the
 * socket's events, outside any context, so the context is entered again before validation
 * (as @fastify/request-context does).
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    context.run({ reqId: request.id }, () => {
      request.requestContext = new AsyncResource('sanad-request');
      done();
    });
  });
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.requestContext) request.requestContext.runInAsyncScope(done, undefined);
    else done();
  });
  // Every 5xx answer in JSON names the request (REST, workflow, GraphQL, the app's own errors).
  app.addHook('onSend', async (request, reply, payload) => {
    if (reply.statusCode < 500 || typeof payload !== 'string' || !payload.startsWith('{')) return payload;
    return withRequestId(payload, request.id);
  });
}

/** The JSON object `payload` with `requestId` added (unchanged when it has one or is not an object). */
export function withRequestId(payload: string, requestId: string): string {
  try {
    const body = JSON.parse(payload) as unknown;
    if (typeof body !== 'object' || body === null || Array.isArray(body) || 'requestId' in body) return payload;
    return JSON.stringify({ ...body, requestId });
  } catch {
    return payload;
  }
}
