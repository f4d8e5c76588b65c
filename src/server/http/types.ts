import type { Identity } from '../db/transaction';
import type { AvailabilityGate } from '../db/availability';

declare module 'fastify' {
  interface FastifyInstance {
    /** Issue 28: whether the database can be reached; error handlers report what they see. */
    databaseAvailability?: AvailabilityGate;
  }
  interface FastifyRequest {
    /** Who is asking: set from the bearer token by the identify hook, anonymous otherwise. */
    identity: Identity & { tokenId?: string };
  }
}
