/**
 * The HTTP floor of the workspace bench (issue "Speed at clinic scale", item 4: where a target
 * cannot be reached on 2 cores, show by measurement where the floor is): a bare `node:http`
 * server, no Fastify, no PostGraphile, no hooks, that answers the paths the API answers with
 * one statement each, with the same bytes, by sending PostgreSQL the same message the API sends,
 * built by the server's own functions:
 *
 *   GET /api/auth/users/me           readAsUser with the profile's JSON statement (auth/service.ts getProfileJson)
 *   GET /api/my_messages?…           the REST grammar, buildSelect and queryOnceAsUser (rest/routes.ts read)
 *   POST /api/graphql, a web document recognise() and readCompiled of compiled-lists.ts
 *
 * What it leaves out is exactly what the API adds: routing and hooks, token verification, rate
 * limits, the GraphQL guard, logging. It takes the person from a fixed token → user id mapping
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
import { PROFILE_COLUMNS, PROFILE_JSON } from '../src/server/auth/service';
import { MY_MESSAGES } from '../src/server/collections';
import { queryOnceAsUser, readAsUser, type Identity } from '../src/server/db/transaction';
import { readCompiled, recognise } from '../src/server/graphql/compiled-lists';
import { GRAPHQL_PATH } from '../src/server/graphql/preset';
import { negotiateMedia, parseQuery, parseRangeHeader, resolveWindow } from '../src/server/rest/grammar';
import { compileRegistry, type CompiledCollection } from '../src/server/rest/registry';
import { contentRange, rangeStatus } from '../src/server/rest/routes';
import { buildSelect } from '../src/server/rest/sql';
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
  const rows = await readAsUser<{ json: string }>(pool, identity, PROFILE_JSON);
  if (!rows[0]) return { status: 404, headers: { 'content-type': JSON_TYPE }, body: '{"error":"user_not_found"}' };
  return { status: 200, headers: { 'content-type': JSON_TYPE }, body: rows[0].json };
}

/** A REST read as rest/routes.ts read() builds it: no count, no singular object (the bench sends neither). */
async function restRead(pool: pg.Pool, collection: CompiledCollection, identity: Identity, search: string, request: http.IncomingMessage): Promise<Answer> {
  const query = parseQuery(search);
  const media = negotiateMedia(request.headers.accept);
  const window = resolveWindow(query, parseRangeHeader(request.headers.range), collection.maxRows);
  const statement = buildSelect(collection, { select: query.select, where: query.where, order: query.order, window, stripNulls: media.stripNulls });
  const [rows] = await queryOnceAsUser(pool, identity, [statement]);
  const { body, n } = rows!.rows[0] as { body: string; n: number };
  return { status: rangeStatus(window.offset, n, null), headers: { 'content-type': JSON_TYPE, 'content-range': contentRange(window.offset, n, null) }, body };
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

async function route(pool: pg.Pool, myMessages: CompiledCollection, users: ReadonlyMap<string, string>, request: http.IncomingMessage): Promise<Answer> {
  const identity = identityOf(request, users);
  if (!identity) return { status: 401, headers: { 'content-type': JSON_TYPE }, body: '{"error":"unknown token"}' };
  const url = request.url ?? '/';
  const question = url.indexOf('?');
  const path = question < 0 ? url : url.slice(0, question);
  const search = question < 0 ? '' : url.slice(question + 1);
  if (request.method === 'GET' && path === '/api/auth/users/me') return me(pool, identity);
  if (request.method === 'GET' && path === '/api/my_messages') return restRead(pool, myMessages, identity, search, request);
  if (request.method === 'POST' && path === GRAPHQL_PATH) return compiledDocument(pool, identity, request, await readBody(request));
  return { status: 404, headers: { 'content-type': JSON_TYPE }, body: '{"error":"the floor server does not answer this"}' };
}

/** Starts the floor server on a free local port, answering as the people of `users` (token → user id). */
export async function startFloorServer(pool: pg.Pool, users: ReadonlyMap<string, string>): Promise<FloorServer> {
  const myMessages = compileRegistry([MY_MESSAGES]).get('my_messages')!;
  const server = http.createServer((request, response) => {
    route(pool, myMessages, users, request).then(
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

/**
 * The floor server must answer as the API does (status, content type and body, byte for byte),
 * for the first few request bodies, or its figures would be those of another answer.
 */
export async function checkFloor(scenario: { name: string; request: LoadRequest }, baseUrl: string, floorUrl: string): Promise<void> {
  const { request } = scenario;
  const bodies = request.bodies?.length ? request.bodies.slice(0, 5) : [undefined];
  for (const body of bodies) {
    const ask = async (base: string) => {
      const response = await fetch(base + request.path, { method: request.method, headers: request.headers, body });
      return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
    };
    const api = await ask(baseUrl);
    const floor = await ask(floorUrl);
    if (api.status !== floor.status || api.type !== floor.type || api.text !== floor.text) {
      throw new Error(
        `${scenario.name}: the floor server answers otherwise than the API (status ${floor.status}/${api.status}, ` +
          `${floor.type}/${api.type}, ${floor.text.length}/${api.text.length} characters): ${floor.text.slice(0, 200)}`,
      );
    }
  }
}
