/**
 * The table behind a questionnaire collection, derived from its instrument definition: the
 * common record columns of spec §3, one column per item, and the score columns only the server
 * writes. The migration generator and the REST collections both read this, so the table and
 * the API cannot drift apart.
 */
import { type InstrumentCode, type InstrumentDefinition, type ItemDefinition } from '../../domain/instruments';
import type { CaseRole } from '../../domain/roles';
import type { ColumnType } from '../rest';

/** Times of measurement (spec §2 /messungen/…): one record per case and time. */
export { MEASUREMENT_TIMES, type MeasurementTime } from '../../domain/measurements';

/**
 * Who fills in each instrument, as the case role that may write (and delete) its records. All
 * of them are self-reports: the patient answers about themselves (WAI-SR is the client version,
 * SEWIP and the evaluation are the patient's view of the treatment, the comment is the
 * patient's remark on a measurement). Care-team members read them; nobody writes for the
 * patient, so every answer in a record is the patient's own. A staff-filled instrument names
 * its role here (and needs a new migration).
 */
export const FILLED_BY: Readonly<Record<InstrumentCode, readonly CaseRole[]>> = {
  demographics: ['patient'],
  inep: ['patient'],
  bdi2: ['patient'],
  cdrisk10: ['patient'],
  comment: ['patient'],
  eurohis: ['patient'],
  scaling: ['patient'],
  gad2: ['patient'],
  gad7: ['patient'],
  mspss: ['patient'],
  pcl5: ['patient'],
  pg13: ['patient'],
  phq15: ['patient'],
  lec5: ['patient'],
  pmbs: ['patient'],
  sbqr: ['patient'],
  wai: ['patient'],
  trgi: ['patient'],
  taq: ['patient'],
  itq: ['patient'],
  tgisrplus: ['patient'],
  sewip: ['patient'],
  traumalisteneu: ['patient'],
  disclosure: ['patient'],
  evaluation: ['patient'],
  lsas: ['patient'],
  pathev: ['patient'],
  phq9: ['patient'],
};

/** Columns every record has before its items. */
export const RECORD_COLUMNS = { id: 'uuid', case_id: 'uuid', submitter_id: 'uuid', time_of_measurement: 'text' } as const;

/** Computed by the server from the items (INSTRUMENTS.md §7); never granted to a request role. */
export const SCORE_COLUMNS = { total: 'numeric', band: 'text', subscales: 'jsonb', flags: 'text[]', diagnoses: 'jsonb', complete: 'bool' } as const;
export type ScoreColumn = keyof typeof SCORE_COLUMNS;

export const TIMESTAMP_COLUMNS = { created_at: 'timestamptz', updated_at: 'timestamptz' } as const;

/** The key of `Prefer: resolution=merge-duplicates`: one record per case and time of measurement. */
export const CONFLICT_KEY = ['case_id', 'time_of_measurement'] as const;

/** The REST layer's type of an item column. */
export function itemColumnType(item: ItemDefinition): ColumnType {
  switch (item.scale.kind) {
    case 'integer':
      return 'int';
    case 'options':
    case 'text':
      return 'text';
    case 'multi':
      return 'text[]';
    case 'yesno':
      return 'bool';
    case 'date':
      return 'date';
  }
}

/** Every column the API shows, in table order: record, items, scores, timestamps. */
export function questionnaireColumns(definition: InstrumentDefinition): Record<string, ColumnType> {
  const items = Object.fromEntries(definition.items.map((item) => [item.id, itemColumnType(item)]));
  return { ...RECORD_COLUMNS, ...items, ...SCORE_COLUMNS, ...TIMESTAMP_COLUMNS };
}

/** Columns a request may read in the table itself: all but the scores (their grant of 0009). */
export function answerColumns(definition: InstrumentDefinition): string[] {
  return [...Object.keys(RECORD_COLUMNS), ...definition.items.map((item) => item.id), ...Object.keys(TIMESTAMP_COLUMNS)];
}

/** Columns a request may write: the record's key and the answers. */
export function writableColumns(definition: InstrumentDefinition): string[] {
  return [...CONFLICT_KEY, ...definition.items.map((item) => item.id)];
}

/** The table, named after the collection (`app_public.phq9`). */
export function tableOf(code: InstrumentCode): string {
  return `app_public.${code}`;
}

/**
 * The view every read goes through: the table's rows a person may see, with the score columns
 * empty unless they are on the case's care team or a coordinator (docs/decisions/0011-questionnaire-tables-and-scores.md).
 */
export function readViewOf(code: InstrumentCode): string {
  return `app_public.${code}_records`;
}
