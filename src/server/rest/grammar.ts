/**
 * PostgREST's request grammar, parsed without knowing any table: the query string (filters,
 * `or`/`and` trees, `select`, `order`, `limit`, `offset`, `columns`, `on_conflict`) and the
 * `Prefer`, `Range` and `Accept` headers. The rules follow PostgREST 12's parser
 * (src/PostgREST/ApiRequest/QueryParams.hs) so that requests built by PostgREST clients mean
 * the same here. What this layer does not offer (embedding, JSON paths, casts, full-text
 * search, range operators) is refused with a parse error rather than ignored.
 * Checking names and values against a collection is sql.ts's job.
 */
import { RestError, RestParseError } from './errors';

/** Operators that compare a column with one value. */
export const SIMPLE_OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'cs', 'cd', 'ov', 'isdistinct'] as const;
export type SimpleOperator = (typeof SIMPLE_OPERATORS)[number];

/** Operators that take the `(any)` / `(all)` modifier with a `{a,b}` list. */
export const QUANTIFIABLE_OPERATORS = ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch'] as const;
export type QuantifiableOperator = (typeof QUANTIFIABLE_OPERATORS)[number];
export type Quantifier = 'any' | 'all';

export type IsValue = 'null' | 'true' | 'false' | 'unknown';

export type Operation =
  | { op: SimpleOperator; value: string }
  | { op: QuantifiableOperator; quantifier: Quantifier; values: string[] }
  | { op: 'in'; values: string[] }
  | { op: 'is'; value: IsValue };

export interface Filter {
  column: string;
  negated: boolean;
  operation: Operation;
}

/** A where-clause tree: a filter, or `and`/`or` over conditions, each possibly negated. */
export type Condition =
  | { type: 'filter'; filter: Filter }
  | { type: 'logic'; operator: 'and' | 'or'; negated: boolean; conditions: Condition[] };

export type SelectItem = { type: 'star' } | { type: 'column'; column: string; alias?: string };

export interface OrderTerm {
  column: string;
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export interface ParsedQuery {
  /** Null when the request has no `select` (PostgREST's default `*`). */
  select: SelectItem[] | null;
  /** Conditions that must all hold: each filter parameter and each `and`/`or` parameter. */
  where: Condition[];
  order: OrderTerm[] | null;
  limit: number | null;
  offset: number | null;
  /** `columns=`: the body keys an insert uses. */
  columns: string[] | null;
  /** `on_conflict=`: the unique key an upsert targets. */
  onConflict: string[] | null;
}

// Operators PostgREST knows that have no column type here to apply to.
const UNSUPPORTED_OPERATORS = new Set(['sl', 'sr', 'nxr', 'nxl', 'adj', 'fts', 'plfts', 'phfts', 'wfts']);

/** Characters PostgREST allows in an unquoted field name (besides single dashes between them). */
const IDENTIFIER_CHAR = /[\p{L}\p{N}_ $]/u;

/**
 * A position in one parameter's text. Errors name the parameter, its text and the column,
 * as PostgREST's do: `"failed to parse filter (noop.1)" (line 1, column 6)`.
 */
class Cursor {
  pos = 0;
  constructor(
    readonly text: string,
    readonly what: string,
  ) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(length = 1): string {
    return this.text.slice(this.pos, this.pos + length);
  }

  startsWith(prefix: string): boolean {
    return this.text.startsWith(prefix, this.pos);
  }

  take(prefix: string): boolean {
    if (!this.startsWith(prefix)) return false;
    this.pos += prefix.length;
    return true;
  }

  expect(prefix: string, expecting: string): void {
    if (!this.take(prefix)) throw this.fail(`${this.unexpected()} expecting ${expecting}`);
  }

  skipSpaces(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos += 1;
  }

  unexpected(): string {
    return this.done ? 'unexpected end of input' : `unexpected "${this.peek()}"`;
  }

  fail(details: string, hint: string | null = null): RestParseError {
    return new RestParseError(`"failed to parse ${this.what} (${this.text})" (line 1, column ${this.pos + 1})`, details, hint);
  }

  /** The request is well formed but uses a PostgREST feature this layer does not offer. */
  unsupported(feature: string): RestParseError {
    return this.fail(`${feature} is not supported by this API`, 'Use plain column names, the filter operators and or/and.');
  }
}

/** `"..."` with backslash escapes, as in PostgREST's pQuotedValue. */
function parseQuoted(c: Cursor): string {
  c.expect('"', '"\\""');
  let value = '';
  for (;;) {
    if (c.done) throw c.fail('unexpected end of input expecting closing quote');
    const ch = c.peek();
    c.pos += 1;
    if (ch === '"') return value;
    if (ch === '\\') {
      if (c.done) throw c.fail('unexpected end of input after "\\"');
      value += c.peek();
      c.pos += 1;
    } else {
      value += ch;
    }
  }
}

/** A field name: quoted, or identifier characters joined by single dashes (not `->`). */
function parseFieldName(c: Cursor): string {
  if (c.peek() === '"') return parseQuoted(c);
  const segments: string[] = [];
  for (;;) {
    let segment = '';
    while (!c.done && IDENTIFIER_CHAR.test(c.peek())) {
      segment += c.peek();
      c.pos += 1;
    }
    if (segment.trim() === '') {
      throw c.fail(`${c.unexpected()} expecting field name (* or [a..z0..9_$])`);
    }
    segments.push(segment.trim());
    if (c.peek() === '-' && c.peek(2) !== '->') {
      c.pos += 1;
      continue;
    }
    return segments.join('-');
  }
}

/** A field reference: a field name; JSON paths (`->`, `->>`) are refused. */
function parseField(c: Cursor): string {
  c.skipSpaces();
  const name = parseFieldName(c);
  if (c.startsWith('->')) throw c.unsupported('A JSON path (-> or ->>)');
  c.skipSpaces();
  return name;
}

/** One element of `in.(…)`: quoted (then followed by `,` or `)`), or anything up to `,` or `)`. */
function parseListElement(c: Cursor): string {
  if (c.peek() === '"') {
    const saved = c.pos;
    const quoted = parseQuoted(c);
    c.skipSpaces();
    if (c.done || c.peek() === ',' || c.peek() === ')') return quoted;
    c.pos = saved; // a quote inside a bare value, as PostgREST reads it
  }
  let value = '';
  while (!c.done && c.peek() !== ',' && c.peek() !== ')') {
    value += c.peek();
    c.pos += 1;
  }
  return value;
}

/** `(a,b,"c,d")`. An empty list `()` matches nothing. */
function parseList(c: Cursor): string[] {
  c.skipSpaces();
  c.expect('(', '"("');
  c.skipSpaces();
  if (c.take(')')) {
    c.skipSpaces();
    return [];
  }
  const values = [parseListElement(c)];
  while (c.take(',')) values.push(parseListElement(c));
  c.expect(')', '"," or ")"');
  c.skipSpaces();
  return values;
}

/** `{a,b,"c,d"}`, the list of an `(any)`/`(all)` operator (a PostgreSQL array literal). */
function parseBraceList(c: Cursor): string[] {
  c.expect('{', '"{"');
  if (c.take('}')) return [];
  const values: string[] = [];
  for (;;) {
    if (c.peek() === '"') {
      values.push(parseQuoted(c));
    } else {
      let value = '';
      while (!c.done && c.peek() !== ',' && c.peek() !== '}') {
        value += c.peek();
        c.pos += 1;
      }
      values.push(value.trim());
    }
    if (c.take('}')) return values;
    c.expect(',', '"," or "}"');
  }
}

function parseIsValue(c: Cursor): IsValue {
  const match = /^[A-Za-z_]+/.exec(c.text.slice(c.pos));
  const word = match?.[0].toLowerCase();
  if (word === 'null' || word === 'true' || word === 'false' || word === 'unknown') {
    c.pos += word.length;
    return word;
  }
  throw c.fail(`${c.unexpected()} expecting null or trilean value (unknown, true, false)`);
}

/**
 * A value inside an `or`/`and` tree ends at `,` or `)`; to contain them it is quoted, or it is
 * a `{…}` array literal.
 */
function parseLogicValue(c: Cursor): string {
  if (c.peek() === '"') {
    const saved = c.pos;
    const quoted = parseQuoted(c);
    c.skipSpaces();
    if (c.done || c.peek() === ',' || c.peek() === ')') return quoted;
    c.pos = saved;
  }
  if (c.peek() === '{') {
    const end = c.text.indexOf('}', c.pos);
    const inner = end < 0 ? '' : c.text.slice(c.pos + 1, end);
    if (end >= 0 && !inner.includes('{')) {
      c.pos = end + 1;
      return `{${inner}}`;
    }
  }
  let value = '';
  while (!c.done && c.peek() !== ',' && c.peek() !== ')') {
    value += c.peek();
    c.pos += 1;
  }
  return value;
}

type ValueMode = 'single' | 'logic';

/** `[not.]op.value`: in a parameter the value is the rest of the text; in a tree it is delimited. */
function parseOpExpr(c: Cursor, mode: ValueMode): { negated: boolean; operation: Operation } {
  const negated = c.take('not.');
  if (c.take('in.')) return { negated, operation: { op: 'in', values: parseList(c) } };
  if (c.take('is.')) return { negated, operation: { op: 'is', value: parseIsValue(c) } };
  const dot = c.text.indexOf('.', c.pos);
  const name = dot < 0 ? '' : c.text.slice(c.pos, dot);
  // A comma before the next dot means the operator has no value (`or=(a.eq,b.eq.1)`).
  if (dot < 0 || name.includes(',')) throw c.fail(`${c.unexpected()} expecting operator (eq, gt, ...) followed by a delimiter (.)`);
  const quantified = /^([a-z]+)\((any|all)\)$/.exec(name);
  const base = quantified?.[1] ?? name.replace(/\(.*$/, '');
  if (UNSUPPORTED_OPERATORS.has(base)) throw c.unsupported(`The operator ${base}`);
  if (quantified) {
    const op = QUANTIFIABLE_OPERATORS.find((o) => o === quantified[1]);
    if (!op) throw c.fail(`unknown single value operator ${name}`);
    c.pos = dot + 1;
    return { negated, operation: { op, quantifier: quantified[2] as Quantifier, values: parseBraceList(c) } };
  }
  const op = SIMPLE_OPERATORS.find((o) => o === name);
  if (!op) throw c.fail(`unknown single value operator ${name}`, 'Operators: eq, neq, gt, gte, lt, lte, like, ilike, match, imatch, in, is, isdistinct, cs, cd, ov; prefix with not. to negate.');
  c.pos = dot + 1;
  if (mode === 'logic') return { negated, operation: { op, value: parseLogicValue(c) } };
  const value = c.text.slice(c.pos);
  c.pos = c.text.length;
  return { negated, operation: { op, value } };
}

function expectEnd(c: Cursor): void {
  if (!c.done) throw c.fail(`${c.unexpected()} expecting end of input`);
}

/** A filter parameter's value, e.g. `not.in.(1,2)` for `id=not.in.(1,2)`. */
export function parseFilter(column: string, value: string): Filter {
  const c = new Cursor(value, 'filter');
  const { negated, operation } = parseOpExpr(c, 'single');
  expectEnd(c);
  return { column, negated, operation };
}

const LOGIC_START = /^(not\.)?(and|or)[ \t]*\(/;

/** Deeper trees are refused: nobody writes them, and PostgreSQL's stack would give out first. */
export const MAX_LOGIC_DEPTH = 16;

function parseLogicTree(c: Cursor, depth = 1): Condition {
  c.skipSpaces();
  const start = LOGIC_START.exec(c.text.slice(c.pos));
  if (start) {
    if (depth > MAX_LOGIC_DEPTH) throw c.fail(`or/and nested more than ${MAX_LOGIC_DEPTH} levels deep`);
    c.pos += start[0].length;
    const conditions = [parseLogicTree(c, depth + 1)];
    for (;;) {
      c.skipSpaces();
      if (!c.take(',')) break;
      conditions.push(parseLogicTree(c, depth + 1));
    }
    c.expect(')', '"," or ")"');
    c.skipSpaces();
    return { type: 'logic', operator: start[2] as 'and' | 'or', negated: Boolean(start[1]), conditions };
  }
  const column = parseField(c);
  c.expect('.', 'delimiter (.)');
  const { negated, operation } = parseOpExpr(c, 'logic');
  c.skipSpaces();
  return { type: 'filter', filter: { column, negated, operation } };
}

/** An `or`/`and`/`not.or`/`not.and` parameter: `or=(a.eq.1,and(b.gt.2,c.is.null))`. */
export function parseLogicParam(key: 'and' | 'or' | 'not.and' | 'not.or', value: string): Condition {
  const c = new Cursor(`${key}${value}`, 'logic tree');
  if (!value.trimStart().startsWith('(')) {
    c.pos = key.length;
    throw c.fail(`${c.unexpected()} expecting "("`);
  }
  const tree = parseLogicTree(c);
  expectEnd(c);
  return tree;
}

/** `select=id,label:title,*`. Embedding, JSON paths and casts are refused. */
export function parseSelect(value: string): SelectItem[] {
  const c = new Cursor(value, 'select parameter');
  const items: SelectItem[] = [];
  do {
    c.skipSpaces();
    if (c.take('*')) {
      items.push({ type: 'star' });
    } else {
      if (c.startsWith('..')) throw c.unsupported('Spreading an embedded resource (..)');
      const first = parseFieldName(c);
      let alias: string | undefined;
      let column = first;
      if (c.peek() === ':' && c.peek(2) !== '::') {
        c.pos += 1;
        alias = first;
        column = parseFieldName(c);
      }
      if (c.startsWith('->')) throw c.unsupported('A JSON path (-> or ->>)');
      if (c.startsWith('::')) throw c.unsupported('A cast (::)');
      if (c.peek() === '(' || c.peek() === '!') throw c.unsupported('Embedding a related resource');
      items.push(alias === undefined ? { type: 'column', column } : { type: 'column', column, alias });
    }
    c.skipSpaces();
    if (!c.done && c.peek() !== ',') throw c.fail(`${c.unexpected()} expecting "," or end of input`);
  } while (c.take(','));
  return items;
}

/** `order=created_at.desc.nullslast,id`. */
export function parseOrder(value: string): OrderTerm[] {
  const c = new Cursor(value, 'order');
  const terms: OrderTerm[] = [];
  do {
    const column = parseField(c);
    if (c.peek() === '(') throw c.unsupported('Ordering by a related resource');
    const term: OrderTerm = { column };
    if (c.take('.asc')) term.direction = 'asc';
    else if (c.take('.desc')) term.direction = 'desc';
    if (c.take('.nullsfirst')) term.nulls = 'first';
    else if (c.take('.nullslast')) term.nulls = 'last';
    c.skipSpaces();
    if (!c.done && c.peek() !== ',') {
      const expecting = term.nulls ? '"," or end of input' : term.direction ? '"nullsfirst" or "nullslast"' : '"asc", "desc", "nullsfirst" or "nullslast"';
      if (c.peek() === '.') c.pos += 1;
      throw c.fail(`${c.unexpected()} expecting ${expecting}`);
    }
    terms.push(term);
  } while (c.take(','));
  return terms;
}

/** `columns="a","b"` and `on_conflict=a,b`: a list of field names. */
export function parseColumnList(value: string, what: string): string[] {
  const c = new Cursor(value, what);
  const names: string[] = [];
  do {
    names.push(parseField(c));
  } while (c.take(','));
  expectEnd(c);
  return names;
}

function parseCount(value: string, what: 'limit' | 'offset'): number {
  const number = /^\d{1,15}$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) {
    throw new RestParseError(`"failed to parse ${what} parameter (${value})"`, `${what} must be a whole number of 0 or more`);
  }
  return number;
}

type LogicKey = 'and' | 'or' | 'not.and' | 'not.or';
const LOGIC_KEYS = new Set<string>(['and', 'or', 'not.and', 'not.or']);
const SINGLE_PARAMS = new Set(['select', 'order', 'limit', 'offset', 'columns', 'on_conflict']);

/** The column a filter parameter's key names; embedded paths (`a.b`) and JSON paths are refused. */
function parseFilterKey(key: string): string {
  const c = new Cursor(key, 'tree path');
  const column = parseFieldName(c);
  if (c.startsWith('->')) throw c.unsupported('A JSON path (-> or ->>)');
  if (c.peek() === '.') throw c.unsupported('Filtering, ordering or limiting an embedded resource');
  expectEnd(c);
  return column;
}

/**
 * Parses a raw query string (`a=eq.1&or=(b.is.null,c.gt.2)&order=a.desc&limit=10`). `+` is a
 * space and `%xx` is decoded, as in any form-encoded query.
 */
export function parseQuery(search: string): ParsedQuery {
  const query: ParsedQuery = { select: null, where: [], order: null, limit: null, offset: null, columns: null, onConflict: null };
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(search)) {
    if (SINGLE_PARAMS.has(key)) {
      if (seen.has(key)) throw new RestParseError(`"failed to parse ${key} parameter (${value})"`, `the ${key} parameter is given more than once`);
      seen.add(key);
    }
    switch (key) {
      case 'select':
        query.select = parseSelect(value);
        break;
      case 'order':
        query.order = parseOrder(value);
        break;
      case 'limit':
        query.limit = parseCount(value, 'limit');
        break;
      case 'offset':
        query.offset = parseCount(value, 'offset');
        break;
      case 'columns':
        query.columns = parseColumnList(value, 'columns parameter');
        break;
      case 'on_conflict':
        query.onConflict = parseColumnList(value, 'on_conflict parameter');
        break;
      default:
        if (LOGIC_KEYS.has(key)) query.where.push(parseLogicParam(key as LogicKey, value));
        else query.where.push({ type: 'filter', filter: parseFilter(parseFilterKey(key), value) });
    }
  }
  return query;
}

export interface Preferences {
  return?: 'representation' | 'minimal' | 'headers-only';
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  count?: 'exact' | 'planned' | 'estimated';
  missing?: 'default' | 'null';
  /** `handling=strict`: an invalid preference is an error (PGRST122) and `max-affected` applies. */
  handling?: 'strict' | 'lenient';
  /** `max-affected=N` (with `handling=strict`): more affected rows fail and roll back (PGRST124). */
  maxAffected?: number;
  /** Preferences that were not understood, named for the strict error. */
  invalid?: string[];
}

const PREFERENCE_VALUES: { [K in 'return' | 'resolution' | 'count' | 'missing']-?: readonly NonNullable<Preferences[K]>[] } = {
  return: ['representation', 'minimal', 'headers-only'],
  resolution: ['merge-duplicates', 'ignore-duplicates'],
  count: ['exact', 'planned', 'estimated'],
  missing: ['default', 'null'],
};

/**
 * `Prefer: resolution=merge-duplicates, return=representation`, possibly over several headers.
 * Unknown or invalid preferences are ignored, as PostgREST does without `handling=strict`.
 */
export function parsePrefer(header: string | string[] | undefined): Preferences {
  const preferences: Record<string, string> = {};
  const extra: Pick<Preferences, 'handling' | 'maxAffected' | 'invalid'> = {};
  const invalid: string[] = [];
  const parts = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',');
  for (const part of parts) {
    if (part.trim() === '') continue;
    const [name = '', value = ''] = part.split('=').map((s) => s.trim());
    const allowed = (PREFERENCE_VALUES as Record<string, readonly string[]>)[name];
    if (allowed?.includes(value)) {
      if (!(name in preferences)) preferences[name] = value;
    } else if (name === 'handling' && (value === 'strict' || value === 'lenient')) {
      extra.handling ??= value;
    } else if (name === 'max-affected' && /^\d{1,9}$/.test(value)) {
      extra.maxAffected ??= Number(value);
    } else if (name !== 'tx' && name !== 'timezone') {
      invalid.push(part.trim());
    }
  }
  if (extra.handling) Object.assign(preferences, { handling: extra.handling });
  if (extra.maxAffected !== undefined) Object.assign(preferences, { maxAffected: extra.maxAffected });
  if (invalid.length > 0 && extra.handling === 'strict') Object.assign(preferences, { invalid });
  return preferences as Preferences;
}

/** PostgREST's strict handling: invalid preferences are refused before anything runs. */
export function checkStrictPreferences(prefer: Preferences): void {
  if (prefer.handling === 'strict' && prefer.invalid?.length) {
    throw new RestError(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${prefer.invalid.join(', ')}`);
  }
}

/** `Preference-Applied`: the preferences this request honoured, in PostgREST's spelling. */
export function appliedPreferences(prefer: Preferences, honoured: readonly ('return' | 'resolution' | 'count' | 'missing' | 'handling' | 'maxAffected')[]): string | null {
  const parts: string[] = [];
  for (const key of honoured) {
    const value = prefer[key];
    if (value === undefined) continue;
    parts.push(key === 'maxAffected' ? `max-affected=${String(value)}` : `${key}=${String(value)}`);
  }
  return parts.length > 0 ? parts.join(', ') : null;
}

export interface RequestedRange {
  from: number;
  /** Inclusive; null for an open range (`10-`). */
  to: number | null;
}

/** `Range: 0-24` (optionally `items=0-24`). Malformed ranges are ignored, as in PostgREST. */
export function parseRangeHeader(header: string | undefined): RequestedRange | null {
  const match = /^\s*(?:items=)?(\d{1,15})-(\d{0,15})\s*$/.exec(header ?? '');
  if (!match) return null;
  const from = Number(match[1]);
  const to = match[2] ? Number(match[2]) : null;
  if (to !== null && to < from) throw new RestError(416, 'PGRST103', 'Requested range not satisfiable', `The range ${from}-${to} is empty.`);
  return { from, to };
}

/** The rows to return: `offset` and `limit` narrowed by a Range header and a collection's row cap. */
export interface Window {
  offset: number;
  limit: number | null;
}

export function resolveWindow(query: Pick<ParsedQuery, 'limit' | 'offset'>, range: RequestedRange | null, maxRows?: number): Window {
  let from = query.offset ?? 0;
  let to = query.limit === null ? Infinity : from + query.limit - 1;
  if (range) {
    from = Math.max(from, range.from);
    to = Math.min(to, range.to ?? Infinity);
  }
  let limit = to === Infinity ? null : Math.max(0, to - from + 1);
  if (maxRows !== undefined) limit = Math.min(limit ?? maxRows, maxRows);
  return { offset: from, limit };
}

export interface MediaChoice {
  /** `application/vnd.pgrst.object+json`: one object instead of an array. */
  singular: boolean;
  /** `;nulls=stripped`: leave out keys whose value is null. */
  stripNulls: boolean;
}

/**
 * Picks the response format from `Accept`: JSON arrays, or PostgREST's single object. Formats
 * PostgREST offers and this layer does not (CSV, GeoJSON, plans) get 406 PGRST107.
 */
export function negotiateMedia(accept: string | undefined): MediaChoice {
  if (!accept || !accept.trim()) return { singular: false, stripNulls: false };
  const offered = accept.split(',').map((part) => part.trim()).filter(Boolean);
  for (const entry of offered) {
    const [type = '', ...params] = entry.split(';').map((s) => s.trim().toLowerCase());
    const stripNulls = params.includes('nulls=stripped');
    if (type === 'application/vnd.pgrst.object+json' || type === 'application/vnd.pgrst.object') return { singular: true, stripNulls };
    if (['application/json', 'application/vnd.pgrst.array+json', 'application/*', '*/*'].includes(type)) return { singular: false, stripNulls };
  }
  throw new RestError(406, 'PGRST107', `None of these media types are available: ${offered.join(', ')}`, null, 'This API answers with application/json or application/vnd.pgrst.object+json.');
}
