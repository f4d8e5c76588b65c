/**
 * Camunda 7 query parameters and answers: reading `?assignee=…&dueBefore=…&sortBy=…` into
 * checked values (a bad one is a 400 InvalidRequestException naming it, as Camunda does), a
 * small WHERE builder with bind parameters, and Camunda's date format
 * (`yyyy-MM-dd'T'HH:mm:ss.SSSZ`, e.g. 2026-01-31T10:00:00.000+0000).
 */
import { invalidRequest } from './errors';

/** The most rows one list answers; more is refused with Camunda's message for its result limit. */
export const MAX_RESULTS = 2000;

/**
 * An ISO-8601 date-time with an offset: Camunda's `+0200`/`+0000`, or `+02:00`, or `Z`.
 * Without an offset it would be ambiguous, so it is refused. Undefined when not a date.
 */
export function parseOffsetDate(text: string): Date | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(Z|[+-]\d{2}:?\d{2})$/.exec(text);
  if (!match) return undefined;
  const [, day, time, zone] = match as unknown as [string, string, string, string];
  const offset = zone === 'Z' ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  const date = new Date(`${day}T${time}${offset}`);
  if (Number.isNaN(date.getTime())) return undefined;
  // Refuse impossible calendar dates that Date would roll over (2026-02-30).
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const check = new Date(Date.UTC(y, m - 1, d));
  if (check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d) return undefined;
  return date;
}

/** Camunda's answer format for dates; null stays null. */
export function camundaDate(value: Date | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const date = value instanceof Date ? value : new Date(value);
  return date.toISOString().replace('Z', '+0000');
}

type Raw = Record<string, unknown>;

/** Reads a query string the way Camunda's REST API does. Unknown parameters are ignored, as there. */
export class QueryParams {
  constructor(private readonly raw: Raw) {}

  private cannot(name: string, value: unknown, why?: string): never {
    throw invalidRequest(`Cannot set query parameter '${name}' to value '${String(value)}'${why ? `: ${why}` : ''}`);
  }

  string(name: string): string | undefined {
    const value = this.raw[name];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) this.cannot(name, value.join(','), 'give it once');
    if (typeof value !== 'string') this.cannot(name, value);
    return value;
  }

  /** A comma-separated list (Camunda's `…In` parameters). */
  list(name: string): string[] | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    return value.split(',').map((v) => v.trim()).filter(Boolean);
  }

  boolean(name: string): boolean | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (value === 'true') return true;
    if (value === 'false') return false;
    return this.cannot(name, value, 'use true or false');
  }

  integer(name: string, min = 0): number | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    if (!/^-?\d{1,9}$/.test(value) || Number(value) < min) this.cannot(name, value, `use a whole number of at least ${min}`);
    return Number(value);
  }

  date(name: string): Date | undefined {
    const value = this.string(name);
    if (value === undefined) return undefined;
    return parseOffsetDate(value) ?? this.cannot(name, value, "use a date like 2026-01-31T10:00:00.000+0000 (yyyy-MM-dd'T'HH:mm:ss.SSSZ)");
  }

  /** firstResult and maxResults: an offset and a limit of at most MAX_RESULTS. */
  page(): { offset: number; limit: number } {
    const offset = this.integer('firstResult') ?? 0;
    const limit = this.integer('maxResults') ?? MAX_RESULTS;
    if (limit > MAX_RESULTS) throw invalidRequest(`Max results limit of ${MAX_RESULTS} exceeded!`);
    return { offset, limit };
  }

  /** sortBy and sortOrder come together; sortBy is one of `columns`' keys. */
  sort(columns: Record<string, string>, fallback: string): string {
    const by = this.string('sortBy');
    const order = this.string('sortOrder');
    if ((by === undefined) !== (order === undefined)) {
      throw invalidRequest('Only a single sorting parameter specified. sortBy and sortOrder required');
    }
    if (by === undefined || order === undefined) return fallback;
    const column = columns[by];
    if (!column) this.cannot('sortBy', by, `use one of ${Object.keys(columns).join(', ')}`);
    if (order !== 'asc' && order !== 'desc') this.cannot('sortOrder', order, 'use asc or desc');
    return `${column} ${order} nulls last, ${fallback}`;
  }
}

/** A WHERE clause built from checked values, each a bind parameter. */
export class Where {
  readonly conditions: string[] = [];
  readonly values: unknown[] = [];

  /** Adds `sql` with `$` standing for the next parameter, when the value is given. */
  add(sql: string, value: unknown): this {
    if (value === undefined) return this;
    this.values.push(value);
    this.conditions.push(sql.replaceAll('$', `$${this.values.length}`));
    return this;
  }

  /** Adds a condition without a value, when `on` holds. */
  when(on: boolean | undefined, sql: string): this {
    if (on) this.conditions.push(sql);
    return this;
  }

  get sql(): string {
    return this.conditions.length ? `where ${this.conditions.join(' and ')}` : '';
  }

  /** The next parameter's placeholder (for limit and offset after the conditions). */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
