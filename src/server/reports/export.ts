/**
 * The reports in the research export, beside the questionnaires' (questionnaires/export.ts),
 * for coordinators, read as the request role under row-level security:
 *   GET /api/export/interview_reports.csv                          finalized reports
 *   GET /api/export/interview_reports/codebook.csv?locale=ar|de|en
 *   GET /api/export/feedback_interview_reports.csv
 *   GET /api/export/feedback_interview_reports/codebook.csv?locale=ar|de|en
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { Config } from '../config';
import { withUser, type Sql } from '../db/transaction';
import { badRequest, forbidden, unauthorized } from '../http/errors';
import { isLocale, type Locale } from '../../domain/locales';
import { exportFileName } from '../../domain/instruments/export';
import { feedbackExportColumns, reportCodebookCsv, reportCsv, reportExportColumns, type ReportExportColumn } from '../../domain/interview-report/export';
import { caseReadsOf } from '../integrity/access-log';
import { caseIdsIn } from '../../domain/access-log';

async function requireCoordinator(request: FastifyRequest, sql: Sql): Promise<void> {
  const { rows } = await sql.query<{ coordinator: boolean }>('select app_hidden.is_coordinator() as coordinator');
  if (!rows[0]?.coordinator) throw forbidden('forbidden', 'Only coordinators may download research data. Ask a coordinator of your trial for the export.');
  request.log.info({ userId: request.identity.userId, url: request.url }, 'research data exported');
}

function send(reply: FastifyReply, fileName: string, body: string): FastifyReply {
  return reply.header('content-type', 'text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${fileName}"`).header('cache-control', 'no-store').send(body);
}

function locale(value: unknown, config: Config): Locale {
  if (value === undefined) return (config.locales[0] ?? 'ar') as Locale;
  if (typeof value === 'string' && isLocale(value) && config.locales.includes(value)) return value;
  throw badRequest('locale_unsupported', `The locale ${JSON.stringify(value)} is not supported; use one of ${config.locales.join(', ')}.`);
}

function select(columns: readonly ReportExportColumn[], alias: string): string {
  return columns
    .map((c) => {
      if (c.name === 'exclude_from_analysis') return 'c.exclude_from_analysis';
      if (c.name === 'report_id') return `${alias}.id as report_id`;
      if (c.name === 'overridden') return `(${alias}.override_by is not null) as overridden`;
      if (c.type.kind === 'date') return `to_char(${alias}.${c.name}, 'YYYY-MM-DD') as ${c.name}`;
      if (c.type.kind === 'datetime') return `to_char(${alias}.${c.name} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') as ${c.name}`;
      return `${alias}.${c.name}`;
    })
    .join(', ');
}

export function registerReportExportRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  const files = [
    { code: 'interview_reports' as const, columns: reportExportColumns(), from: `app_public.interview_reports r join app_public.cases c on c.id = r.case_id where r.state = 'final' order by r.case_id, r.finalized_at` },
    { code: 'feedback_interview_reports' as const, columns: feedbackExportColumns(), from: `app_public.feedback_interview_reports r join app_public.cases c on c.id = r.case_id order by r.case_id, r.created_at` },
  ];
  for (const file of files) {
    const statement = `select ${select(file.columns, 'r')} from ${file.from}`;
    app.get(`/api/export/${file.code}.csv`, async (request, reply) => {
      if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in as a coordinator to download research data.');
      const rows = await withUser(pool, request.identity, async (sql) => {
        await requireCoordinator(request, sql);
        return (await sql.query(statement)).rows;
      });
      // Issue 30: an export is a read of every case it holds.
      caseReadsOf(request).add('export', 'interviewReports', caseIdsIn(rows));
      return send(reply, exportFileName(file.code, new Date()), reportCsv(file.columns, rows));
    });
    app.get<{ Querystring: { locale?: unknown } }>(`/api/export/${file.code}/codebook.csv`, async (request, reply) => {
      if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in as a coordinator to download research data.');
      await withUser(pool, request.identity, (sql) => requireCoordinator(request, sql));
      const inLocale = locale(request.query.locale, config);
      return send(reply, exportFileName(file.code, new Date(), inLocale), reportCodebookCsv(file.code, file.columns, inLocale));
    });
  }
}
