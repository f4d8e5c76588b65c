/**
 * Trial integrity (issue 30), under /api/integrity. Each route opens a transaction as the
 * request role and calls one SQL function that decides who may (migrations 0180–0189).
 *
 *   GET /api/integrity/cases/:caseId/access   a case's access history (coordinators)
 *   GET /api/integrity/my-record-readers      who on the care team opened my record (patients)
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { withUser } from '../db/transaction';
import { notFound, unauthorized } from '../http/errors';
import { trialError } from '../trial/routes';
import { caseReadsOf } from './access-log';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AccessHistoryRow {
  lastAt: string;
  reads: number;
  readerName: string;
  readerRoles: string[];
  recordKind: string;
  api?: string;
}

interface HistoryRow {
  last_at: Date;
  reads: string;
  reader_name: string;
  reader_roles: string[];
  record_kind: string;
  api?: string;
}

function toRow(row: HistoryRow): AccessHistoryRow {
  return {
    lastAt: row.last_at.toISOString(),
    reads: Number(row.reads),
    readerName: row.reader_name,
    readerRoles: row.reader_roles,
    recordKind: row.record_kind,
    ...(row.api ? { api: row.api } : {}),
  };
}

export function registerIntegrityRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Params: { caseId: string } }>('/api/integrity/cases/:caseId/access', async (request) => {
    if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
    const caseId = request.params.caseId;
    if (!UUID.test(caseId)) throw notFound('case_not_found', 'There is no such case.');
    const rows = await withUser(pool, request.identity, (sql) =>
      sql.query<HistoryRow>('select * from app_hidden.case_access_history($1)', [caseId]),
    ).catch((error: unknown) => {
      throw trialError(error);
    });
    // Reading who read a case is itself a read of it.
    caseReadsOf(request).add('screen', 'accessLog', [caseId]);
    return { rows: rows.rows.map(toRow) };
  });

  app.get('/api/integrity/my-record-readers', async (request) => {
    if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in.');
    const rows = await withUser(pool, request.identity, (sql) => sql.query<HistoryRow>('select * from app_hidden.my_record_readers()'));
    return { rows: rows.rows.map(toRow) };
  });
}
