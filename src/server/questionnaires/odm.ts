/**
 * CDISC ODM 1.3.2 export (issue 33), for coordinators:
 *
 *   GET /api/export/odm.xml                          every questionnaire
 *   GET /api/export/odm.xml?instruments=phq9,gad7    the named ones
 *
 * Records are read as the request role through the same statement as the CSV export (one per
 * instrument, in one transaction, under row-level security); the file is built after the
 * transaction ends. Each download is logged as a read of every case it holds.
 * XML: src/domain/export/odm.ts. See docs/decisions/standard-exports.md.
 */
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { INSTRUMENT_CODES, INSTRUMENTS, isInstrumentCode, type InstrumentCode } from '../../domain/instruments';
import { exportCell, exportColumns, instrumentDataset } from '../../domain/instruments/export';
import { odmXml, type OdmForm } from '../../domain/export/odm';
import type { Dataset } from '../../domain/export/dictionary';
import { withUser } from '../db/transaction';
import { badRequest, unauthorized } from '../http/errors';
import { caseReadsOf } from '../integrity/access-log';
import { readExportRecords, requireCoordinator } from './export';

/** `?instruments=a,b` as known codes in the registry's order; all when absent. */
export function chosenInstruments(value: unknown): InstrumentCode[] {
  if (value === undefined || value === '') return [...INSTRUMENT_CODES];
  if (typeof value !== 'string') throw badRequest('instruments_invalid', 'Give the questionnaires once, as a comma-separated list of codes, e.g. instruments=phq9,gad7.');
  const asked = value.split(',').map((code) => code.trim());
  const unknown = asked.filter((code) => !isInstrumentCode(code));
  if (unknown.length > 0) throw badRequest('unknown_questionnaire', `Unknown questionnaire ${unknown.map((code) => JSON.stringify(code)).join(', ')}. Known questionnaires: ${INSTRUMENT_CODES.join(', ')}.`);
  return INSTRUMENT_CODES.filter((code) => asked.includes(code));
}

export function registerOdmRoutes(app: FastifyInstance, pool: pg.Pool): void {
  app.get<{ Querystring: { instruments?: unknown } }>('/api/export/odm.xml', async (request, reply) => {
    if (!request.identity.userId) throw unauthorized('sign_in_required', 'Please sign in as a coordinator to download research data.');
    const codes = chosenInstruments(request.query.instruments);
    const read = await withUser(pool, request.identity, async (sql) => {
      await requireCoordinator(sql);
      const out: { code: InstrumentCode; records: Awaited<ReturnType<typeof readExportRecords>> }[] = [];
      for (const code of codes) out.push({ code, records: await readExportRecords(sql, code, INSTRUMENTS[code]) });
      return out;
    });
    const forms: OdmForm[] = read.map(({ code, records }) => {
      const definition = INSTRUMENTS[code];
      const columns = exportColumns(definition);
      const datasets: Record<'ar' | 'de' | 'en', Dataset> = { ar: instrumentDataset(definition, 'ar'), de: instrumentDataset(definition, 'de'), en: instrumentDataset(definition, 'en') };
      return { code, datasets, records: records.map((record) => ({ caseId: record.caseId, time: record.timeOfMeasurement, updatedAt: record.updatedAt, cells: columns.map((column) => exportCell(column, record)) })) };
    });
    const timesOf = (locale: 'ar' | 'de' | 'en') => instrumentDataset(INSTRUMENTS[INSTRUMENT_CODES[0]!], locale).variables.find((v) => v.name === 'time_of_measurement')!.values;
    const [ar, de, en] = [timesOf('ar'), timesOf('de'), timesOf('en')];
    const times = en.map((value, i) => ({ code: String(value.value), labels: { ar: ar[i]!.label, de: de[i]!.label, en: value.label } }));
    const now = new Date();
    const caseIds = read.flatMap(({ records }) => records.map((record) => record.caseId));
    request.log.info({ export: 'odm', instruments: codes, records: caseIds.length, userId: request.identity.userId }, 'research data exported');
    caseReadsOf(request).add('export', 'questionnaires', caseIds);
    const body = odmXml({ studyName: 'Sanad', description: 'Questionnaire data of a Sanad trial (pseudonymous by case).', times, forms, createdAt: now.toISOString().replace(/\.\d{3}Z$/, 'Z'), fileOid: `SANAD.${now.getTime()}` });
    return reply
      .header('content-type', 'application/xml; charset=utf-8')
      .header('content-disposition', `attachment; filename="sanad-odm-${now.toISOString().slice(0, 10)}.xml"`)
      .header('cache-control', 'no-store')
      .send(body);
  });
}
