/**
 * E-signatures and the staff second factor (issue 30 items 3 and 4; docs/API.md):
 *   POST /api/signing/tokens            {act, recordId, password, code?}  re-authenticate for one act
 *   GET  /api/signatures?recordId=|caseId=                               manifests the person may read
 *   GET  /api/auth/mfa                                                    the person's second-factor state
 *   POST /api/auth/mfa/enrolment                                          begin: secret and otpauth URI
 *   POST /api/auth/mfa/enrolment/confirm {code}                           confirm: recovery codes (once)
 *   POST /api/auth/mfa/reset            {userId, reason}                  another coordinator, a lost device
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { MfaRole } from '../../domain/signatures';
import type { SignInThrottling } from '../auth/throttle';
import { withOwner, withOwnerAs, withUser } from '../db/transaction';
import { HttpError, badRequest, unauthorized } from '../http/errors';
import { recordAccountEvent } from '../integrity/account-log';
import { caseReadsOf } from '../integrity/access-log';
import { beginEnrolment, confirmEnrolment, mfaState, resetSecondFactor } from './mfa';
import { issueSigningToken } from './service';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function userOf(request: FastifyRequest): string {
  const id = request.identity.userId;
  if (!id) throw unauthorized('sign_in_required', 'Please sign in first.');
  return id;
}

function bodyOf(request: FastifyRequest): Record<string, unknown> {
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid_body', 'The request body must be a JSON object.');
  return body as Record<string, unknown>;
}

export interface SigningRouteDeps {
  pool: pg.Pool;
  mfaRequiredRoles: readonly MfaRole[];
  throttle?: SignInThrottling | undefined;
}

export interface ManifestRow {
  id: string;
  at: string;
  printedName: string;
  act: string;
  meaning: string;
  caseId: string;
  recordKind: string;
  recordId: string;
  contentHash: string;
}

export function registerSigningRoutes(app: FastifyInstance, deps: SigningRouteDeps): void {
  const { pool } = deps;

  app.post('/api/signing/tokens', async (request, reply) => {
    const userId = userOf(request);
    return reply.status(201).send(await issueSigningToken(deps, userId, bodyOf(request), request.ip));
  });

  app.get<{ Querystring: { recordId?: string; caseId?: string } }>('/api/signatures', async (request) => {
    const userId = userOf(request);
    const { recordId, caseId } = request.query;
    const by = recordId !== undefined ? { column: 'record_id', value: recordId } : caseId !== undefined ? { column: 'case_id', value: caseId } : null;
    if (!by || !UUID.test(by.value)) throw badRequest('record_required', 'Say whose signatures to show (recordId or caseId).');
    // Row-level security decides (coordinators, and the staff of the case).
    const rows = await withUser(pool, { userId }, async (sql) =>
      (
        await sql.query<ManifestRow>(
          `select id, to_char(at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "at", printed_name as "printedName", act, meaning,
                  case_id as "caseId", record_kind as "recordKind", record_id as "recordId", content_hash as "contentHash"
             from app_public.signatures where ${by.column} = $1 order by at, id`,
          [by.value],
        )
      ).rows,
    );
    // Issue 30 item 1: reading a case's signed decisions is a read of the case.
    caseReadsOf(request).add('rest', 'case', [...new Set(rows.map((row) => row.caseId))]);
    return { signatures: rows };
  });

  app.get('/api/auth/mfa', async (request) => {
    const userId = userOf(request);
    return withOwner(pool, (sql) => mfaState(sql, userId, deps.mfaRequiredRoles));
  });

  app.post('/api/auth/mfa/enrolment', async (request, reply) => {
    const userId = userOf(request);
    return reply.status(201).send(await withOwner(pool, (sql) => beginEnrolment(sql, userId)));
  });

  app.post('/api/auth/mfa/enrolment/confirm', async (request) => {
    const userId = userOf(request);
    const { code } = bodyOf(request);
    try {
      return await withOwnerAs(pool, userId, (sql) => confirmEnrolment(sql, userId, code, Date.now(), request.ip));
    } catch (error) {
      // A wrong first code is an account event; its own transaction, since the enrolment's rolled back.
      if (error instanceof HttpError && error.code === 'mfa_code_invalid') {
        await recordAccountEvent(pool, { event: 'mfa_failed', userId, detail: { purpose: 'enrolment' }, address: request.ip });
      }
      throw error;
    }
  });

  app.post('/api/auth/mfa/reset', async (request, reply) => {
    const actorId = userOf(request);
    const { userId, reason } = bodyOf(request);
    if (typeof userId !== 'string' || !UUID.test(userId)) throw badRequest('user_required', 'Say whose second factor to reset.');
    await withOwnerAs(pool, actorId, (sql) => resetSecondFactor(sql, actorId, userId, reason, request.ip));
    return reply.status(204).send();
  });
}
