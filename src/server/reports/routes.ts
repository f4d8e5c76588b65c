/**
 * The report's actions beside its REST collection (docs/API.md "Interview reports"):
 *   POST /api/interview_reports/:id/finalize  {overrideReason?}   sign, lock, drive the trial
 *   POST /api/interview_reports/:id/amend     {reason, values}    coordinators, keeps versions
 * Both are e-signatures: the header `sanad-signature` carries the signing token (src/server/signing).
 *   POST /api/interview_bookings/:id/missed                       the interview did not take place
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unauthorized } from '../http/errors';
import { SIGNATURE_HEADER } from '../../domain/signatures';
import { amendReport, finalizeReport, recordMissedInterview, requireUuid, type ReportServices } from './service';

function userOf(request: FastifyRequest): string {
  const id = request.identity.userId;
  if (!id) throw unauthorized('unauthorized', 'Sign in first.');
  return id;
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

export function registerReportRoutes(app: FastifyInstance, services: ReportServices): void {
  app.post<{ Params: { id: string } }>('/api/interview_reports/:id/finalize', async (request) => {
    const user = userOf(request);
    return finalizeReport(services, user, requireUuid(request.params.id, 'interview report'), bodyOf(request), request.headers[SIGNATURE_HEADER]);
  });
  app.post<{ Params: { id: string } }>('/api/interview_reports/:id/amend', async (request) => {
    const user = userOf(request);
    return amendReport(services, user, requireUuid(request.params.id, 'interview report'), bodyOf(request), request.headers[SIGNATURE_HEADER]);
  });
  app.post<{ Params: { id: string } }>('/api/interview_bookings/:id/missed', async (request) => {
    const user = userOf(request);
    return recordMissedInterview(services, user, requireUuid(request.params.id, 'interview booking'));
  });
}
