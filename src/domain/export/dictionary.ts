/**
 * One data dictionary for every research file (issue 33): questionnaires, interview reports and
 * follow-up reports describe their columns as the same `Variable`s, so the codebook has one
 * shape and the statistics syntax (syntax.ts) is written once.
 *
 * The codebook is one rectangular CSV table in long form: a variable row (value empty) that
 * states name, source, kind, type, label, range, what an empty cell means and how the value is
 * derived; then one row per value label (variable, value, value_label), so choices are data a
 * program reads, not text joined by `;` or `|`. Empty is the only missing-value code: a value
 * that cannot be determined (a flag whose answers are missing) is empty, never 0.
 * See docs/decisions/standard-exports.md.
 */
import type { Locale } from '../locales';
import { toCsv, type Cell } from '../instruments/export';

/** How a column's values are written. `codes` is several option codes joined by `;`. */
export type VariableType = 'uuid' | 'code' | 'datetime' | 'boolean' | 'number' | 'integer' | 'codes' | 'text' | 'date';

export interface ValueLabel {
  readonly value: string | number;
  readonly label: string;
}

export interface Variable {
  readonly name: string;
  /** What the column describes: record, case, score, subscale, flag, diagnosis, item, field. */
  readonly kind: string;
  readonly type: VariableType;
  readonly label: string;
  readonly values: readonly ValueLabel[];
  readonly min?: number | null;
  readonly max?: number | null;
  /** Longest text (text columns), so syntax files can size string variables. */
  readonly maxLength?: number | null;
  /** What an empty cell means for this column. */
  readonly missing: string;
  /** How the value is computed from others; empty for values entered as they are. */
  readonly derivation: string;
  readonly required: boolean | null;
  readonly shownIf: string;
}

/** A file's dictionary: the source (instrument code or report), its title and version in a locale. */
export interface Dataset {
  readonly source: string;
  readonly title: string;
  readonly version: string;
  readonly locale: Locale;
  readonly variables: readonly Variable[];
}

export const CODEBOOK_COLUMNS = ['variable', 'source', 'kind', 'type', 'label', 'value', 'value_label', 'min', 'max', 'missing', 'derivation', 'required', 'shown_if', 'source_title', 'source_version'] as const;

const bit = (value: boolean | null): Cell => (value === true ? 1 : value === false ? 0 : null);

/** Variable rows, each followed by its value-label rows, in the file's column order. */
export function codebookTable(dataset: Dataset): Cell[][] {
  const rows: Cell[][] = [];
  for (const v of dataset.variables) {
    rows.push([v.name, dataset.source, v.kind, v.type, v.label, null, null, v.min ?? null, v.max ?? null, v.missing, v.derivation, bit(v.required), v.shownIf, dataset.title, dataset.version]);
    for (const value of v.values) rows.push([v.name, dataset.source, null, null, null, value.value, value.label, null, null, null, null, null, null, null, null]);
  }
  return rows;
}

export function codebookFile(dataset: Dataset): string {
  return toCsv(CODEBOOK_COLUMNS, codebookTable(dataset));
}

/** The project's words for missing values and types, per locale. */
export const MISSING = {
  notAnswered: { en: 'empty = not answered, or not shown', de: 'leer = nicht beantwortet oder nicht angezeigt', ar: 'فارغ = لم تتم الإجابة أو لم يُعرض' },
  notComputed: { en: 'empty = not computed (answers it needs are missing)', de: 'leer = nicht berechnet (benötigte Antworten fehlen)', ar: 'فارغ = لم يُحسب (إجابات لازمة ناقصة)' },
  undetermined: { en: 'empty = cannot be determined (answers it reads are missing); never 0', de: 'leer = nicht bestimmbar (gelesene Antworten fehlen); nie 0', ar: 'فارغ = لا يمكن تحديده (إجابات لازمة ناقصة)؛ وليس 0 أبداً' },
  notRandomized: { en: 'empty = not randomized', de: 'leer = nicht randomisiert', ar: 'فارغ = لم يُوزع عشوائياً' },
  never: { en: 'never empty', de: 'nie leer', ar: 'لا يكون فارغاً' },
  notRecorded: { en: 'empty = not recorded', de: 'leer = nicht erfasst', ar: 'فارغ = غير مسجل' },
} satisfies Record<string, Record<Locale, string>>;
