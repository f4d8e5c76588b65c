import type { Identity } from '../db/transaction';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is asking: set from the bearer token by the identify hook, anonymous otherwise. */
    identity: Identity & { tokenId?: string };
  }
}
