/**
 * Withdrawal with levels and erasure (issue 31 items 3 and 4), under /api/withdrawal. Each route
 * validates, opens a transaction as the request role and calls one function; the SQL of 0246
 * decides who may and refuses bad input (unknown level, no reason, legal hold) before anything
 * is written.
 *
 *   GET  /api/withdrawal/cases/:caseId                the case's withdrawals, hold and erasures
 *   POST /api/withdrawal/cases/:caseId                coordinators: withdraw {level, reason}
 *   GET  /api/withdrawal/cases/:caseId/erasure-preview coordinators: the dry run of an erasure
 *   POST /api/withdrawal/cases/:caseId/legal-hold     coordinators: {hold, reason}
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { SIGNATURE_HEADER } from '../../domain/signatures';
import { withUser } from '../db/transaction';
import { badRequest, notFound, unauthorized } from '../http/errors';
import { erasurePreview, setLegalHold, withdrawalState, withdrawParticipant, WITHDRAWAL_LEVELS, type WithdrawalLevel } from './service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function caseIdParam(value: string): string {
  if (!UUID.test(value)) throw notFound('case_not_found', 'There is no such case, or you cannot see it.');
  return value;
}

function objectBody(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function signedIn(request: FastifyRequest): void {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
}

/** The signer of a signed act: the person and the token in the header sanad-signature (issue 30). */
function signerOf(request: FastifyRequest): { userId: string; signature: unknown } {
  return { userId: request.identity.userId!, signature: request.headers[SIGNATURE_HEADER] };
}

export function registerWithdrawalRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Params: { caseId: string } }>('/api/withdrawal/cases/:caseId', async (request) => {
    signedIn(request);
    const caseId = caseIdParam(request.params.caseId);
    return withUser(pool, request.identity, (sql) => withdrawalState(sql, caseId));
  });

  app.post<{ Params: { caseId: string } }>('/api/withdrawal/cases/:caseId', async (request, reply) => {
    signedIn(request);
    const caseId = caseIdParam(request.params.caseId);
    const body = objectBody(request);
    const level = body.level;
    if (typeof level !== 'string' || !(WITHDRAWAL_LEVELS as readonly string[]).includes(level)) {
      throw badRequest('withdrawal_level_unknown', 'Choose a level: stop_contact, stop_data or erasure.');
    }
    const reason = typeof body.reason === 'string' ? body.reason : '';
    const made = await withUser(pool, request.identity, (sql) => withdrawParticipant(sql, caseId, level as WithdrawalLevel, reason, signerOf(request)));
    return reply.status(201).send(made);
  });

  app.get<{ Params: { caseId: string } }>('/api/withdrawal/cases/:caseId/erasure-preview', async (request) => {
    signedIn(request);
    const caseId = caseIdParam(request.params.caseId);
    return withUser(pool, request.identity, (sql) => erasurePreview(sql, caseId));
  });

  app.post<{ Params: { caseId: string } }>('/api/withdrawal/cases/:caseId/legal-hold', async (request) => {
    signedIn(request);
    const caseId = caseIdParam(request.params.caseId);
    const body = objectBody(request);
    if (typeof body.hold !== 'boolean') throw badRequest('invalid_body', 'Say whether the hold is set (true) or lifted (false).');
    const reason = typeof body.reason === 'string' ? body.reason : '';
    const hold = body.hold;
    await withUser(pool, request.identity, (sql) => setLegalHold(sql, caseId, hold, reason, signerOf(request)));
    return withUser(pool, request.identity, (sql) => withdrawalState(sql, caseId));
  });
}
