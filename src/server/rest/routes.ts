/**
 * `/api/<collection>`: the PostgREST-compatible handler over the registry. GET reads with
 * filters, order and paging; POST inserts or upserts; DELETE removes filtered rows. Every
 * query runs in `withUser`, so row-level security decides what a request sees and changes,
 * exactly as for GraphQL. Errors are PostgREST-shaped (`{code, message, details, hint}`).
 *
 * The routes live in their own Fastify scope so that their error handler and JSON body parser
 * (which accepts the empty body PostgREST clients send with DELETE) leave the rest of the app
 * alone.
 */
import { sendDatabaseUnavailable } from '../http/unavailable';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import '../http/types';
import { ANONYMOUS, queryOnceAsUser, withUser, withUserThenOwner, type Identity, type Statement } from '../db/transaction';
import { RestError, RestParseError, toRestErrorResponse, unwritableColumn } from './errors';
import {
  negotiateMedia,
  parsePrefer,
  checkStrictPreferences,
  appliedPreferences,
  parseQuery,
  parseRangeHeader,
  resolveWindow,
  type MediaChoice,
  type ParsedQuery,
  type Preferences,
} from './grammar';
import {
  compileRegistry,
  type CollectionRegistry,
  type ColumnType,
  type CompiledCollection,
  type RestMethod,
  type Row,
  type WriteContext,
  type WritePlan,
} from './registry';
import { buildCaseIds, buildCount, buildDelete, buildInsert, buildPlannedUpsert, buildReadBack, buildSelect, selectListSql, type InsertRequest, type Returning } from './sql';
import type { Sql } from '../db/transaction';
import { bodyValue } from './values';
import { caseReadsOf } from '../integrity/access-log';
import { recordKindOf, type RecordKind } from '../../domain/access-log';

/** Notes a read's cases (a PostgreSQL uuid[] text) for the access log. */
function noteRestReads(request: FastifyRequest, collection: CompiledCollection, ids: string): void {
  const kind = (collection.recordKind as RecordKind | undefined) ?? recordKindOf(collection.name);
  const caseIds = ids.replace(/[{}]/g, '').split(',').filter(Boolean);
  if (caseIds.length > 0) caseReadsOf(request).add('rest', kind, caseIds);
}

export const REST_PATH = '/api/:collection';

/** More rows than this in one POST is refused: PostgreSQL takes at most 65535 parameters. */
export const MAX_ROWS_PER_WRITE = 1000;

const JSON_TYPE = 'application/json; charset=utf-8';
const OBJECT_TYPE = 'application/vnd.pgrst.object+json; charset=utf-8';

/**
 * Registers `/api/<collection>` for every collection of the registry. Checks the registry first:
 * a broken entry fails the start, not a request. Await it before the app listens.
 */
export async function registerRestCollections(app: FastifyInstance, pool: pg.Pool, registry: CollectionRegistry): Promise<void> {
  const collections = compileRegistry(registry);
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
    scope.setErrorHandler(sendRestError);
    scope.route<{ Params: { collection: string } }>({
      method: ['GET', 'HEAD', 'POST', 'DELETE', 'PATCH', 'PUT'],
      url: REST_PATH,
      handler: (request, reply) => handleRequest(pool, collections, request, reply),
    });
  });
}

/** JSON bodies; an empty one is no body (postgrest-js sends `Content-Type: application/json` with DELETE). */
function parseJsonBody(_request: FastifyRequest, body: string | Buffer, done: (error: Error | null, body?: unknown) => void): void {
  const text = body.toString();
  if (text.trim() === '') return done(null, undefined);
  try {
    done(null, JSON.parse(text));
  } catch {
    done(new RestError(400, 'PGRST102', 'Empty or invalid json', 'The request body is not valid JSON.'), undefined);
  }
}

function sendRestError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (request.server.databaseAvailability?.report(error)) return sendDatabaseUnavailable(reply, request.url);
  const response = toRestErrorResponse(error, Boolean(request.identity?.userId));
  if (response.internal) request.log.error({ err: error }, 'REST request failed');
  return reply.status(response.status).headers(response.headers).type(JSON_TYPE).send(response.body);
}

interface RequestContext {
  pool: pg.Pool;
  collection: CompiledCollection;
  identity: Identity;
  query: ParsedQuery;
  prefer: Preferences;
  media: MediaChoice;
  request: FastifyRequest;
  reply: FastifyReply;
}

async function handleRequest(
  pool: pg.Pool,
  collections: ReadonlyMap<string, CompiledCollection>,
  request: FastifyRequest<{ Params: { collection: string } }>,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const name = request.params.collection;
  const collection = collections.get(name);
  if (!collection) {
    throw new RestError(404, 'PGRST205', `Could not find the table '${name}' in the schema cache`, null, 'Check the collection name in the URL.');
  }
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  if (!collection.methods.includes(method as RestMethod)) return refuseMethod(collection, method, reply);
  const context: RequestContext = {
    pool,
    collection,
    identity: request.identity ?? ANONYMOUS,
    query: parseQuery(searchOf(request.url)),
    prefer: parsePrefer(request.headers.prefer),
    media: negotiateMedia(request.headers.accept),
    request,
    reply,
  };
  checkStrictPreferences(context.prefer);
  if (method === 'POST') return create(context);
  if (method === 'DELETE') return remove(context);
  return read(context);
}

/** 405 with `Allow`, for methods a collection does not take (and PATCH/PUT, which none does). */
function refuseMethod(collection: CompiledCollection, method: string, reply: FastifyReply): FastifyReply {
  const allowed = collection.methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]));
  const body = new RestError(
    405,
    'PGRST117',
    `Unsupported HTTP method: ${method}`,
    `The collection '${collection.name}' accepts ${allowed.join(', ')}.`,
    method === 'PATCH' || method === 'PUT' ? 'To change a row, POST it with Prefer: resolution=merge-duplicates.' : null,
  ).body();
  return reply.status(405).header('allow', allowed.join(', ')).type(JSON_TYPE).send(body);
}

/** The raw query string: parsed by the grammar itself, keeping repeated keys and their order. */
function searchOf(url: string): string {
  const question = url.indexOf('?');
  return question < 0 ? '' : url.slice(question + 1);
}

type QueryPart = 'filters' | 'order' | 'limit' | 'offset' | 'columns' | 'on_conflict';

/** Parameters that mean nothing for a method are refused, so a mistaken request is not half-applied. */
function refuseParts(query: ParsedQuery, method: string, parts: readonly QueryPart[]): void {
  const present: Record<QueryPart, boolean> = {
    filters: query.where.length > 0,
    order: query.order !== null,
    limit: query.limit !== null,
    offset: query.offset !== null,
    columns: query.columns !== null,
    on_conflict: query.onConflict !== null,
  };
  for (const part of parts) {
    if (present[part]) throw new RestParseError(`${part === 'filters' ? 'Filters are' : `The ${part} parameter is`} not supported with ${method}`, null);
  }
}

const wantsRepresentation = (prefer: Preferences) => prefer.return === 'representation';

function singularError(rows: number): RestError {
  return new RestError(406, 'PGRST116', 'JSON object requested, multiple (or no) rows returned', `The result contains ${rows} rows`);
}

/** Sends json_agg text as it came from PostgreSQL; a singular request gets the one element. */
function sendRows(reply: FastifyReply, status: number, body: string, media: MediaChoice): FastifyReply {
  if (!media.singular) return reply.status(status).type(JSON_TYPE).send(body);
  const trimmed = body.trim();
  return reply.status(status).type(OBJECT_TYPE).send(trimmed.slice(1, -1).trim());
}

/** PostgREST's status for a counted read: 206 for part of the rows, 416 past the end. */
export function rangeStatus(offset: number, returned: number, total: number | null): 200 | 206 | 416 {
  if (total === null) return 200;
  if (offset > total) return 416;
  return returned < total ? 206 : 200;
}

export function contentRange(offset: number, returned: number, total: number | null): string {
  const range = returned > 0 ? `${offset}-${offset + returned - 1}` : '*';
  return `${range}/${total ?? '*'}`;
}

/** PostgreSQL refuses a NUL in text as 22021; statements sent as text cannot carry one at all. */
function refuseNul(statements: readonly Statement[]): void {
  const holdsNul = (value: unknown): boolean => (Array.isArray(value) ? value.some(holdsNul) : typeof value === 'string' && value.includes('\0'));
  if (statements.some((s) => s.values.some(holdsNul))) {
    throw new RestError(400, '22021', 'invalid byte sequence for encoding "UTF8": 0x00', 'A filter value holds a NUL character (%00).');
  }
}

interface AggregateRow {
  body: string;
  n: number;
}

async function read(context: RequestContext): Promise<FastifyReply> {
  const { collection, query, prefer, media, request, reply } = context;
  const rangeHeader = request.headers.range;
  const window = resolveWindow(query, parseRangeHeader(Array.isArray(rangeHeader) ? rangeHeader[0] : rangeHeader), collection.maxRows);
  const rowsQuery = buildSelect(collection, { select: query.select, where: query.where, order: query.order, window, stripNulls: media.stripNulls });
  const countQuery = prefer.count ? buildCount(collection, query.where) : null;
  // Issue 30: a signed-in person's read names its cases for the access log, in the same message.
  const casesQuery =
    context.identity.userId && Object.hasOwn(collection.columns, 'case_id')
      ? buildCaseIds(collection, { select: null, where: query.where, order: query.order, window, stripNulls: false })
      : null;
  const statements = countQuery ? [rowsQuery, countQuery] : [rowsQuery];
  if (casesQuery) statements.push(casesQuery);
  refuseNul(statements);
  // One round trip: a read's statements travel with the transaction's setup and commit.
  const results = await queryOnceAsUser(context.pool, context.identity, statements);
  const [rows, counted] = countQuery ? results : [results[0], undefined];
  if (casesQuery) noteRestReads(request, collection, (results.at(-1)!.rows[0] as { ids: string }).ids);
  const { body, n } = rows!.rows[0] as AggregateRow;
  const total = counted ? Number((counted.rows[0] as { total: number }).total) : null;
  const status = rangeStatus(window.offset, n, total);
  if (status === 416) {
    throw new RestError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${window.offset} was requested, but there are only ${total} rows.`);
  }
  if (media.singular && n !== 1) throw singularError(n);
  reply.header('content-range', contentRange(window.offset, n, total));
  return sendRows(reply, status, body, media);
}

/** The body of a POST as rows: one object or an array of objects. */
function bodyRows(body: unknown): Record<string, unknown>[] {
  const items = Array.isArray(body) ? body : [body];
  const isObject = (item: unknown) => typeof item === 'object' && item !== null && !Array.isArray(item);
  if (body === undefined || !items.every(isObject)) {
    throw new RestError(400, 'PGRST102', 'Empty or invalid json', 'Send a JSON object, or an array of objects, whose keys are column names.');
  }
  if (items.length > MAX_ROWS_PER_WRITE) {
    throw new RestError(400, 'PGRST102', `Too many rows in one request (${items.length})`, `Send at most ${MAX_ROWS_PER_WRITE} rows at a time.`);
  }
  return items as Record<string, unknown>[];
}

function checkWritable(collection: CompiledCollection, column: string): void {
  if (!Object.hasOwn(collection.columns, column)) throw unwritableColumn(collection.name, column, false);
  if (!collection.writableSet.has(column)) throw unwritableColumn(collection.name, column, true);
}

/**
 * A body object checked against the registry: only writable columns, values of their type.
 * With `columns=`, as in PostgREST, only those keys are used and the others are ignored; the
 * listed columns a row lacks are null, or their default with `Prefer: missing=default`.
 */
export function checkBodyRow(collection: CompiledCollection, item: Record<string, unknown>, columns: readonly string[] | null, missingDefault: boolean): Row {
  const row: Row = {};
  for (const [key, value] of Object.entries(item)) {
    if (columns && !columns.includes(key)) continue;
    checkWritable(collection, key);
    row[key] = bodyValue(collection.columns[key] as ColumnType, value, key);
  }
  if (columns && !missingDefault) for (const column of columns) if (!Object.hasOwn(row, column)) row[column] = null;
  return row;
}

/** `Prefer: resolution=…` with the collection's conflict key; `on_conflict=` must name that key. */
function conflictOf(collection: CompiledCollection, query: ParsedQuery, prefer: Preferences): InsertRequest['onConflict'] {
  if (!prefer.resolution) return null;
  const key = collection.conflictKey;
  const noMatch = (details: string) =>
    new RestError(400, '42P10', 'there is no unique or exclusion constraint matching the ON CONFLICT specification', details, key ? `Use on_conflict=${key.join(',')}.` : null);
  if (!key) throw noMatch(`'${collection.name}' takes inserts only.`);
  const asked = query.onConflict;
  if (asked && (asked.length !== key.length || !key.every((k) => asked.includes(k)))) {
    throw noMatch(`'${collection.name}' merges rows on (${key.join(', ')}).`);
  }
  return { target: key, action: prefer.resolution === 'merge-duplicates' ? 'merge' : 'ignore', keep: new Set() };
}

/** The collection's server defaults for this request, checked to name its columns. */
async function defaultsFor(collection: CompiledCollection, ctx: WriteContext): Promise<Row> {
  const defaults: Row = collection.defaults ? { ...(await collection.defaults(ctx)) } : {};
  for (const column of Object.keys(defaults)) {
    if (!Object.hasOwn(collection.columns, column)) throw new Error(`REST collection "${collection.name}": defaults() set the unknown column "${column}"`);
  }
  return defaults;
}

interface PreparedRow {
  row: Row;
  /** Columns whose value is the server default, not chosen by the client or the hook. */
  defaulted: Set<string>;
}

/** Fills server defaults, then lets the collection's hook compute or override columns. */
async function prepareRow(collection: CompiledCollection, checked: Row, defaults: Row, ctx: WriteContext): Promise<PreparedRow> {
  const row: Row = { ...checked };
  for (const [column, value] of Object.entries(defaults)) if (!Object.hasOwn(row, column)) row[column] = value;
  const hooked: Row = collection.beforeWrite ? ((await collection.beforeWrite(row, ctx)) ?? row) : row;
  const result: Row = {};
  for (const [column, value] of Object.entries(hooked)) {
    if (!Object.hasOwn(collection.columns, column)) throw new Error(`REST collection "${collection.name}": beforeWrite set the unknown column "${column}"`);
    if (value !== undefined) result[column] = value;
  }
  const defaulted = new Set(Object.keys(defaults).filter((c) => !Object.hasOwn(checked, c) && Object.is(result[c], defaults[c])));
  return { row: result, defaulted };
}

/** Columns every row took from the defaults: a merge leaves them as the existing row has them. */
function keptOnMerge(prepared: readonly PreparedRow[]): Set<string> {
  const [first, ...rest] = prepared;
  return new Set([...(first?.defaulted ?? [])].filter((c) => rest.every((p) => p.defaulted.has(c))));
}

async function create(context: RequestContext): Promise<FastifyReply> {
  const { collection, query, prefer, media, request, reply } = context;
  refuseParts(query, 'POST', ['filters', 'order', 'limit', 'offset']);
  const items = bodyRows(request.body);
  for (const column of query.columns ?? []) checkWritable(collection, column);
  const onConflict = conflictOf(collection, query, prefer);
  const checked = items.map((item) => checkBodyRow(collection, item, query.columns, prefer.missing === 'default'));
  const returning: Returning | null = wantsRepresentation(prefer) ? { select: query.select, stripNulls: media.stripNulls } : null;
  if (returning) selectListSql(collection, returning.select); // an unknown column is a 400 before any write
  if (checked.length === 0) return reply.status(201).type(JSON_TYPE).send(returning ? '[]' : undefined);

  // A singular request keeps the usual path, whose read back decides before the commit.
  const oneRowUpsert = onConflict?.action === 'merge' && checked.length === 1 && !media.singular;
  const planned = oneRowUpsert ? planWrite(collection, checked[0]!, context.identity) : undefined;
  const { body, n } = planned ? await writeInOneMessage(context, planned, returning) : await writeWithHooks(context, checked, onConflict, returning);
  if (prefer.count) reply.header('content-range', `*/${n}`);
  const applied = appliedPreferences(prefer, ['return', 'resolution', 'count', 'missing', 'handling']);
  if (applied) reply.header('preference-applied', applied);
  if (!returning) return reply.status(201).send();
  return sendRows(reply, 201, body, media);
}

/** The usual write: defaults, `beforeWrite`, the statement, `afterWrite` and the read back, in one transaction. */
async function writeWithHooks(
  context: RequestContext,
  checked: readonly Row[],
  onConflict: InsertRequest['onConflict'],
  returning: Returning | null,
): Promise<AggregateRow> {
  const { collection, media } = context;
  // A collection with an afterWrite hook may leave the request role there (the interview
  // report's derived columns, reports/service.ts storeDerived): a listed owner path, so its
  // writes run on the owner's connection (docs/decisions/authenticator-role.md).
  const open = collection.afterWrite ? withUserThenOwner : withUser;
  return open(context.pool, context.identity, async (sql) => {
    const ctx: WriteContext = { sql, identity: context.identity, collection: collection.name };
    const defaults = await defaultsFor(collection, ctx);
    const prepared: PreparedRow[] = [];
    for (const row of checked) prepared.push(await prepareRow(collection, row, defaults, ctx));
    const insert = buildInsert(collection, {
      rows: prepared.map((p) => p.row),
      onConflict: onConflict && { ...onConflict, keep: keptOnMerge(prepared) },
      returning,
    });
    const result = await sql.query<AggregateRow>(insert);
    const written = collection.readsBack
      ? await readBack(sql, collection, ctx, result.rows as unknown as WrittenRow[], returning)
      : returning
        ? (result.rows[0] as AggregateRow)
        : { body: '', n: result.rowCount ?? 0 };
    // Thrown inside the transaction, so a singular request that wrote several rows writes none.
    if (media.singular && written.n !== 1) throw singularError(written.n);
    return written;
  });
}

/** The collection's plan for a one-row upsert (`planWrite`), or undefined for the usual path. */
function planWrite(collection: CompiledCollection, row: Row, identity: Identity): WritePlan | undefined {
  const plan = collection.planWrite?.(row, { identity, collection: collection.name });
  if (!plan) return undefined;
  for (const column of Object.keys(plan.row)) {
    if (!Object.hasOwn(collection.columns, column)) throw new Error(`REST collection "${collection.name}": planWrite set the unknown column "${column}"`);
  }
  return plan;
}

/**
 * A planned upsert of one row (`planWrite`): setup, upsert, the plan's statements, the read back
 * by the conflict key and the commit as one message, one round trip (buildPlannedUpsert). Any
 * error rolls it all back.
 */
async function writeInOneMessage(context: RequestContext, plan: WritePlan, returning: Returning | null): Promise<AggregateRow> {
  const statements = buildPlannedUpsert(context.collection, plan, returning);
  refuseNul(statements);
  const results = await queryOnceAsUser(context.pool, context.identity, statements, plan.role);
  const n = results[0]!.rowCount ?? 0;
  if (!returning) return { body: '', n };
  return results[results.length - 1]!.rows[0] as AggregateRow;
}

/** What a write of a collection that reads back returns per row: its id, and with `writeReturns` the row as JSON. */
interface WrittenRow {
  id: string;
  row?: string;
}

/** The rows for `afterWrite`: as the write returned them (`writeReturns`), else read back from the read relation. */
async function storedRows(sql: Sql, collection: CompiledCollection, written: WrittenRow[]): Promise<Row[]> {
  if (collection.writeReturns) return written.map((w) => JSON.parse(w.row as string) as Row);
  const ids = written.map((w) => w.id);
  const stored = JSON.parse((await sql.query<AggregateRow>(buildReadBack(collection, ids, { select: null, stripNulls: false }))).rows[0]!.body) as Row[];
  // A row its writer cannot read would silently miss its hook (a record without scores).
  if (stored.length !== ids.length) throw new Error(`REST collection "${collection.name}": afterWrite cannot read back every written row`);
  return stored;
}

/**
 * After a write that returned ids: each stored row goes to `afterWrite`, then the answer is
 * read from the read relation, so it shows what the hooks stored and only what a read shows.
 */
async function readBack(sql: Sql, collection: CompiledCollection, ctx: WriteContext, written: WrittenRow[], returning: Returning | null): Promise<AggregateRow> {
  const ids = written.map((w) => w.id);
  if (collection.afterWrite && ids.length > 0) {
    for (const row of await storedRows(sql, collection, written)) await collection.afterWrite(row, ctx);
  }
  if (!returning) return { body: '', n: ids.length };
  if (ids.length === 0) return { body: '[]', n: 0 };
  return (await sql.query<AggregateRow>(buildReadBack(collection, ids, returning))).rows[0] as AggregateRow;
}

async function remove(context: RequestContext): Promise<FastifyReply> {
  const { collection, query, prefer, media, reply } = context;
  refuseParts(query, 'DELETE', ['order', 'limit', 'offset', 'columns', 'on_conflict']);
  // As PostgREST with pg-safeupdate: deleting a whole collection by mistake is refused.
  if (query.where.length === 0) throw new RestError(400, '21000', 'DELETE requires a WHERE clause', null, 'Add a filter such as id=eq.<id>.');
  const returning: Returning | null = wantsRepresentation(prefer) ? { select: query.select, stripNulls: media.stripNulls } : null;
  const statement = buildDelete(collection, query.where, returning);
  const { body, n } = await withUser(context.pool, context.identity, async (sql) => {
    const result = await sql.query<AggregateRow>(statement);
    const deleted = returning ? (result.rows[0] as AggregateRow) : { body: '', n: result.rowCount ?? 0 };
    if (media.singular && deleted.n !== 1) throw singularError(deleted.n);
    // Thrown inside the transaction: a DELETE over the limit is rolled back, nothing is removed.
    if (prefer.handling === 'strict' && prefer.maxAffected !== undefined && deleted.n > prefer.maxAffected) {
      throw new RestError(400, 'PGRST124', 'Query result exceeds max-affected preference constraint', `The query affects ${deleted.n} rows`);
    }
    return deleted;
  });
  if (prefer.count) reply.header('content-range', `*/${n}`);
  const applied = appliedPreferences(prefer, ['return', 'count', 'handling', ...(prefer.handling === 'strict' ? (['maxAffected'] as const) : [])]);
  if (applied) reply.header('preference-applied', applied);
  if (!returning) return reply.status(204).send();
  return sendRows(reply, 200, body, media);
}
