/**
 * The engagement radar's routes (issue 32 item 1), under /api/engagement. Each validates, opens a
 * transaction as the request role and calls one function; the SQL of 0290 decides who may.
 *
 *   GET /api/engagement/radar?limit=&offset=   coordinators, therapists, supporters: the list
 *   PUT /api/engagement/thresholds             coordinators: {inactiveDays, stalledDays, lostDays}
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withUser } from '../db/transaction';
import { badRequest, forbidden, unauthorized } from '../http/errors';
import { engagementRadar, setEngagementThresholds } from './service';

function signedIn(request: FastifyRequest): void {
  if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
}

function wholeNumber(value: unknown, fallback: number, min: number, max: number, what: string): number {
  if (value === undefined || value === '') return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw badRequest('invalid_number', `${what} must be a whole number from ${min} to ${max}.`);
  return n;
}

export function registerEngagementRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Querystring: { limit?: string; offset?: string } }>('/api/engagement/radar', async (request) => {
    signedIn(request);
    const limit = wholeNumber(request.query.limit, 50, 1, 200, 'The page size');
    const offset = wholeNumber(request.query.offset, 0, 0, 1_000_000, 'The offset');
    return withUser(pool, request.identity, (sql) => engagementRadar(sql, limit, offset));
  });

  app.put('/api/engagement/thresholds', async (request) => {
    signedIn(request);
    const body = (request.body ?? {}) as Record<string, unknown>;
    const inactive = wholeNumber(body.inactiveDays, NaN, 1, 365, 'Days until inactive');
    const stalled = wholeNumber(body.stalledDays, NaN, 1, 365, 'Days until stalled');
    const lost = wholeNumber(body.lostDays, NaN, 1, 365, 'Days until lost');
    if (!(inactive < stalled && stalled < lost)) throw badRequest('thresholds_unordered', 'Inactive must come before stalled, and stalled before lost.');
    const changed = await withUser(pool, request.identity, (sql) => setEngagementThresholds(sql, inactive, stalled, lost));
    if (changed === 0) throw forbidden('forbidden', 'Only coordinators change the engagement thresholds.');
    return { inactiveDays: inactive, stalledDays: stalled, lostDays: lost };
  });
}
