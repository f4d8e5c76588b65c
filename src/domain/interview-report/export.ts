/**
 * The research export of the interview reports and the follow-up feedback reports: columns and
 * codebook from the one definition (definition.ts). Identifying fields (name, phone, residence,
 * video account, alias) never leave; only finalized reports are exported (a draft is not data).
 * The CSV writer is the questionnaires' (instruments/export.ts): BOM, CRLF, formula guard.
 */
import type { Locale } from '../locales';
import { toCsv, type Cell } from '../instruments/export';
import { FEEDBACK_FIELDS, REPORT_FIELDS, type FieldType } from './definition';

export interface ReportExportColumn {
  readonly name: string;
  readonly type: FieldType | { readonly kind: 'uuid' | 'datetime' | 'code' };
  readonly labels: Readonly<Record<Locale, string>>;
}

const l = (en: string, de: string, ar: string) => ({ ar, de, en });

const REPORT_META: readonly ReportExportColumn[] = [
  { name: 'case_id', type: { kind: 'uuid' }, labels: l('Case', 'Fall', 'الحالة') },
  { name: 'report_id', type: { kind: 'uuid' }, labels: l('Report', 'Bericht', 'التقرير') },
  { name: 'version', type: { kind: 'int', min: 1, max: 1000 }, labels: l('Version', 'Version', 'الإصدار') },
  { name: 'finalized_at', type: { kind: 'datetime' }, labels: l('Finalized at (UTC)', 'Abgeschlossen am (UTC)', 'تاريخ الإنهاء (UTC)') },
  { name: 'trial_outcome', type: { kind: 'code' }, labels: l('Trial path: ptsd, depression, counseling, rejected, later', 'Studienpfad: ptsd, depression, counseling, rejected, later', 'مسار الدراسة: ptsd, depression, counseling, rejected, later') },
  { name: 'overridden', type: { kind: 'bool' }, labels: l('A coordinator overrode a rule', 'Eine Koordination hat eine Regel übergangen', 'تجاوز منسق قاعدة') },
  { name: 'exclude_from_analysis', type: { kind: 'bool' }, labels: l('Case excluded from analysis', 'Fall von der Analyse ausgeschlossen', 'الحالة مستبعدة من التحليل') },
];

/** The report's export columns: case facts, then every non-identifying field in form order. */
export function reportExportColumns(): ReportExportColumn[] {
  return [...REPORT_META, ...REPORT_FIELDS.filter((f) => !f.identifying).map((f) => ({ name: f.id, type: f.type, labels: f.labels }))];
}

export function feedbackExportColumns(): ReportExportColumn[] {
  return [
    REPORT_META[0]!,
    { name: 'booking_id', type: { kind: 'uuid' }, labels: l('Follow-up booking', 'Nachgespräch-Buchung', 'حجز المتابعة') },
    ...FEEDBACK_FIELDS.map((f) => ({ name: f.id, type: f.type, labels: f.labels })),
  ];
}

/** A stored value as a cell: booleans 1/0, lists joined by "|", dates and codes as text. */
export function reportCell(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'number') return value;
  if (Array.isArray(value)) return value.join('|');
  return String(value);
}

export function reportCsv(columns: readonly ReportExportColumn[], rows: Iterable<Record<string, unknown>>): string {
  const lines: Cell[][] = [];
  for (const row of rows) lines.push(columns.map((c) => reportCell(row[c.name])));
  return toCsv(columns.map((c) => c.name), lines);
}

export const REPORT_CODEBOOK_HEADER = ['variable', 'type', 'label', 'values'] as const;

function typeName(type: ReportExportColumn['type']): string {
  switch (type.kind) {
    case 'bool':
      return 'boolean (1 yes, 0 no)';
    case 'int':
      return `integer ${type.min}–${type.max}`;
    case 'text':
      return 'text';
    case 'date':
      return 'date (YYYY-MM-DD)';
    case 'enum':
      return 'code';
    case 'enums':
      return 'codes separated by |';
    case 'uuid':
      return 'uuid';
    case 'datetime':
      return 'date-time (UTC, ISO 8601)';
    case 'code':
      return 'code';
  }
}

/** One codebook row per column: name, type, label and the coded values in the locale. */
export function reportCodebookCsv(columns: readonly ReportExportColumn[], locale: Locale): string {
  return toCsv(
    REPORT_CODEBOOK_HEADER,
    columns.map((c) => [
      c.name,
      typeName(c.type),
      c.labels[locale],
      c.type.kind === 'enum' || c.type.kind === 'enums' ? c.type.options.map((o) => `${o.code}=${o.labels[locale]}`).join('; ') : null,
    ]),
  );
}
