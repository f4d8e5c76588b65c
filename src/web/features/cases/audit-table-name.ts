/**
 * What a case-log entry's record is called in the reader's language (issue 26: the log said
 * "workflow_instances" and "cbt_thoughts"). Tables with a name in the catalogs use it;
 * questionnaires are named by their instrument, worksheets by their title; anything else is
 * "a record", never the table's name.
 */
import type { TFunction } from 'i18next';
import { INSTRUMENTS, type InstrumentDefinition } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { WORKSHEETS } from '../../../domain/worksheets';

export function auditTableName(t: TFunction, table: string, locale: Locale): string {
  const named = t([`caseLog.tables.${table}`, `safety.tables.${table}`, `careTeam.tables.${table}`], { defaultValue: '' });
  if (named) return named;
  const instrument = (INSTRUMENTS as Record<string, InstrumentDefinition | undefined>)[table];
  if (instrument) return t('careTeam.tables.questionnaire', { name: instrument.labels[locale] });
  if (Object.hasOwn(WORKSHEETS, table)) return t('careTeam.tables.worksheet', { name: t(`therapy.sheet.${table}.title`) });
  return t('careTeam.tables.other');
}
