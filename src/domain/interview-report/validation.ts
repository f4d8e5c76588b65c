/**
 * Checks report values against the one definition (definition.ts): each field must carry a
 * value of its type, inside its range or list. Drafts may leave anything empty; finalize adds
 * the completeness rules of the result (finalizeProblems in decision.ts).
 */
import type { FieldType } from './definition';
import { FIELD_BY_ID, FEEDBACK_FIELDS } from './definition';

export type ReportValue = boolean | number | string | readonly string[] | null;
export type ReportValues = Readonly<Record<string, ReportValue | undefined>>;

export interface ReportFieldError {
  readonly field: string;
  readonly code: 'unknown_field' | 'not_writable' | 'wrong_type' | 'out_of_range' | 'unknown_option' | 'too_long' | 'bad_date' | 'duplicate';
  readonly message: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isIsoDate(value: unknown): value is string {
  if (typeof value !== 'string' || !DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** One value against its field type; `null` (empty) always fits. */
export function valueProblem(id: string, type: FieldType, value: unknown): ReportFieldError | undefined {
  if (value === null) return undefined;
  const wrong = (expected: string): ReportFieldError => ({ field: id, code: 'wrong_type', message: `${id} must be ${expected}.` });
  switch (type.kind) {
    case 'bool':
      return typeof value === 'boolean' ? undefined : wrong('true, false or null');
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value)) return wrong('a whole number or null');
      return value < type.min || value > type.max ? { field: id, code: 'out_of_range', message: `${id} must be between ${type.min} and ${type.max}.` } : undefined;
    case 'text':
      if (typeof value !== 'string') return wrong('text or null');
      return [...value].length > type.maxLength ? { field: id, code: 'too_long', message: `${id} may hold at most ${type.maxLength} characters.` } : undefined;
    case 'date':
      return isIsoDate(value) ? undefined : { field: id, code: 'bad_date', message: `${id} must be a date written YYYY-MM-DD.` };
    case 'enum': {
      if (typeof value !== 'string') return wrong('one of the listed codes or null');
      const codes = type.options.map((o) => o.code);
      return codes.includes(value) ? undefined : { field: id, code: 'unknown_option', message: `${id} must be one of ${codes.join(', ')}; "${value}" is not.` };
    }
    case 'enums': {
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return wrong('a list of the listed codes or null');
      const codes = type.options.map((o) => o.code);
      const unknown = (value as string[]).find((v) => !codes.includes(v));
      if (unknown !== undefined) return { field: id, code: 'unknown_option', message: `${id} must list only ${codes.join(', ')}; "${unknown}" is not one of them.` };
      return new Set(value).size === value.length ? undefined : { field: id, code: 'duplicate', message: `${id} lists a code twice.` };
    }
  }
}

/** Problems of report values a request sends; derived fields are computed by the server. */
export function validateReportValues(values: Readonly<Record<string, unknown>>): ReportFieldError[] {
  const problems: ReportFieldError[] = [];
  for (const [id, value] of Object.entries(values)) {
    const field = FIELD_BY_ID.get(id);
    if (!field) {
      problems.push({ field: id, code: 'unknown_field', message: `The report has no field "${id}".` });
      continue;
    }
    if (field.derived) {
      problems.push({ field: id, code: 'not_writable', message: `${id} is computed by the server from the items; do not send it.` });
      continue;
    }
    const problem = valueProblem(id, field.type, value ?? null);
    if (problem) problems.push(problem);
  }
  return problems;
}

const FEEDBACK_BY_ID = new Map(FEEDBACK_FIELDS.map((f) => [f.id, f]));

export function validateFeedbackValues(values: Readonly<Record<string, unknown>>): ReportFieldError[] {
  const problems: ReportFieldError[] = [];
  for (const [id, value] of Object.entries(values)) {
    const field = FEEDBACK_BY_ID.get(id);
    if (!field) {
      problems.push({ field: id, code: 'unknown_field', message: `The feedback report has no field "${id}".` });
      continue;
    }
    const problem = valueProblem(id, field.type, value ?? null);
    if (problem) problems.push(problem);
  }
  return problems;
}
