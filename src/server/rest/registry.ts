/**
 * The registry of REST collections: which tables and views `/api/<collection>` exposes, with
 * which columns, which of them a request may write, and how upserts find an existing row.
 * Entries are trusted code; everything a request names is checked against them, so table and
 * column names in SQL only ever come from here.
 */
import type { Identity, SignedInRole, Sql, Statement } from '../db/transaction';

/** Column types the layer knows: they decide how filter values and body values are checked. */
export const COLUMN_TYPES = ['uuid', 'text', 'int', 'numeric', 'bool', 'timestamptz', 'date', 'jsonb', 'text[]'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** HEAD is answered wherever GET is. */
export type RestMethod = 'GET' | 'POST' | 'DELETE';

/** A row as the layer passes it to hooks: column name to JSON-ish value. */
export type RowOf<C extends string> = { [K in C]?: unknown };
export type Row = Record<string, unknown>;

export interface OrderSpec<C extends string = string> {
  column: C;
  dir?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

/** What a write hook gets besides the row: the request's transaction (under RLS) and identity. */
export interface WriteContext {
  sql: Sql;
  identity: Identity;
  collection: string;
}

export interface Collection<C extends string = string> {
  /** The URL segment: `/api/<name>`. Lower case, digits and underscores. */
  readonly name: string;
  /** The schema-qualified table or view, e.g. `app_public.phq9`. */
  readonly table: string;
  /**
   * Where reads come from, when not `table`: a view that hides columns from some readers (the
   * scores of `app_public.phq9_records`). GET reads it, and the rows a POST or DELETE answers
   * with are read from it by `id`, so a write never shows more than a read would.
   */
  readonly readFrom?: string;
  /** Every column the API exposes, with its type. `select=*` means these, in this order. */
  readonly columns: { readonly [K in C]: ColumnType };
  /** The kind of case record it holds, for the access log (src/domain/access-log.ts); else told by its name. */
  readonly recordKind?: string;
  readonly methods: readonly RestMethod[];
  /** Columns a POST body may carry; any other column in a body is a 400. */
  readonly writable?: readonly NoInfer<C>[];
  /** The unique key an upsert (`Prefer: resolution=merge-duplicates`) conflicts on. */
  readonly conflictKey?: readonly NoInfer<C>[];
  /** Order when the request has no `order`; include a unique column so pages are stable. */
  readonly defaultOrder?: readonly OrderSpec<NoInfer<C>>[];
  /** Upper bound on rows per GET, whatever `limit` asks for (PostgREST's db-max-rows). */
  readonly maxRows?: number;
  /**
   * Server-set values for a new row (e.g. `submitter_id` from the identity). They fill columns
   * the row does not carry, and an upsert that merges into an existing row keeps that row's value.
   */
  defaults?(ctx: WriteContext): RowOf<C> | Promise<RowOf<C>>;
  /**
   * Runs per row, inside the transaction, after validation and defaults: may compute or
   * override columns (server-side scoring) and may throw an HttpError or RestError (4xx).
   * Return a new row or change the given one in place.
   */
  beforeWrite?(row: RowOf<C>, ctx: WriteContext): RowOf<C> | void | Promise<RowOf<C> | void>;
  /**
   * Runs per written row, inside the transaction, after the write and before the answer is
   * read: `row` is the stored row (after a merge) as `readFrom` shows it to the caller. For
   * work that needs the stored row, such as scores kept by a security definer function. May
   * throw an HttpError or RestError (4xx); throwing rolls the whole request back.
   */
  afterWrite?(row: Row, ctx: WriteContext): void | Promise<void>;
  /**
   * With `afterWrite`: the columns of `table` the write statement itself returns as the row for
   * the hook (the stored row after a merge; only columns its writer may read in `table`), which
   * saves reading each row back from `readFrom` before the hook runs.
   */
  readonly writeReturns?: readonly NoInfer<C>[];
  /**
   * For an upsert of one row whose hooks need nothing stored (a whole questionnaire record: the
   * sent answers are the stored ones after the merge): runs before any transaction opens, may
   * throw a RestError (4xx: nothing is written), and answers the write's plan, or undefined for
   * the usual path. With a plan, `beforeWrite` and `afterWrite` do not run, and the request's
   * setup, the upsert of the plan's row, its statements, the read back (by the conflict key) and
   * the commit travel as one message: one round trip instead of one per statement. Only for
   * collections without `defaults`.
   */
  planWrite?(row: Row, ctx: Omit<WriteContext, 'sql'>): WritePlan | undefined;
}

/** What `planWrite` answers. */
export interface WritePlan {
  /** The row to upsert: the checked row, with the columns the server computed (the scores). */
  row: Row;
  /** Statements after the upsert, in its transaction. */
  after: readonly Statement[];
  /** The role of the transaction, when not sanad_user: sanad_scorer writes score columns (0081). */
  role?: SignedInRole;
}

/** All collections the server exposes; names must be unique. */
export type CollectionRegistry = readonly Collection[];

/** Types the column names of one entry, so `writable` and `conflictKey` typos fail to compile. */
export function defineCollection<const C extends string>(collection: Collection<C>): Collection<C> {
  return collection;
}

/** A registry entry checked once at start, with the lookups the request path needs. */
export interface CompiledCollection extends Collection {
  /** The table as SQL, each part quoted. */
  readonly sqlTable: string;
  /** The relation reads come from (`readFrom`, else the table), as SQL. */
  readonly sqlReadTable: string;
  /** Written rows are read back by id (for `afterWrite` and from `readFrom`), not returned by the write. */
  readonly readsBack: boolean;
  readonly columnNames: readonly string[];
  readonly writableSet: ReadonlySet<string>;
}

const NAME = /^[a-z_][a-z0-9_]{0,62}$/;

function fail(collection: string, problem: string): never {
  throw new Error(`REST collection "${collection}": ${problem}`);
}

function checkColumns(entry: Collection, list: readonly string[] | undefined, what: string): void {
  for (const column of list ?? []) {
    if (!Object.hasOwn(entry.columns, column)) fail(entry.name, `${what} names the unknown column "${column}"`);
  }
}

/** Quotes an identifier that the registry already restricted to lower-case names. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** `schema.table` as quoted SQL, refusing anything else. */
function relationSql(entry: Collection, relation: string, what: string): string {
  const parts = relation.split('.');
  if (parts.length !== 2 || !parts.every((p) => NAME.test(p))) fail(entry.name, `${what} "${relation}" must be schema.table in lower case`);
  return parts.map(quoteIdent).join('.');
}

function compileEntry(entry: Collection): CompiledCollection {
  if (!NAME.test(entry.name)) fail(entry.name, 'the name must be lower case letters, digits and underscores');
  const sqlTable = relationSql(entry, entry.table, 'table');
  const sqlReadTable = entry.readFrom === undefined ? sqlTable : relationSql(entry, entry.readFrom, 'readFrom');
  const readsBack = entry.readFrom !== undefined || entry.afterWrite !== undefined;
  const columnNames = Object.keys(entry.columns);
  if (columnNames.length === 0) fail(entry.name, 'it has no columns');
  for (const [column, type] of Object.entries(entry.columns) as [string, ColumnType][]) {
    if (!NAME.test(column)) fail(entry.name, `column "${column}" must be lower case letters, digits and underscores`);
    if (!COLUMN_TYPES.includes(type)) fail(entry.name, `column "${column}" has the unknown type "${String(type)}"`);
  }
  checkColumns(entry, entry.writable, 'writable');
  checkColumns(entry, entry.conflictKey, 'conflictKey');
  checkColumns(entry, entry.writeReturns, 'writeReturns');
  if (entry.writeReturns && !entry.afterWrite) fail(entry.name, 'writeReturns is for afterWrite');
  if (entry.planWrite && (entry.defaults || !entry.conflictKey)) fail(entry.name, 'planWrite needs a conflictKey and no defaults');
  checkColumns(
    entry,
    entry.defaultOrder?.map((o) => o.column),
    'defaultOrder',
  );
  if (entry.methods.length === 0) fail(entry.name, 'it allows no method');
  if (entry.methods.includes('POST') && !entry.writable?.length) fail(entry.name, 'POST needs at least one writable column');
  if (entry.conflictKey?.length === 0) fail(entry.name, 'conflictKey is empty');
  if (entry.maxRows !== undefined && !(Number.isSafeInteger(entry.maxRows) && entry.maxRows > 0)) fail(entry.name, 'maxRows must be a positive integer');
  if (readsBack && (entry.columns as Record<string, ColumnType>).id !== 'uuid') fail(entry.name, 'readFrom and afterWrite need a uuid column "id"');
  return {
    ...entry,
    sqlTable,
    sqlReadTable,
    readsBack,
    columnNames,
    writableSet: new Set(entry.writable ?? []),
  };
}

/** Checks every entry (a mistake fails at start, not on the first request) and indexes them by name. */
export function compileRegistry(registry: CollectionRegistry): ReadonlyMap<string, CompiledCollection> {
  const compiled = new Map<string, CompiledCollection>();
  for (const entry of registry) {
    if (compiled.has(entry.name)) fail(entry.name, 'the name is registered twice');
    compiled.set(entry.name, compileEntry(entry));
  }
  return compiled;
}
