/**
 * The HTTP floor of the workspace bench (issue "Speed at clinic scale", item 4: where a target
 * cannot be reached on 2 cores, show by measurement where the floor is): a bare `node:http`
 * server, no Fastify, no PostGraphile, no hooks, that answers the paths the API answers with
 * one statement each, with the same bytes, by sending PostgreSQL the same message the API sends,
 * built by the server's own functions:
 *
 *   GET /api/auth/users/me           readProfileJson (auth/service.ts), as getProfileJson reads it
 *   GET /api/<collection>?…          the REST grammar, buildSelect and queryOnceAsUser (rest/routes.ts read),
 *                                    e.g. my_messages and phq9
 *   POST /api/<collection>, one row  a planned upsert (rest/routes.ts create, writeInOneMessage): the row
 *                                    checked by checkBodyRow, the collection's own planWrite (a whole
 *                                    questionnaire record: validated and scored), buildPlannedUpsert and
 *                                    queryOnceAsUser in the plan's role; refused errors answered by
 *                                    toRestErrorResponse, as the API answers them
 *   POST /api/graphql, a web document recognise() and readCompiled of compiled-lists.ts
 *
 * What it leaves out is exactly what the API adds: routing and hooks, token verification, rate
 * limits, the GraphQL guard, logging, Fastify's body parser. A request it would answer otherwise
 * than the API (a count, a singular object, a write that takes the hooks' path) it refuses with
 * a 404 instead. It takes the person from a fixed token → user id mapping
 * the bench gives it, so it SKIPS token verification (the API verifies a signed token per
 * request); the difference is part of what the API/floor ratio shows.
 *
 * It runs in the bench's process on the API's own pool, as the API server does (harness.ts
 * startServer), so the two differ only in the server code: same Node, same pool and size, same
 * database, same module settings (the request statement timeout the app set).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_SCHEDULE, type MeasurementSchedule } from '../src/domain/measurements';
import { PROFILE_COLUMNS, readProfileJson } from '../src/server/auth/service';
import { appCollections } from '../src/server/collections';
import { queryOnceAsUser, type Identity } from '../src/server/db/transaction';
import { readCompiled, recognise } from '../src/server/graphql/compiled-lists';
import { GRAPHQL_PATH } from '../src/server/graphql/preset';
import { toRestErrorResponse } from '../src/server/rest/errors';
import { negotiateMedia, parsePrefer, parseQuery, parseRangeHeader, resolveWindow } from '../src/server/rest/grammar';
import { compileRegistry, type CompiledCollection } from '../src/server/rest/registry';
import { checkBodyRow, contentRange, rangeStatus } from '../src/server/rest/routes';
import { buildPlannedUpsert, buildSelect } from '../src/server/rest/sql';
import type { LoadRequest } from './load';

/** The profile in plain SQL, the bench's SQL side for GET /api/auth/users/me (the API sends PROFILE_JSON). */
export const ME_STATEMENT = `select ${PROFILE_COLUMNS} from app_public.users where id = app_public.current_user_id()`;

const JSON_TYPE = 'application/json; charset=utf-8';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FloorServer {
  baseUrl: string;
  close(): Promise<void>;
}

/** The profile, as getProfileJson reads it: JSON text PostgreSQL builds. */
async function me(pool: pg.Pool, identity: Identity): Promise<Answer> {
  const json = await readProfileJson(pool, identity);
  if (json === undefined) return { status: 404, headers: { 'content-type': JSON_TYPE }, body: '{"error":"user_not_found"}' };
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body: json };
}

/** What the floor does not answer: the API would answer it by a path the floor does not have. */
function notAnswered(what: string): Answer {
  return { status: 404, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify({ error: `the floor server does not answer ${what}` }) };
}

/** A REST read as rest/routes.ts read() builds it: no count, no singular object (the benches send neither). */
async function restRead(pool: pg.Pool, collection: CompiledCollection, identity: Identity, search: string, request: http.IncomingMessage): Promise<Answer> {
  const media = negotiateMedia(request.headers.accept);
  if (media.singular || parsePrefer(request.headers.prefer).count) return notAnswered('a count or a singular object');
  const query = parseQuery(search);
  const window = resolveWindow(query, parseRangeHeader(request.headers.range), collection.maxRows);
  const statement = buildSelect(collection, { select: query.select, where: query.where, order: query.order, window, stripNulls: media.stripNulls });
  const [rows] = await queryOnceAsUser(pool, identity, [statement]);
  const { body, n } = rows!.rows[0] as { body: string; n: number };
  return { status: rangeStatus(window.offset, n, null), headers: { 'content-type': JSON_TYPE, 'content-range': contentRange(window.offset, n, null) }, body };
}

/** The one row of a POST body (an object, or an array of one), or undefined for anything else. */
function oneRow(text: string): Record<string, unknown> | undefined {
  const body: unknown = JSON.parse(text);
  const item: unknown = Array.isArray(body) && body.length === 1 ? body[0] : body;
  return typeof item === 'object' && item !== null && !Array.isArray(item) ? (item as Record<string, unknown>) : undefined;
}

/**
 * A one-row upsert that returns its row, as rest/routes.ts create() answers it when the
 * collection plans it (a whole questionnaire record): the collection's own planWrite validates
 * and scores the row, buildPlannedUpsert builds the message (the upsert, the plan's statements,
 * the read back by the conflict key, each a prepared statement) and queryOnceAsUser sends it in
 * one round trip in the plan's role. Anything else (a partial record, query parameters, other
 * preferences) takes the API's hooks' path, which the floor does not have.
 */
async function plannedUpsert(pool: pg.Pool, collection: CompiledCollection, identity: Identity, search: string, request: http.IncomingMessage, text: string): Promise<Answer> {
  const prefer = parsePrefer(request.headers.prefer);
  const media = negotiateMedia(request.headers.accept);
  const item = oneRow(text);
  const simple = search === '' && prefer.resolution === 'merge-duplicates' && prefer.return === 'representation' && !prefer.count && !prefer.missing;
  if (!simple || media.singular || !item || !collection.conflictKey) return notAnswered('this write (only a planned one-row upsert returning its row)');
  const row = checkBodyRow(collection, item, null, false);
  const plan = collection.planWrite?.(row, { identity, collection: collection.name });
  if (!plan) return notAnswered("a write the collection does not plan (the API's hooks' path)");
  const statements = buildPlannedUpsert(collection, plan, { select: null, stripNulls: media.stripNulls });
  const results = await queryOnceAsUser(pool, identity, statements, plan.role);
  return { status: 201, headers: { 'content-type': JSON_TYPE }, body: (results.at(-1)!.rows[0] as { body: string }).body };
}

/** A refused REST request (bad answers, a policy's refusal) answered as the API's error handler answers it. */
function restError(error: unknown): Answer {
  const response = toRestErrorResponse(error, true);
  if (response.internal) throw error;
  return { status: response.status, headers: { ...response.headers, 'content-type': JSON_TYPE }, body: JSON.stringify(response.body) };
}

/**
 * A web document the API answers on its compiled path: recognised by the API's own recognise()
 * (given the parts of a request it reads), read as CompiledLists reads it. Anything else is 404:
 * the floor has no PostGraphile.
 */
async function compiledDocument(pool: pg.Pool, identity: Identity, request: http.IncomingMessage, text: string): Promise<Answer> {
  const body: unknown = JSON.parse(text);
  const requestParts = { method: 'POST', routeOptions: { url: GRAPHQL_PATH }, identity, headers: request.headers, body };
  const recognised = recognise(requestParts as unknown as FastifyRequest);
  if (!recognised) return { status: 404, headers: { 'content-type': JSON_TYPE }, body: '{"error":"not a compiled document"}' };
  const { operation, values, mediaType } = recognised;
  const json = await readCompiled(pool, identity.userId!, operation, values);
  return { status: 200, headers: { 'content-type': mediaType }, body: `{"data":{"${operation.rootField}":${json}}}` };
}

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The user id the bench mapped the bearer token to; no signature is checked (see above). */
function identityOf(request: http.IncomingMessage, users: ReadonlyMap<string, string>): Identity | undefined {
  const header = request.headers.authorization;
  const userId = header?.startsWith('Bearer ') ? users.get(header.slice('Bearer '.length)) : undefined;
  return userId ? { userId } : undefined;
}

/** `/api/<collection>`, as REST_PATH matches it. */
const COLLECTION_PATH = /^\/api\/([^/]+)$/;

async function route(pool: pg.Pool, collections: ReadonlyMap<string, CompiledCollection>, users: ReadonlyMap<string, string>, request: http.IncomingMessage): Promise<Answer> {
  const identity = identityOf(request, users);
  if (!identity) return { status: 401, headers: { 'content-type': JSON_TYPE }, body: '{"error":"unknown token"}' };
  const url = request.url ?? '/';
  const question = url.indexOf('?');
  const path = question < 0 ? url : url.slice(0, question);
  const search = question < 0 ? '' : url.slice(question + 1);
  if (request.method === 'GET' && path === '/api/auth/users/me') return me(pool, identity);
  if (request.method === 'POST' && path === GRAPHQL_PATH) return compiledDocument(pool, identity, request, await readBody(request));
  const collection = collections.get(COLLECTION_PATH.exec(path)?.[1] ?? '');
  if (collection && request.method === 'GET' && collection.methods.includes('GET')) return restRead(pool, collection, identity, search, request);
  if (collection && request.method === 'POST' && collection.methods.includes('POST')) {
    const text = await readBody(request);
    return plannedUpsert(pool, collection, identity, search, request, text).catch(restError);
  }
  return notAnswered('this');
}

export interface FloorOptions {
  /** The server's measurement schedule (config.measurementSchedule), which its questionnaire collections follow. */
  schedule?: MeasurementSchedule;
}

/**
 * Starts the floor server on a free local port, answering as the people of `users` (token → user
 * id), over the server's REST collections (appCollections, with the server's schedule).
 */
export async function startFloorServer(pool: pg.Pool, users: ReadonlyMap<string, string>, options: FloorOptions = {}): Promise<FloorServer> {
  const collections = compileRegistry(appCollections(options.schedule ?? DEFAULT_SCHEDULE));
  const server = http.createServer((request, response) => {
    route(pool, collections, users, request).then(
      (answer) => {
        response.writeHead(answer.status, { ...answer.headers, 'content-length': String(Buffer.byteLength(answer.body)) });
        response.end(answer.body);
      },
      (error: unknown) => {
        const body = JSON.stringify({ error: error instanceof Error ? error.message : String(error) });
        response.writeHead(500, { 'content-type': JSON_TYPE, 'content-length': String(Buffer.byteLength(body)) });
        response.end(body);
      },
    );
  });
  // As Fastify's default: keep-alive connections stay open between a client's requests.
  server.keepAliveTimeout = 72_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

interface Asked {
  status: number;
  type: string | null;
  text: string;
}

async function ask(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Asked> {
  const response = await fetch(base + path, { method, headers, body });
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
}

function answersDiffer(name: string, floor: Asked, api: Asked): Error {
  return new Error(
    `${name}: the floor server answers otherwise than the API (status ${floor.status}/${api.status}, ` +
      `${floor.type}/${api.type}, ${floor.text.length}/${api.text.length} characters): ${floor.text.slice(0, 200)}`,
  );
}

const sameAnswer = (a: Asked, b: Asked) => a.status === b.status && a.type === b.type && a.text === b.text;

/**
 * The floor server must answer as the API does (status, content type and body, byte for byte),
 * for the first few request bodies, or its figures would be those of another answer.
 */
export async function checkFloor(scenario: { name: string; request: LoadRequest }, baseUrl: string, floorUrl: string): Promise<void> {
  const { request } = scenario;
  const bodies = request.bodies?.length ? request.bodies.slice(0, 5) : [undefined];
  await checkFloorRequests(
    scenario.name,
    bodies.map((body) => ({ method: request.method, path: request.path, headers: request.headers, body })),
    baseUrl,
    floorUrl,
  );
}

/** One request of a bench: a scripted client's method and headers with one of its steps. */
export interface FloorRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | undefined;
}

/** As checkFloor, for requests that each name their own path (the questionnaire bench's scripted clients). */
export async function checkFloorRequests(name: string, requests: readonly FloorRequest[], baseUrl: string, floorUrl: string): Promise<void> {
  for (const { method, path, headers, body } of requests) {
    const api = await ask(baseUrl, method, path, headers, body);
    const floor = await ask(floorUrl, method, path, headers, body);
    if (!sameAnswer(api, floor)) throw answersDiffer(name, floor, api);
  }
}

/**
 * The column an upsert sets to the clock of its own transaction (the `_100_set_updated_at`
 * trigger): the one value in which two writes of the same record differ.
 */
export const CLOCK_COLUMN = 'updated_at';

const CLOCK_VALUE = new RegExp(`"${CLOCK_COLUMN}":"[^"]*"`, 'g');
const withoutClock = (text: string) => text.replace(CLOCK_VALUE, `"${CLOCK_COLUMN}":"…"`);

/** The id of the one row an upsert answered. */
function upsertedId(name: string, answer: Asked): string {
  const rows: unknown = answer.status === 201 ? JSON.parse(answer.text) : undefined;
  const id = Array.isArray(rows) && rows.length === 1 ? (rows[0] as { id?: unknown }).id : undefined;
  if (typeof id !== 'string') throw new Error(`${name}: the API answered ${answer.status} ${answer.text.slice(0, 200)}, not one upserted row`);
  return id;
}

/** What a check of an upsert reads from the database: the stored row of `table` (SQL), its clock left out. */
export interface StoredRows {
  pool: pg.Pool;
  table: string;
}

async function storedWithoutClock(stored: StoredRows, id: string): Promise<string> {
  const { rows } = await stored.pool.query<{ row: string | null }>(`select (to_jsonb(t) - '${CLOCK_COLUMN}')::text as row from ${stored.table} t where id = $1`, [id]);
  return rows[0]?.row ?? 'no row';
}

/**
 * The same check for an upsert of a record that already exists, which cannot be byte for byte
 * across two writes: each answers the stored row with its own transaction's clock. For each
 * request the API writes, then the floor writes the same record again, and:
 *  - status and content type are the same, and the bodies are the same byte for byte once the
 *    clock's value is left out of both;
 *  - the floor's answer is, byte for byte with its clock, the record as the API then reads it
 *    (`GET <path>?id=eq.<id>` as the same person: the read relation and select list of the read
 *    back);
 *  - the row stored in the table is the same after each write, clock left out, scores included
 *    (a patient's answer hides the scores, so the answers alone could not show them wrong).
 */
export async function checkUpsertFloor(name: string, requests: readonly FloorRequest[], baseUrl: string, floorUrl: string, stored: StoredRows): Promise<void> {
  for (const { method, path, headers, body } of requests) {
    const api = await ask(baseUrl, method, path, headers, body);
    const id = upsertedId(name, api);
    const storedByApi = await storedWithoutClock(stored, id);
    const floor = await ask(floorUrl, method, path, headers, body);
    if (floor.status !== api.status || floor.type !== api.type || withoutClock(floor.text) !== withoutClock(api.text)) {
      throw answersDiffer(name, floor, api);
    }
    const { prefer: _prefer, 'content-type': _type, ...readHeaders } = headers;
    const read = await ask(baseUrl, 'GET', `${path}?id=eq.${id}`, readHeaders);
    if (floor.text !== read.text) {
      throw new Error(`${name}: the floor server's answer is not the record as the API reads it after the write: ${floor.text.slice(0, 200)} / ${read.text.slice(0, 200)}`);
    }
    if ((await storedWithoutClock(stored, id)) !== storedByApi) throw new Error(`${name}: the floor server stored another row than the API: ${storedByApi.slice(0, 300)}`);
  }
}
