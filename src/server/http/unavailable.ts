/**
 * The answer while the database cannot be reached (issue 28): 503 with Retry-After and the
 * code `database_unavailable`, shaped like the other errors of the route's area (GraphQL,
 * workflow REST, everything else: `error` and `code` both, so the REST collections' clients,
 * which read `code`, understand it as well), so clients and the web app can say
 * "try again in a moment" instead of "something went wrong".
 */
import type { FastifyReply } from 'fastify';

/** Seconds a client should wait before trying again. */
export const DATABASE_RETRY_SECONDS = 5;

export const DATABASE_UNAVAILABLE_MESSAGE = 'Sanad cannot reach its database at the moment. Nothing you saved is lost. Please try again in a minute.';

export function sendDatabaseUnavailable(reply: FastifyReply, path: string): FastifyReply {
  void reply.status(503).header('retry-after', String(DATABASE_RETRY_SECONDS));
  const message = DATABASE_UNAVAILABLE_MESSAGE;
  if (path.startsWith('/api/graphql')) {
    return reply.send({ errors: [{ message, extensions: { code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: DATABASE_RETRY_SECONDS } }] });
  }
  if (path.startsWith('/api/workflow/')) return reply.send({ type: 'DatabaseUnavailableException', code: 'database_unavailable', message });
  return reply.send({ error: 'database_unavailable', code: 'database_unavailable', message, retryAfterSeconds: DATABASE_RETRY_SECONDS });
}
