/**
 * SQL for the REST collections, built from a parsed request and a registry entry. Pure: each
 * builder returns text and parameters. Table and column names come from the registry (every
 * name a request uses is looked up there first); every value is a bind parameter, and
 * PostgreSQL infers its type from the column it is compared with or written to, so enum and
 * citext columns work as their own types.
 *
 * Result rows are turned into JSON by PostgreSQL (`json_agg`), as PostgREST does: numbers,
 * timestamps and JSON columns come out exactly as PostgREST would print them, and the text is
 * sent to the client as it is.
 */
import { RestError, RestParseError, undefinedColumn } from './errors';
import type { Condition, Filter, Operation, OrderTerm, SelectItem, Window } from './grammar';
import { preparedStatementName, type Statement } from '../db/transaction';
import { quoteIdent, type ColumnType, type CompiledCollection, type Row, type WritePlan } from './registry';
import { filterValue, toParameter } from './values';

export interface SqlQuery {
  text: string;
  values: unknown[];
}

/** Collects bind parameters and hands out their placeholders. */
export class Params {
  readonly values: unknown[] = [];

  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

interface ColumnRef {
  name: string;
  type: ColumnType;
  sql: string;
}

/** The registry's column, or a 400 in PostgreSQL's words for a name it does not have. */
export function columnRef(collection: CompiledCollection, name: string): ColumnRef {
  const type = Object.hasOwn(collection.columns, name) ? collection.columns[name] : undefined;
  if (type === undefined) throw undefinedColumn(collection.name, name);
  return { name, type, sql: quoteIdent(name) };
}

const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
const PATTERNS = { like: 'like', ilike: 'ilike', match: '~', imatch: '~*' } as const;
const CONTAINMENT = { cs: '@>', cd: '<@', ov: '&&' } as const;

function operatorError(operator: string, column: ColumnRef, allowed: string): RestParseError {
  return new RestParseError(`operator ${operator} does not apply to column ${column.name} (${column.type})`, `${operator} applies to ${allowed} columns.`);
}

/** Pattern operators compare text; other types are compared through their text form. */
function asText(column: ColumnRef): string {
  return column.type === 'text' ? column.sql : `${column.sql}::text`;
}

/** `like`/`ilike` use `*` as the wildcard, since `%` is awkward in URLs. */
function pattern(op: keyof typeof PATTERNS, value: string): string {
  return op === 'like' || op === 'ilike' ? value.replaceAll('*', '%') : value;
}

function operationSql(column: ColumnRef, operation: Operation, params: Params): string {
  if ('quantifier' in operation) {
    const { op, quantifier, values } = operation;
    if (op in PATTERNS) {
      const patternOp = op as keyof typeof PATTERNS;
      return `${asText(column)} ${PATTERNS[patternOp]} ${quantifier}(${params.add(values.map((v) => pattern(patternOp, v)))})`;
    }
    const checked = values.map((v) => filterValue(column.type, v, column.name));
    return `${column.sql} ${COMPARISONS[op as keyof typeof COMPARISONS]} ${quantifier}(${params.add(checked)})`;
  }
  switch (operation.op) {
    case 'is':
      if (operation.value === 'null') return `${column.sql} is null`;
      if (column.type !== 'bool') throw operatorError(`is.${operation.value}`, column, 'boolean');
      return `${column.sql} is ${operation.value}`;
    case 'in': {
      // An empty list matches nothing (and `not.in.()` everything).
      if (operation.values.length === 0) return 'false';
      const checked = operation.values.map((v) => filterValue(column.type, v, column.name));
      return `${column.sql} = any(${params.add(checked)})`;
    }
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return `${column.sql} ${COMPARISONS[operation.op]} ${params.add(filterValue(column.type, operation.value, column.name))}`;
    case 'isdistinct':
      return `${column.sql} is distinct from ${params.add(filterValue(column.type, operation.value, column.name))}`;
    case 'like':
    case 'ilike':
    case 'match':
    case 'imatch':
      return `${asText(column)} ${PATTERNS[operation.op]} ${params.add(pattern(operation.op, operation.value))}`;
    case 'cs':
    case 'cd':
    case 'ov': {
      const allowed = operation.op === 'ov' ? ['text[]'] : ['text[]', 'jsonb'];
      if (!allowed.includes(column.type)) throw operatorError(operation.op, column, allowed.join(' or '));
      return `${column.sql} ${CONTAINMENT[operation.op]} ${params.add(filterValue(column.type, operation.value, column.name))}`;
    }
  }
}

function filterSql(collection: CompiledCollection, filter: Filter, params: Params): string {
  const sql = operationSql(columnRef(collection, filter.column), filter.operation, params);
  return filter.negated ? `not (${sql})` : sql;
}

function conditionSql(collection: CompiledCollection, condition: Condition, params: Params): string {
  if (condition.type === 'filter') return filterSql(collection, condition.filter, params);
  const parts = condition.conditions.map((c) => conditionSql(collection, c, params));
  const joined = `(${parts.join(` ${condition.operator} `)})`;
  return condition.negated ? `not ${joined}` : joined;
}

/** The where clause for all conditions (they must all hold); `true` when there are none. */
export function whereSql(collection: CompiledCollection, conditions: readonly Condition[], params: Params): string {
  if (conditions.length === 0) return 'true';
  return conditions.map((c) => conditionSql(collection, c, params)).join(' and ');
}

/** Output aliases become quoted identifiers, so they are held to plain names. */
const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** The select list: `*` is the registry's columns, never the table's (which may hold more). */
export function selectListSql(collection: CompiledCollection, items: readonly SelectItem[] | null): string {
  const parts: string[] = [];
  for (const item of items ?? [{ type: 'star' } as const]) {
    if (item.type === 'star') {
      parts.push(...collection.columnNames.map(quoteIdent));
      continue;
    }
    const column = columnRef(collection, item.column);
    if (item.alias === undefined) {
      parts.push(column.sql);
    } else {
      if (!ALIAS.test(item.alias)) {
        throw new RestParseError(`"failed to parse select parameter (${item.alias}:${item.column})"`, 'an alias must be letters, digits and underscores, starting with a letter');
      }
      parts.push(`${column.sql} as ${quoteIdent(item.alias)}`);
    }
  }
  return parts.join(', ');
}

export function orderSql(collection: CompiledCollection, terms: readonly OrderTerm[] | null): string {
  const effective = terms ?? collection.defaultOrder?.map((o) => ({ column: o.column, direction: o.dir, nulls: o.nulls })) ?? [];
  if (effective.length === 0) return '';
  const parts = effective.map((term) => {
    const column = columnRef(collection, term.column);
    return `${column.sql} ${term.direction ?? 'asc'}${term.nulls ? ` nulls ${term.nulls}` : ''}`;
  });
  return ` order by ${parts.join(', ')}`;
}

/** Wraps a row source so PostgreSQL returns `{body: json text, n: row count}`. */
function aggregate(source: string, alias: string, stripNulls: boolean): string {
  const element = stripNulls ? `json_strip_nulls(to_json(${alias}))` : alias;
  return `select coalesce(json_agg(${element}), '[]')::text as body, count(*)::int as n from ${source}`;
}

export interface ReadRequest {
  select: readonly SelectItem[] | null;
  where: readonly Condition[];
  order: readonly OrderTerm[] | null;
  window: Window;
  stripNulls: boolean;
}

/**
 * A read's statement with its prepared name: queryOnceAsUser executes it by name, so PostgreSQL
 * parses and plans it once per connection, not once per request (speed, issue 17: the unread
 * poll's statement cost 1.2 ms planned each time against 0.6 ms prepared). Only for statements
 * sent through queryOnceAsUser: node-postgres would read `name` as its own prepared statement.
 */
function named(query: SqlQuery): SqlQuery & Statement {
  return { ...query, name: preparedStatementName(query.text) };
}

/** The rows of a GET, as one JSON array. */
export function buildSelect(collection: CompiledCollection, request: ReadRequest): SqlQuery & Statement {
  const params = new Params();
  const columns = selectListSql(collection, request.select);
  const where = whereSql(collection, request.where, params);
  let inner = `select ${columns} from ${collection.sqlReadTable} where ${where}${orderSql(collection, request.order)}`;
  if (request.window.limit !== null) inner += ` limit ${params.add(request.window.limit)}`;
  if (request.window.offset > 0) inner += ` offset ${params.add(request.window.offset)}`;
  return named({ text: aggregate(`(${inner}) _r`, '_r', request.stripNulls), values: params.values });
}

/**
 * The cases of the rows a read returns (the same filters, order and window), as a PostgreSQL
 * array text: the access log names them even when the read's select list leaves case_id out.
 */
export function buildCaseIds(collection: CompiledCollection, request: ReadRequest): SqlQuery & Statement {
  const params = new Params();
  const where = whereSql(collection, request.where, params);
  let inner = `select "case_id" from ${collection.sqlReadTable} where ${where}${orderSql(collection, request.order)}`;
  if (request.window.limit !== null) inner += ` limit ${params.add(request.window.limit)}`;
  if (request.window.offset > 0) inner += ` offset ${params.add(request.window.offset)}`;
  return named({ text: `select coalesce(array_agg(distinct _r."case_id"), '{}')::text as ids from (${inner}) _r`, values: params.values });
}

/** The number of rows the filters match (`Prefer: count=exact`). */
export function buildCount(collection: CompiledCollection, where: readonly Condition[]): SqlQuery & Statement {
  const params = new Params();
  return named({ text: `select count(*)::bigint as total from ${collection.sqlReadTable} where ${whereSql(collection, where, params)}`, values: params.values });
}

/** What to return from a write: the select list and JSON options, or nothing (`return=minimal`). */
export interface Returning {
  select: readonly SelectItem[] | null;
  stripNulls: boolean;
}

/**
 * What a write statement returns. A collection that reads back returns ids from a write (the
 * caller reads the rows afterwards) and, from a delete, the rows as `readFrom` showed them:
 * the statement's snapshot still holds them.
 */
function withReturning(statement: string, collection: CompiledCollection, returning: Returning | null, kind: 'write' | 'delete'): string {
  if (collection.readsBack && kind === 'write') return `${statement} returning "id"${writtenRowSql(collection)}`;
  if (!returning) return statement;
  if (collection.readsBack) {
    const rows = `(select ${selectListSql(collection, returning.select)} from ${collection.sqlReadTable} where "id" in (select "id" from _w)) _r`;
    return `with _w as (${statement} returning "id") ${aggregate(rows, '_r', returning.stripNulls)}`;
  }
  return `with _w as (${statement} returning ${selectListSql(collection, returning.select)}) ${aggregate('_w', '_w', returning.stripNulls)}`;
}

/** The alias of the written table in an insert, so that `returning` can name its row. */
const WRITTEN = '_t';

/**
 * With `writeReturns`: the written row for `afterWrite` as JSON text, built by PostgreSQL as a
 * read back would build it (dates as YYYY-MM-DD, numbers as written), in the column `row`.
 */
function writtenRowSql(collection: CompiledCollection): string {
  if (!collection.writeReturns) return '';
  const columns = collection.writeReturns.map((c) => `${WRITTEN}.${quoteIdent(c)}`).join(', ');
  return `, (select to_json(_x) from (select ${columns}) _x)::text as "row"`;
}

/** Rows just written, read back by id from the read relation in the order written. */
export function buildReadBack(collection: CompiledCollection, ids: readonly string[], returning: Returning): SqlQuery {
  const params = new Params();
  const list = params.add(ids);
  const inner = `select ${selectListSql(collection, returning.select)} from ${collection.sqlReadTable} where "id" = any(${list}::uuid[]) order by array_position(${list}::uuid[], "id")`;
  return { text: aggregate(`(${inner}) _r`, '_r', returning.stripNulls), values: params.values };
}

/**
 * The row just upserted, read back by its conflict key from the read relation (for a write
 * whose statements travel in one message, which cannot pass the written id on).
 */
export function buildReadBackByKey(collection: CompiledCollection, key: readonly string[], row: Row, returning: Returning): SqlQuery {
  const params = new Params();
  const conditions = key.map((name) => {
    const ref = columnRef(collection, name);
    return `${ref.sql} = ${params.add(toParameter(ref.type, row[name]))}`;
  });
  const inner = `select ${selectListSql(collection, returning.select)} from ${collection.sqlReadTable} where ${conditions.join(' and ')}`;
  return { text: aggregate(`(${inner}) _r`, '_r', returning.stripNulls), values: params.values };
}

export interface InsertRequest {
  /** Checked rows; a column a row lacks gets its default. */
  rows: readonly Row[];
  onConflict: null | {
    target: readonly string[];
    action: 'merge' | 'ignore';
    /** Columns a merge leaves as they are in the existing row (server defaults). */
    keep: ReadonlySet<string>;
  };
  /** Ignored when the collection reads back: the insert then returns the written ids. */
  returning: Returning | null;
}

/** The columns of a multi-row insert: every key of every row, in the order first seen. */
export function insertColumns(rows: readonly Row[]): string[] {
  const columns = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) columns.add(key);
  return [...columns];
}

function conflictSql(collection: CompiledCollection, columns: readonly string[], onConflict: NonNullable<InsertRequest['onConflict']>): string {
  const target = onConflict.target.map((c) => columnRef(collection, c).sql).join(', ');
  if (onConflict.action === 'ignore') return ` on conflict (${target}) do nothing`;
  let updated = columns.filter((c) => !onConflict.target.includes(c) && !onConflict.keep.has(c));
  // Nothing to change: still "update" the key to itself so the existing row is returned.
  if (updated.length === 0) updated = [onConflict.target[0] as string];
  const sets = updated.map((c) => `${quoteIdent(c)} = excluded.${quoteIdent(c)}`);
  return ` on conflict (${target}) do update set ${sets.join(', ')}`;
}

/** An insert or upsert of checked rows. */
export function buildInsert(collection: CompiledCollection, request: InsertRequest): SqlQuery {
  const { text, values } = insertStatement(collection, request);
  return { text: withReturning(text, collection, request.returning, 'write'), values };
}

/**
 * The statements of a planned upsert of one row (`planWrite`), in the order they travel in one
 * message (routes.ts writeInOneMessage): the upsert, which returns nothing since nothing in the
 * message can take a value from it, the plan's own statements, and, when the client asked for
 * the row, its read back by the conflict key from the read relation (what a read shows).
 */
export function buildPlannedUpsert(collection: CompiledCollection, plan: Pick<WritePlan, 'row' | 'after'>, returning: Returning | null): Statement[] {
  const key = collection.conflictKey;
  if (!key) throw new Error(`REST collection "${collection.name}": a planned upsert needs a conflict key`);
  const row = inRegistryOrder(collection, plan.row);
  const upsert = insertStatement(collection, { rows: [row], onConflict: { target: key, action: 'merge', keep: new Set() }, returning: null });
  const statements = [upsert, ...plan.after, ...(returning ? [buildReadBackByKey(collection, key, row, returning)] : [])];
  // speed (issue 17): each is parsed and planned once per connection (queryOnceAsUser).
  return statements.map((s) => ({ ...s, name: preparedStatementName(s.text) }));
}

/**
 * The row's columns in the registry's order, whatever order the client sent them in, so that
 * the same record is always the same statement text (and the same prepared statement).
 */
function inRegistryOrder(collection: CompiledCollection, row: Row): Row {
  const ordered: Row = {};
  for (const column of collection.columnNames) if (Object.hasOwn(row, column)) ordered[column] = row[column];
  for (const column of Object.keys(row)) if (!Object.hasOwn(ordered, column)) ordered[column] = row[column];
  return ordered;
}

/** The insert itself, without what it returns. */
function insertStatement(collection: CompiledCollection, request: InsertRequest): SqlQuery {
  const params = new Params();
  const columns = insertColumns(request.rows);
  if (columns.length === 0) throw new RestError(400, 'PGRST102', 'The row to insert has no columns', null, 'Send at least one writable column.');
  const refs = columns.map((c) => columnRef(collection, c));
  const tuples = request.rows.map((row) => {
    const values = refs.map((ref) => (Object.hasOwn(row, ref.name) ? params.add(toParameter(ref.type, row[ref.name])) : 'default'));
    return `(${values.join(', ')})`;
  });
  const alias = collection.writeReturns ? ` as ${WRITTEN}` : '';
  let statement = `insert into ${collection.sqlTable}${alias} (${refs.map((r) => r.sql).join(', ')}) values ${tuples.join(', ')}`;
  if (request.onConflict) statement += conflictSql(collection, columns, request.onConflict);
  return { text: statement, values: params.values };
}

/** A delete of the rows the filters match; the caller makes sure there is at least one filter. */
export function buildDelete(collection: CompiledCollection, where: readonly Condition[], returning: Returning | null): SqlQuery {
  const params = new Params();
  const statement = `delete from ${collection.sqlTable} where ${whereSql(collection, where, params)}`;
  return { text: withReturning(statement, collection, returning, 'delete'), values: params.values };
}
