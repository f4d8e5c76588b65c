/**
 * Labelled statistics files beside the research CSV (issue 33), for coordinators:
 *
 *   GET /api/export/<source>/syntax.sps?locale=…  SPSS / PSPP syntax (GET DATA + labels)
 *   GET /api/export/<source>/syntax.do?locale=…   Stata do-file
 *   GET /api/export/<source>/syntax.R?locale=…    R script (haven labelled vectors)
 *
 * <source> is a questionnaire code, `interview_reports` or `feedback_interview_reports`. The
 * files hold the dictionary only (no case data) and read the CSV of the same day's download.
 * See docs/decisions/standard-exports.md.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { INSTRUMENT_CODES, INSTRUMENTS, isInstrumentCode } from '../../domain/instruments';
import { exportFileName, instrumentDataset } from '../../domain/instruments/export';
import { feedbackExportColumns, reportDataset, reportExportColumns } from '../../domain/interview-report/export';
import type { Dataset } from '../../domain/export/dictionary';
import { SYNTAX_FORMATS, syntaxFile, type SyntaxFormat } from '../../domain/export/syntax';
import type { Locale } from '../../domain/locales';
import type { Config } from '../config';
import { withUser } from '../db/transaction';
import { notFound, unauthorized } from '../http/errors';
import { requireCoordinator, requireLocale } from './export';

const CONTENT_TYPES: Record<SyntaxFormat, string> = { sps: 'text/plain; charset=utf-8', do: 'text/plain; charset=utf-8', R: 'text/plain; charset=utf-8' };
const REPORT_SOURCES = ['interview_reports', 'feedback_interview_reports'] as const;

/** The data dictionary of an exportable file, or a 404 that lists the known sources. */
export function datasetOf(source: string, locale: Locale): Dataset {
  if (isInstrumentCode(source)) return instrumentDataset(INSTRUMENTS[source], locale);
  if (source === 'interview_reports') return reportDataset(source, reportExportColumns(), locale);
  if (source === 'feedback_interview_reports') return reportDataset(source, feedbackExportColumns(), locale);
  throw notFound('unknown_questionnaire', `There is no exported file "${source}". Known files: ${[...INSTRUMENT_CODES, ...REPORT_SOURCES].join(', ')}.`);
}

export function registerSyntaxRoutes(app: FastifyInstance, pool: pg.Pool, config: Config): void {
  for (const format of SYNTAX_FORMATS) {
    app.get<{ Params: { code: string }; Querystring: { locale?: unknown } }>(`/api/export/:code/syntax.${format}`, async (request, reply) => {
      if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in as a coordinator to download research data.');
      await withUser(pool, request.identity, requireCoordinator);
      const locale = requireLocale(request.query.locale, config);
      const dataset = datasetOf(request.params.code, locale);
      request.log.info({ export: dataset.source, syntax: format, userId: request.identity.userId }, 'research syntax exported');
      const day = new Date();
      const fileName = exportFileName(dataset.source, day).replace(/\.csv$/, `-labels-${locale}.${format}`);
      return reply
        .header('content-type', CONTENT_TYPES[format])
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .header('cache-control', 'no-store')
        .send(syntaxFile(format, dataset, exportFileName(dataset.source, day)));
    });
  }
}
