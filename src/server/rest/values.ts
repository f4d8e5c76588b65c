/**
 * Values checked against their column's type before they reach the database, so a bad value
 * is a 400 naming the column rather than a failed query. Messages and codes are PostgreSQL's
 * own (22P02 invalid text representation, 22003 out of range), which is what a PostgREST
 * client would see from PostgREST. Dates and times are left for PostgreSQL to read (its
 * formats are many); their errors are class 22 and map to 400 as well.
 */
import { RestError } from './errors';
import type { ColumnType } from './registry';

/** PostgreSQL's names for the types, as they appear in its error messages. */
const PG_TYPE_NAMES: Record<ColumnType, string> = {
  uuid: 'uuid',
  text: 'text',
  int: 'bigint',
  numeric: 'numeric',
  bool: 'boolean',
  timestamptz: 'timestamp with time zone',
  date: 'date',
  jsonb: 'json',
  'text[]': 'text[]',
};

function invalid(type: ColumnType, value: string, column: string): RestError {
  return new RestError(400, '22P02', `invalid input syntax for type ${PG_TYPE_NAMES[type]}: "${value}"`, `The value for "${column}" is not a valid ${PG_TYPE_NAMES[type]}.`);
}

const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
const NUMERIC_SPECIAL = /^[+-]?(nan|infinity|inf)$/i;
// PostgreSQL's boolean input: these words and any unique prefix of them, in any case.
const TRUE_WORDS = ['true', 'yes', 'on', '1', 't', 'y'];
const FALSE_WORDS = ['false', 'no', 'off', '0', 'f', 'n'];

/** A uuid in any form PostgreSQL reads (braces, no dashes), in canonical form. */
export function canonicalUuid(text: string): string | null {
  const trimmed = text.trim();
  const inner = trimmed.startsWith('{') && trimmed.endsWith('}') ? trimmed.slice(1, -1) : trimmed;
  if (!/^[0-9a-f]{4}(-?[0-9a-f]{4}){7}$/i.test(inner)) return null;
  const hex = inner.replaceAll('-', '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

function checkInt(text: string, column: string): string {
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) throw invalid('int', text, column);
  const value = BigInt(trimmed);
  if (value < INT8_MIN || value > INT8_MAX) {
    throw new RestError(400, '22003', `value "${text}" is out of range for type bigint`, `The value for "${column}" is too large.`);
  }
  return value.toString();
}

function checkBool(text: string, column: string): boolean {
  const word = text.trim().toLowerCase();
  if (word && TRUE_WORDS.some((w) => w.startsWith(word)) && !FALSE_WORDS.some((w) => w.startsWith(word))) return true;
  if (word && FALSE_WORDS.some((w) => w.startsWith(word)) && !TRUE_WORDS.some((w) => w.startsWith(word))) return false;
  throw invalid('bool', text, column);
}

/**
 * A value from the query string (`id=eq.<value>`, an `in` list element), checked for the column's
 * type. Returns what to bind: PostgreSQL infers the parameter's type from the column.
 */
export function filterValue(type: ColumnType, text: string, column: string): string | boolean {
  switch (type) {
    case 'uuid': {
      const uuid = canonicalUuid(text);
      if (uuid === null) throw invalid(type, text, column);
      return uuid;
    }
    case 'int':
      return checkInt(text, column);
    case 'numeric':
      if (!NUMERIC.test(text.trim()) && !NUMERIC_SPECIAL.test(text.trim())) throw invalid(type, text, column);
      return text.trim();
    case 'bool':
      return checkBool(text, column);
    case 'jsonb':
      try {
        JSON.parse(text);
      } catch {
        throw invalid(type, text, column);
      }
      return text;
    case 'text[]':
      if (!/^\s*\{.*\}\s*$/s.test(text)) {
        throw new RestError(400, '22P02', `malformed array literal: "${text}"`, `The value for "${column}" must be an array literal such as {a,b}.`, 'Array values are written {a,b}.');
      }
      return text;
    case 'text':
    case 'timestamptz':
    case 'date':
      return text;
  }
}

function wrongJsonType(type: ColumnType, value: unknown, column: string): RestError {
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  return new RestError(400, '22P02', `invalid input syntax for type ${PG_TYPE_NAMES[type]}: "${shown}"`, `The value for "${column}" must be a ${describeType(type)}.`);
}

function describeType(type: ColumnType): string {
  switch (type) {
    case 'uuid':
      return 'uuid string';
    case 'text':
      return 'string';
    case 'int':
      return 'whole number';
    case 'numeric':
      return 'number';
    case 'bool':
      return 'boolean (true or false)';
    case 'timestamptz':
      return 'timestamp string (ISO 8601)';
    case 'date':
      return 'date string (YYYY-MM-DD)';
    case 'jsonb':
      return 'JSON value';
    case 'text[]':
      return 'array of strings';
  }
}

/**
 * A value from a JSON request body, checked for the column's type and normalised (uuids in
 * canonical form, whole numbers as numbers), so that write hooks see clean values. Null is
 * always accepted here; NOT NULL is the database's rule.
 */
export function bodyValue(type: ColumnType, value: unknown, column: string): unknown {
  if (value === null) return null;
  switch (type) {
    case 'uuid': {
      const uuid = typeof value === 'string' ? canonicalUuid(value) : null;
      if (uuid === null) throw wrongJsonType(type, value, column);
      return uuid;
    }
    case 'text':
    case 'timestamptz':
    case 'date':
      if (typeof value !== 'string') throw wrongJsonType(type, value, column);
      return value;
    case 'int': {
      if (typeof value === 'number') {
        if (!Number.isSafeInteger(value)) throw wrongJsonType(type, value, column);
        return value;
      }
      if (typeof value !== 'string') throw wrongJsonType(type, value, column);
      const checked = checkInt(value, column);
      const asNumber = Number(checked);
      return Number.isSafeInteger(asNumber) ? asNumber : checked;
    }
    case 'numeric':
      if (typeof value === 'number' && Number.isFinite(value)) return value;
      if (typeof value === 'string' && NUMERIC.test(value.trim())) return value.trim();
      throw wrongJsonType(type, value, column);
    case 'bool':
      if (typeof value !== 'boolean') throw wrongJsonType(type, value, column);
      return value;
    case 'jsonb':
      return value;
    case 'text[]':
      if (!Array.isArray(value) || !value.every((v) => v === null || typeof v === 'string')) throw wrongJsonType(type, value, column);
      return value;
  }
}

/** The bind parameter for a (checked) row value: JSON columns are sent as JSON text. */
export function toParameter(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'jsonb') return JSON.stringify(value);
  if (type === 'numeric' && typeof value === 'number') return String(value);
  return value;
}
