/**
 * The research export of the interview reports and the follow-up feedback reports: columns and
 * codebook from the one definition (definition.ts). Identifying fields (name, phone, residence,
 * video account, alias) never leave; only finalized reports are exported (a draft is not data).
 * The CSV writer is the questionnaires' (instruments/export.ts): BOM, CRLF, formula guard.
 */
import type { Locale } from '../locales';
import { toCsv, type Cell } from '../instruments/export';
import { FEEDBACK_FIELDS, REPORT_FIELDS, TRIAL_OUTCOMES, type FieldType } from './definition';
import { codebookFile, MISSING, type Dataset, type Variable, type VariableType } from '../export/dictionary';
import { NO_LABELS, YES_LABELS } from '../instruments/labels';

export interface ReportExportColumn {
  readonly name: string;
  readonly type: FieldType | { readonly kind: 'uuid' | 'datetime' | 'code' };
  readonly labels: Readonly<Record<Locale, string>>;
  readonly derived?: boolean;
}

const l = (en: string, de: string, ar: string) => ({ ar, de, en });

const REPORT_META: readonly ReportExportColumn[] = [
  { name: 'case_id', type: { kind: 'uuid' }, labels: l('Case', 'Fall', 'الحالة') },
  { name: 'report_id', type: { kind: 'uuid' }, labels: l('Report', 'Bericht', 'التقرير') },
  { name: 'version', type: { kind: 'int', min: 1, max: 1000 }, labels: l('Version', 'Version', 'الإصدار') },
  { name: 'finalized_at', type: { kind: 'datetime' }, labels: l('Finalized at (UTC)', 'Abgeschlossen am (UTC)', 'تاريخ الإنهاء (UTC)') },
  { name: 'trial_outcome', type: { kind: 'code' }, labels: l('Trial path', 'Studienpfad', 'مسار الدراسة') },
  { name: 'overridden', type: { kind: 'bool' }, labels: l('A coordinator overrode a rule', 'Eine Koordination hat eine Regel übergangen', 'تجاوز منسق قاعدة') },
  { name: 'exclude_from_analysis', type: { kind: 'bool' }, labels: l('Case excluded from analysis', 'Fall von der Analyse ausgeschlossen', 'الحالة مستبعدة من التحليل') },
];

/** The report's export columns: case facts, then every non-identifying field in form order. */
export function reportExportColumns(): ReportExportColumn[] {
  return [...REPORT_META, ...REPORT_FIELDS.filter((f) => !f.identifying).map((f) => ({ name: f.id, type: f.type, labels: f.labels, derived: f.derived }))];
}

export function feedbackExportColumns(): ReportExportColumn[] {
  return [
    REPORT_META[0]!,
    { name: 'booking_id', type: { kind: 'uuid' }, labels: l('Follow-up booking', 'Nachgespräch-Buchung', 'حجز المتابعة') },
    ...FEEDBACK_FIELDS.map((f) => ({ name: f.id, type: f.type, labels: f.labels })),
  ];
}

/**
 * A stored value as a cell: booleans 1/0, dates and codes as text. A multi-select is written as
 * its codes joined by `;`, as the questionnaires write theirs (the codebook lists each code).
 */
export function reportCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (Array.isArray(value)) return value.length > 0 ? value.join(';') : null;
  return String(value);
}

export function reportCsv(columns: readonly ReportExportColumn[], rows: Iterable<Record<string, unknown>>): string {
  const lines: Cell[][] = [];
  for (const row of rows) lines.push(columns.map((c) => reportCell(row[c.name])));
  return toCsv(columns.map((c) => c.name), lines);
}

const TYPES: Record<ReportExportColumn['type']['kind'], VariableType> = { bool: 'boolean', int: 'integer', text: 'text', date: 'date', enum: 'code', enums: 'codes', uuid: 'uuid', datetime: 'datetime', code: 'code' };

const DERIVED = { en: 'computed by the server from other fields of the report', de: 'vom Server aus anderen Feldern des Berichts berechnet', ar: 'يحسبه الخادم من حقول أخرى في التقرير' } as const;
/** The trial path codes of a finalized report, with words for the codebook. */
const TRIAL_OUTCOME_LABELS: Record<(typeof TRIAL_OUTCOMES)[number], Readonly<Record<Locale, string>>> = {
  ptsd: l('PTSD treatment path', 'PTBS-Behandlungspfad', 'مسار علاج اضطراب ما بعد الصدمة'),
  depression: l('depression treatment path', 'Depressions-Behandlungspfad', 'مسار علاج الاكتئاب'),
  counseling: l('referred to counselling', 'an die Beratung verwiesen', 'أحيل إلى الإرشاد'),
  rejected: l('not included', 'nicht aufgenommen', 'لم يُقبل'),
  later: l('register again later', 'später erneut anmelden', 'التسجيل مجدداً لاحقاً'),
};

/** A report column as a variable of the shared dictionary (src/domain/export/dictionary.ts). */
function reportVariable(column: ReportExportColumn, locale: Locale): Variable {
  const t = column.type;
  const meta = REPORT_META.some((m) => m.name === column.name) || column.name === 'booking_id';
  return {
    name: column.name,
    kind: meta ? 'record' : 'field',
    type: TYPES[t.kind],
    label: column.labels[locale],
    values:
      t.kind === 'enum' || t.kind === 'enums'
        ? t.options.map((o) => ({ value: o.code, label: o.labels[locale] }))
        : t.kind === 'bool'
          ? [{ value: 1, label: YES_LABELS[locale] }, { value: 0, label: NO_LABELS[locale] }]
          : column.name === 'trial_outcome'
            ? TRIAL_OUTCOMES.map((code) => ({ value: code, label: TRIAL_OUTCOME_LABELS[code][locale] }))
            : [],
    min: t.kind === 'int' ? t.min : null,
    max: t.kind === 'int' ? t.max : null,
    maxLength: t.kind === 'text' ? t.maxLength : null,
    missing: meta && column.name !== 'trial_outcome' ? MISSING.never[locale] : MISSING.notRecorded[locale],
    derivation: column.derived ? DERIVED[locale] : '',
    required: null,
    shownIf: '',
  };
}

const TITLES = {
  interview_reports: { en: 'Interview report', de: 'Interviewbericht', ar: 'تقرير المقابلة' },
  feedback_interview_reports: { en: 'Follow-up interview report', de: 'Bericht zum Nachgespräch', ar: 'تقرير مقابلة المتابعة' },
} as const;

/** The data dictionary of a report file in a locale. */
export function reportDataset(source: keyof typeof TITLES, columns: readonly ReportExportColumn[], locale: Locale): Dataset {
  return { source, title: TITLES[source][locale], version: '1', locale, variables: columns.map((c) => reportVariable(c, locale)) };
}

/** The codebook of a report file: the same shape as every questionnaire's. */
export function reportCodebookCsv(source: keyof typeof TITLES, columns: readonly ReportExportColumn[], locale: Locale): string {
  return codebookFile(reportDataset(source, columns, locale));
}
