/**
 * The research export of a questionnaire, derived from its definition like the table, the
 * validation and the form: the columns of its CSV file, one line per record, and a codebook
 * (data dictionary) that explains every column. Pure: the server reads the records as the
 * request role and hands them here; tests call the same functions.
 *
 * Column order (stable; a new item or score of a definition adds a column, nothing moves):
 *   1. record    case_id, time_of_measurement, created_at, updated_at
 *   2. case      exclude_from_analysis, is_dropout, treatment (facts of the case, repeated per record)
 *   3. score     complete, then total and band when the instrument defines them
 *   4. subscale  subscale_<id>, in the definition's order
 *   5. flag      flag_<code>: 1 raised, 0 not raised
 *   6. diagnosis diagnosis_<code>: 1 met, 0 not met, empty while undetermined
 *   7. item      one per item, named by its id (the table's column), in the definition's order
 * Values are the stored codes, never labels: integers as numbers, an option as its code, a
 * multi-select as its codes joined by `;`, yes/no as 1/0, dates as YYYY-MM-DD, times as UTC ISO
 * 8601. Empty means not answered (or hidden, or not yet scored). The file is pseudonymous: the
 * case id is the only key; no record id, no submitter, no names.
 *
 * CSV: RFC 4180 (comma, fields with a comma, quote, CR or LF quoted, quotes doubled), CRLF line
 * ends, UTF-8 with a byte-order mark so spreadsheet programs read Arabic correctly. Text that a
 * spreadsheet would run as a formula (starting with = + - @, a tab or a CR) gets a leading
 * apostrophe (OWASP "CSV injection"); numbers are written as they are. See
 * docs/decisions/0016-research-export.md.
 */
import type { Locale } from '../locales';
import { MEASUREMENT_TIMES } from '../measurements';
import { codebookFile, MISSING, type Dataset, type ValueLabel, type Variable } from '../export/dictionary';
import { labels, NO_LABELS, YES_LABELS } from './labels';
import { scoreRange } from './range';
import type { AnswerValue, Answers, Condition, DiagnosisDefinition, DisplayCondition, FlagDefinition, InstrumentDefinition, ItemDefinition, Labels, ScoreDefinition } from './types';

/** What a column describes; the codebook's `kind`. */
export type ExportColumnKind = 'record' | 'case' | 'score' | 'subscale' | 'flag' | 'diagnosis' | 'item';

/** How a column's values are written; the codebook's `type`. */
export type ExportValueType = 'uuid' | 'code' | 'datetime' | 'boolean' | 'number' | 'integer' | 'codes' | 'text' | 'date';

type RecordField = 'case_id' | 'time_of_measurement' | 'created_at' | 'updated_at';
type CaseField = 'exclude_from_analysis' | 'is_dropout' | 'treatment';
type ScoreField = 'complete' | 'total' | 'band';

export type ExportColumn = { readonly name: string; readonly type: ExportValueType } & (
  | { readonly kind: 'record'; readonly field: RecordField }
  | { readonly kind: 'case'; readonly field: CaseField }
  | { readonly kind: 'score'; readonly field: ScoreField }
  | { readonly kind: 'subscale'; readonly score: ScoreDefinition }
  | { readonly kind: 'flag'; readonly flag: FlagDefinition; readonly definition: InstrumentDefinition }
  | { readonly kind: 'diagnosis'; readonly diagnosis: DiagnosisDefinition }
  | { readonly kind: 'item'; readonly item: ItemDefinition; /** Position in the definition's items and a record's `items`. */ readonly index: number }
);

/**
 * One record as the server read it (its read view joined to the case). Scores are null when the
 * reader may not see them or the record was never scored; times are already UTC ISO 8601 text.
 */
export interface ExportRecord {
  readonly caseId: string;
  readonly timeOfMeasurement: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly excludeFromAnalysis: boolean;
  readonly isDropout: boolean;
  /** The randomized arm of the case (issue 15); null or absent before randomization. */
  readonly treatment?: string | null;
  readonly complete: boolean | null;
  readonly total: number | null;
  readonly band: string | null;
  readonly subscales: Readonly<Record<string, number | null | undefined>> | null;
  readonly flags: readonly string[] | null;
  readonly diagnoses: Readonly<Record<string, boolean | null | undefined>> | null;
  /** The answers in the definition's item order (an array: 50,000 records build no maps). */
  readonly items: readonly (AnswerValue | null | undefined)[];
}

/** A record's `items` from answers keyed by item id. */
export function itemsInOrder(definition: InstrumentDefinition, answers: Answers): (AnswerValue | null | undefined)[] {
  return definition.items.map((item) => answers[item.id]);
}

/** A cell: text (guarded against formulas), a number (written as is), or empty. */
export type Cell = string | number | null;

const RECORD_COLUMNS: readonly ExportColumn[] = [
  { name: 'case_id', kind: 'record', field: 'case_id', type: 'uuid' },
  { name: 'time_of_measurement', kind: 'record', field: 'time_of_measurement', type: 'code' },
  { name: 'created_at', kind: 'record', field: 'created_at', type: 'datetime' },
  { name: 'updated_at', kind: 'record', field: 'updated_at', type: 'datetime' },
  { name: 'exclude_from_analysis', kind: 'case', field: 'exclude_from_analysis', type: 'boolean' },
  { name: 'is_dropout', kind: 'case', field: 'is_dropout', type: 'boolean' },
  { name: 'treatment', kind: 'case', field: 'treatment', type: 'code' },
];

function itemValueType(item: ItemDefinition): ExportValueType {
  switch (item.scale.kind) {
    case 'integer':
      return 'integer';
    case 'options':
      return 'code';
    case 'multi':
      return 'codes';
    case 'yesno':
      return 'boolean';
    case 'text':
      return 'text';
    case 'date':
      return 'date';
  }
}

/** The export's columns for an instrument, in the documented order. */
export function exportColumns(definition: InstrumentDefinition): ExportColumn[] {
  const scores: ExportColumn[] = [{ name: 'complete', kind: 'score', field: 'complete', type: 'boolean' }];
  if (definition.total) scores.push({ name: 'total', kind: 'score', field: 'total', type: 'number' });
  if (definition.bands?.length) scores.push({ name: 'band', kind: 'score', field: 'band', type: 'code' });
  return [
    ...RECORD_COLUMNS,
    ...scores,
    ...definition.subscales.map((score): ExportColumn => ({ name: `subscale_${score.id}`, kind: 'subscale', score, type: 'number' })),
    ...definition.flags.map((flag): ExportColumn => ({ name: `flag_${flag.code}`, kind: 'flag', flag, definition, type: 'boolean' })),
    ...definition.diagnoses.map((diagnosis): ExportColumn => ({ name: `diagnosis_${diagnosis.code}`, kind: 'diagnosis', diagnosis, type: 'boolean' })),
    ...definition.items.map((item, index): ExportColumn => ({ name: item.id, kind: 'item', item, index, type: itemValueType(item) })),
  ];
}

const bit = (value: boolean | null | undefined): Cell => (value === true ? 1 : value === false ? 0 : null);
const numberCell = (value: number | null | undefined): Cell => (typeof value === 'number' && Number.isFinite(value) ? value : null);

/** An answer as stored, never its label: codes, numbers, 1/0, codes joined by `;`. */
export function answerCell(value: AnswerValue | null | undefined): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return bit(value);
  if (typeof value === 'number') return numberCell(value);
  if (Array.isArray(value)) return value.length > 0 ? value.join(';') : null;
  const text = value as string;
  return text === '' ? null : text;
}

function recordCell(field: RecordField, record: ExportRecord): Cell {
  switch (field) {
    case 'case_id':
      return record.caseId;
    case 'time_of_measurement':
      return record.timeOfMeasurement;
    case 'created_at':
      return record.createdAt;
    case 'updated_at':
      return record.updatedAt;
  }
}

/**
 * Whether a condition can be decided from a record: every item and score it reads is known.
 * `any` that did not hold is decided only when all its parts are; `all` when one part is (that
 * part is false). Used for flags that were not raised: unknown stays empty, never 0 (issue 33).
 */
function decidable(definition: InstrumentDefinition, condition: Condition, record: ExportRecord): boolean {
  if ('any' in condition) return condition.any.every((part) => decidable(definition, part, record));
  if ('all' in condition) return condition.all.some((part) => decidable(definition, part, record));
  if ('score' in condition) {
    const value = condition.score === 'total' ? record.total : record.subscales?.[condition.score];
    return typeof value === 'number';
  }
  const index = definition.items.findIndex((item) => item.id === condition.item);
  const answer = index < 0 ? undefined : record.items[index];
  return answer !== null && answer !== undefined && answer !== '' && !(Array.isArray(answer) && answer.length === 0);
}

/**
 * A flag: 1 raised; 0 only when the answers it reads are in and it was not raised; empty when
 * it cannot be determined (PHQ-9 item 9 unanswered) or the record was never scored. A flag the
 * definition's algorithm raises (no `when`) is determined once the record is complete.
 */
export function flagCell(definition: InstrumentDefinition, flag: FlagDefinition, record: ExportRecord): Cell {
  if (record.flags === null) return null;
  if (record.flags.includes(flag.code)) return 1;
  if (flag.when === undefined) return record.complete === true ? 0 : null;
  return decidable(definition, flag.when, record) ? 0 : null;
}

/** The value of one column for one record. */
export function exportCell(column: ExportColumn, record: ExportRecord): Cell {
  switch (column.kind) {
    case 'record':
      return recordCell(column.field, record);
    case 'case':
      if (column.field === 'treatment') return record.treatment ?? null;
      return bit(column.field === 'exclude_from_analysis' ? record.excludeFromAnalysis : record.isDropout);
    case 'score':
      if (column.field === 'complete') return bit(record.complete);
      if (column.field === 'total') return numberCell(record.total);
      return record.band ?? null;
    case 'subscale':
      return numberCell(record.subscales?.[column.score.id]);
    case 'flag':
      return flagCell(column.definition, column.flag, record);
    case 'diagnosis':
      return bit(record.diagnoses?.[column.diagnosis.code]);
    case 'item':
      return answerCell(record.items[column.index]);
  }
}

// CSV ----------------------------------------------------------------------------------------

export const CSV_BOM = '\uFEFF';
export const CSV_LINE_END = '\r\n';

/** Characters that make a spreadsheet read a cell as a formula (OWASP CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Text a spreadsheet would run as a formula, made inert with a leading apostrophe. */
export function guardFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One field of RFC 4180: text guarded, then quoted when it must be; numbers as they are. */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = guardFormula(cell);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(cells: readonly Cell[]): string {
  return cells.map(csvField).join(',') + CSV_LINE_END;
}

/** A whole file: byte-order mark, header line, one line per row, each ended by CRLF. */
export function toCsv(header: readonly string[], rows: Iterable<readonly Cell[]>): string {
  const lines = [CSV_BOM, csvLine(header)];
  for (const row of rows) lines.push(csvLine(row));
  return lines.join('');
}

/**
 * The data file of an instrument in pieces: the byte-order mark and header first, then the
 * records' lines, `linesPerChunk` at a time, so a server can stream 50,000 records without
 * building one string or holding the event loop for the whole file.
 */
export function* exportCsvChunks(definition: InstrumentDefinition, records: Iterable<ExportRecord>, linesPerChunk = 1000): Generator<string> {
  const columns = exportColumns(definition);
  yield CSV_BOM + csvLine(columns.map((column) => column.name));
  let lines: string[] = [];
  for (const record of records) {
    lines.push(csvLine(columns.map((column) => exportCell(column, record))));
    if (lines.length >= linesPerChunk) {
      yield lines.join('');
      lines = [];
    }
  }
  if (lines.length > 0) yield lines.join('');
}

/** The data file of an instrument: its columns' header and one line per record, in the given order. */
export function exportCsv(definition: InstrumentDefinition, records: Iterable<ExportRecord>): string {
  return [...exportCsvChunks(definition, records)].join('');
}

// Codebook ----------------------------------------------------------------------------------
// One shape for every source (src/domain/export/dictionary.ts): a questionnaire's columns as
// variables with structured value labels, missing-value meaning and derivation.

/** The project's own wording of the codebook, per locale (the definitions' labels cover the rest). */
const WORDS = {
  case_id: labels('case id (pseudonym; the only key of a record)', 'Fall-ID (Pseudonym; einziger Schlüssel eines Datensatzes)', 'معرّف الحالة (اسم مستعار؛ المفتاح الوحيد للسجل)'),
  time_of_measurement: labels('time of measurement', 'Messzeitpunkt', 'وقت القياس'),
  created_at: labels('record first saved', 'Datensatz zuerst gespeichert', 'أول حفظ للسجل'),
  updated_at: labels('record last changed', 'Datensatz zuletzt geändert', 'آخر تغيير للسجل'),
  exclude_from_analysis: labels('case excluded from analysis (a fact of the case)', 'Fall von der Auswertung ausgeschlossen (Angabe des Falls)', 'الحالة مستبعدة من التحليل (معلومة عن الحالة)'),
  is_dropout: labels('case dropped out (a fact of the case)', 'Fall abgebrochen (Angabe des Falls)', 'انقطاع الحالة (معلومة عن الحالة)'),
  treatment: labels('randomized treatment of the case (a fact of the case)', 'randomisierte Behandlung des Falls (Angabe des Falls)', 'العلاج المخصص عشوائيًا للحالة (معلومة عن الحالة)'),
  treatmentValues: labels('an arm code of the trial’s allocation; empty before randomization', 'ein Armkürzel der Zuteilung der Studie; leer vor der Randomisierung', 'رمز مجموعة من توزيع الدراسة؛ فارغ قبل التوزيع العشوائي'),
  complete: labels('record complete (every required shown item answered)', 'Datensatz vollständig (alle angezeigten Pflichtitems beantwortet)', 'السجل مكتمل (تمت الإجابة عن كل البنود المطلوبة المعروضة)'),
  band: labels('severity band of the total', 'Schweregrad des Summenwerts', 'فئة شدة المجموع'),
  uuid: labels('UUID', 'UUID', 'UUID'),
  datetime: labels('date and time, UTC, ISO 8601 (YYYY-MM-DDThh:mm:ssZ)', 'Datum und Uhrzeit, UTC, ISO 8601 (YYYY-MM-DDThh:mm:ssZ)', 'التاريخ والوقت بتوقيت UTC وفق ISO 8601 (YYYY-MM-DDThh:mm:ssZ)'),
  date: labels('date, YYYY-MM-DD', 'Datum, YYYY-MM-DD', 'تاريخ بصيغة YYYY-MM-DD'),
  text: labels('free text, up to {{max}} characters', 'Freitext, bis zu {{max}} Zeichen', 'نص حر حتى {{max}} حرفاً'),
  codes: labels('codes of every selected option, separated by ;', 'Codes aller gewählten Optionen, getrennt durch ;', 'رموز كل الخيارات المختارة مفصولة بـ ;'),
  complete1: labels('complete', 'vollständig', 'مكتمل'),
  complete0: labels('not complete', 'unvollständig', 'غير مكتمل'),
  raised: labels('raised', 'ausgelöst', 'مُفعّلة'),
  notRaised: labels('not raised', 'nicht ausgelöst', 'غير مُفعّلة'),
  met: labels('criteria met', 'Kriterien erfüllt', 'المعايير مستوفاة'),
  notMet: labels('criteria not met', 'Kriterien nicht erfüllt', 'المعايير غير مستوفاة'),
  undetermined: labels('empty = not determined (answers missing)', 'leer = nicht bestimmt (Antworten fehlen)', 'فارغ = غير محدد (إجابات ناقصة)'),
  noRange: labels('computed by the instrument’s algorithm', 'vom Algorithmus des Instruments berechnet', 'تحسبه خوارزمية الأداة'),
  screening: labels('screening', 'Screening', 'الفحص الأولي'),
  pre: labels('before treatment', 'vor der Behandlung', 'قبل العلاج'),
  post: labels('after treatment', 'nach der Behandlung', 'بعد العلاج'),
  fu1: labels('follow-up 1', 'Katamnese 1', 'المتابعة 1'),
  fu2: labels('follow-up 2', 'Katamnese 2', 'المتابعة 2'),
} satisfies Record<string, Labels>;

type Values = ValueLabel[];
const pairs = (entries: readonly (readonly [string | number, string])[]): Values => entries.map(([value, label]) => ({ value, label }));
const yesNo = (locale: Locale): Values => pairs([[1, YES_LABELS[locale]], [0, NO_LABELS[locale]]]);

/** What an item's values mean: its anchors or options (codes and labels). */
function itemValues(item: ItemDefinition, locale: Locale): Values {
  const scale = item.scale;
  switch (scale.kind) {
    case 'integer':
      return pairs(scale.anchors.map((a) => [a.value, a.labels[locale]]));
    case 'options':
    case 'multi':
      return pairs(scale.options.map((o) => [o.code, o.labels[locale]]));
    case 'yesno':
      return yesNo(locale);
    case 'text':
    case 'date':
      return [];
  }
}

/** A condition value as it appears in the export (yes/no as 1/0). */
function conditionValue(value: string | number | boolean): string {
  return typeof value === 'boolean' ? (value ? '1' : '0') : String(value);
}

/**
 * When an item is shown, as a short formula over export values: `fled = 1`,
 * `item17 has any of (happened, witnessed)`, `item3 >= 2` (points). The referenced item must
 * itself be shown and answered, as in the form.
 */
export function shownIfText(definition: InstrumentDefinition, condition: DisplayCondition | undefined): string {
  if (!condition) return '';
  const source = definition.items.find((item) => item.id === condition.item);
  const parts: string[] = [];
  if (condition.anyOf) {
    const values = condition.anyOf.map(conditionValue);
    if (source?.scale.kind === 'multi') parts.push(`${condition.item} has any of (${values.join(', ')})`);
    else if (values.length === 1) parts.push(`${condition.item} = ${values[0]}`);
    else parts.push(`${condition.item} in (${values.join(', ')})`);
  }
  if (condition.atLeast !== undefined) {
    const points = source?.scale.kind === 'integer' ? condition.item : `points(${condition.item})`;
    parts.push(`${points} >= ${condition.atLeast}`);
  }
  return parts.join(' and ');
}

/** The export name of a score a condition reads: `total` or `subscale_<id>`. */
const scoreColumn = (score: string): string => (score === 'total' ? 'total' : `subscale_${score}`);

/** A flag's rule as a formula over export columns: `item9 >= 1`, `total >= 10`. */
export function conditionText(condition: Condition): string {
  if ('any' in condition) return condition.any.map((part) => `(${conditionText(part)})`).join(' or ');
  if ('all' in condition) return condition.all.map((part) => `(${conditionText(part)})`).join(' and ');
  if ('score' in condition) return `${scoreColumn(condition.score)} >= ${condition.atLeast}`;
  if ('atLeast' in condition) return `${condition.item} >= ${condition.atLeast}`;
  if ('atMost' in condition) return `${condition.item} <= ${condition.atMost}`;
  return `${condition.item} in (${condition.anyOf.map(conditionValue).join(', ')})`;
}

/** How a score is computed: `sum(item1, …, item9)`, reversed items named. */
function scoreDerivation(score: Pick<ScoreDefinition, 'items' | 'aggregate' | 'reversed'>): string {
  const over = score.items.join(', ');
  const base = score.aggregate === 'derived' ? `algorithm over (${over})` : `${score.aggregate}(${over})`;
  return score.reversed?.length ? `${base}; reversed: ${score.reversed.join(', ')} (lowest + highest − points)` : base;
}

function bandDerivation(definition: InstrumentDefinition): string {
  return (definition.bands ?? []).map((band) => `${band.code} if total ${band.minExclusive ? '>' : '>='} ${band.min}`).join('; ');
}

type Meaning = Omit<Variable, 'name' | 'kind' | 'type'>;

function meaning(label: string, values: Values, missing: string, extra: Partial<Meaning> = {}): Meaning {
  return { label, values, missing, derivation: '', required: null, shownIf: '', min: null, max: null, ...extra };
}

/** One column of the questionnaire's file as a variable of the dictionary, in a locale. */
function columnVariable(definition: InstrumentDefinition, column: ExportColumn, locale: Locale): Variable {
  const m = columnMeaningOf(definition, column, locale);
  return { name: column.name, kind: column.kind, type: column.type, ...m };
}

function columnMeaningOf(definition: InstrumentDefinition, column: ExportColumn, locale: Locale): Meaning {
  switch (column.kind) {
    case 'record':
      if (column.field === 'case_id') return meaning(WORDS.case_id[locale], [], MISSING.never[locale]);
      if (column.field === 'time_of_measurement') return meaning(WORDS.time_of_measurement[locale], pairs(MEASUREMENT_TIMES.map((time) => [time, WORDS[time][locale]])), MISSING.never[locale]);
      return meaning(WORDS[column.field][locale], [], MISSING.never[locale]);
    case 'case':
      if (column.field === 'treatment') return meaning(WORDS.treatment[locale], [], MISSING.notRandomized[locale]);
      return meaning(WORDS[column.field][locale], yesNo(locale), MISSING.never[locale]);
    case 'score': {
      if (column.field === 'complete') return meaning(WORDS.complete[locale], pairs([[1, WORDS.complete1[locale]], [0, WORDS.complete0[locale]]]), MISSING.notComputed[locale]);
      if (column.field === 'band') return meaning(WORDS.band[locale], pairs((definition.bands ?? []).map((band) => [band.code, band.labels[locale]])), MISSING.notComputed[locale], { derivation: bandDerivation(definition) });
      const total = definition.total!;
      const range = scoreRange(definition, total);
      return meaning(total.labels[locale], [], MISSING.notComputed[locale], { derivation: scoreDerivation(total), min: range?.[0] ?? null, max: range?.[1] ?? null });
    }
    case 'subscale': {
      const range = scoreRange(definition, column.score);
      return meaning(column.score.labels[locale], [], MISSING.notComputed[locale], { derivation: scoreDerivation(column.score), min: range?.[0] ?? null, max: range?.[1] ?? null });
    }
    case 'flag':
      return meaning(column.flag.labels[locale], pairs([[1, WORDS.raised[locale]], [0, WORDS.notRaised[locale]]]), MISSING.undetermined[locale], {
        derivation: column.flag.when ? conditionText(column.flag.when) : `algorithm (${definition.code})`,
      });
    case 'diagnosis':
      return meaning(column.diagnosis.labels[locale], pairs([[1, WORDS.met[locale]], [0, WORDS.notMet[locale]]]), MISSING.undetermined[locale], { derivation: `algorithm (${definition.code})` });
    case 'item': {
      const scale = column.item.scale;
      return meaning(column.item.labels[locale], itemValues(column.item, locale), MISSING.notAnswered[locale], {
        required: column.item.required,
        shownIf: shownIfText(definition, column.item.showIf),
        min: scale.kind === 'integer' ? scale.min : null,
        max: scale.kind === 'integer' ? scale.max : null,
        maxLength: scale.kind === 'text' ? scale.maxLength : null,
      });
    }
  }
}

/** The questionnaire's data dictionary in a locale: one variable per exported column, in order. */
export function instrumentDataset(definition: InstrumentDefinition, locale: Locale): Dataset {
  return { source: definition.code, title: definition.labels[locale], version: definition.version, locale, variables: exportColumns(definition).map((column) => columnVariable(definition, column, locale)) };
}

/** The codebook file of an instrument in a locale. */
export function codebookCsv(definition: InstrumentDefinition, locale: Locale): string {
  return codebookFile(instrumentDataset(definition, locale));
}

/** The file names a download offers: `sanad-phq9-2026-11-22.csv`, `sanad-phq9-codebook-de-2026-11-22.csv`. */
export function exportFileName(code: string, day: Date, codebookLocale?: Locale): string {
  const date = day.toISOString().slice(0, 10);
  return codebookLocale ? `sanad-${code}-codebook-${codebookLocale}-${date}.csv` : `sanad-${code}-${date}.csv`;
}
