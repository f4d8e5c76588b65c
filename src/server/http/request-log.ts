/**
 * One log line per request instead of Fastify's two ("incoming request" when it arrives,
 * "request completed" when it ends): the completed line carries the request's method, URL and
 * address as well, so nothing is lost but the moment of arrival (the line's time minus
 * `responseTime`). At the production level (info) each line costs a JSON serialisation and a
 * write to stdout: the two lines together measured about 0.13 ms of server CPU on a `me`
 * request that otherwise costs 0.3 to 0.4 ms.
 */
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {
    // Logged with the outcome, in requestCompleted.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
