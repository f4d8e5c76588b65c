/**
 * Seeded fuzzing (issue 16): bad and odd inputs over the REST grammar, GraphQL, the account
 * routes and the workflow routes, as anonymous callers, a patient and a coordinator. Every
 * answer must be below 500, and no stored row may change. Bounded by time (FUZZ_SECONDS, 40 by
 * default) and count; FUZZ_SEED repeats a run, and a failure names its seed and request.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { appCollections } from '../../src/server/collections';
import { scheduleFromSettings } from '../../src/domain/measurements';
import { startTestApp, type TestApp } from '../helpers/app';
import { dice, type Dice } from '../helpers/random';

const SEED = Number(process.env.FUZZ_SEED ?? 16);
const SECONDS = Number(process.env.FUZZ_SECONDS ?? 40);
const MAX_REQUESTS = 4000;

type Random = Dice;

const WEIRD_STRINGS = [
  '', ' ', "'", '"', '\\', '%', '%00', '\u0000', 'null', 'true', '-1', '1e309', '9999999999999999999999', 'NaN', '0x10',
  '2026-13-45', '2026-02-30T25:61:00Z', 'infinity', '-infinity', '{', '}', '{a,b}', '{"a":1}', '[]', '(', ')', '()', '.',
  ',', '*', 'a*b', '((((', 'eq.', 'not.', 'is.maybe', 'in.(', 'in.(1,2', 'cs.{', 'ov.}', "'; drop table x; --", 'ص'.repeat(300),
  '𝕏'.repeat(50), 'a'.repeat(5000), 'constructor', '__proto__', 'toString', 'hasOwnProperty', 'prototype', '$1', '$$', ':a',
  '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '12345678-1234-1234-1234-12345678901',
];
const PROTOTYPE_KEYS = ['constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'isPrototypeOf'];

function weirdValue(r: Random, depth = 0): unknown {
  switch (r.int(depth > 2 ? 6 : 9)) {
    case 0:
      return r.pick(WEIRD_STRINGS);
    case 1:
      return r.pick([0, -1, 1.5, 2 ** 31, 2 ** 53 + 1, -(2 ** 63), 1e308, 3]);
    case 2:
      return r.pick([true, false, null]);
    case 3:
      return crypto.randomUUID();
    case 4:
      return `${r.pick(WEIRD_STRINGS)}${r.int(1000)}`;
    case 5:
      return r.pick(['2026-01-01', '2026-01-01T10:00:00Z', 'Asia/Baghdad', 'ar', 'xx']);
    case 6:
      return Array.from({ length: r.int(4) }, () => weirdValue(r, depth + 1));
    default:
      return weirdObject(r, depth + 1);
  }
}

function weirdObject(r: Random, depth = 0, keys: readonly string[] = []): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  const count = r.int(5);
  for (let i = 0; i < count; i++) {
    const key = r.next() < 0.5 && keys.length > 0 ? r.pick(keys) : r.next() < 0.3 ? r.pick(PROTOTYPE_KEYS) : r.pick(WEIRD_STRINGS).slice(0, 40);
    Object.defineProperty(object, key, { value: weirdValue(r, depth), enumerable: true, writable: true, configurable: true });
  }
  return object;
}

/** A value as query-string text (objects may carry a `toString` key, so no String()). */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? '';
}

interface FuzzRequest {
  method: string;
  path: string;
  body?: string;
  headers?: Record<string, string>;
  who: 'anonymous' | 'patient' | 'coordinator';
}

let t: TestApp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await startTestApp();
  const patient = await t.user({ flags: ['patient'] });
  const coordinator = await t.user({ flags: ['coordinator'] });
  tokens.patient = patient.token;
  tokens.coordinator = coordinator.token;
  await t.graphql(`mutation($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { title: "fuzz" } }) { case { id } } }`, { id: patient.caseId }, coordinator.token);
});
afterAll(async () => {
  await t?.close();
});

/** A digest of every stored row in app_public: equal digests, unchanged data. */
async function digest(): Promise<Record<string, string>> {
  const { rows: tables } = await t.database.db.pool.query<{ name: string }>(
    `select quote_ident(n.nspname) || '.' || quote_ident(c.relname) as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname = 'app_public' order by 1`,
  );
  const result: Record<string, string> = {};
  for (const { name } of tables) {
    const { rows } = await t.database.db.pool.query(`select count(*)::int as n, md5(coalesce(string_agg(x::text, '|' order by x::text), '')) as h from ${name} x`);
    result[name] = `${rows[0].n}:${rows[0].h}`;
  }
  return result;
}

const collections = appCollections(scheduleFromSettings({}));

/** REST: filters, logic trees, select, order, limit and Range over the real collections; writes that must fail. */
function restRequest(r: Random): FuzzRequest {
  const collection = r.next() < 0.9 ? r.pick(collections) : { name: r.pick(['nope', 'pg_user', '..', 'my_messages%00']), columns: {} as Record<string, string> };
  const columns = Object.keys(collection.columns);
  const column = () => (r.next() < 0.8 && columns.length > 0 ? r.pick(columns) : r.pick(WEIRD_STRINGS).slice(0, 30));
  const operator = () => r.pick(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'imatch', 'in', 'is', 'cs', 'cd', 'ov', 'isdistinct', 'fts', 'sl', 'xx', 'not.eq', 'not.in', 'eq(any)', 'like(all)']);
  const value = () => asText(weirdValue(r));
  const params = new URLSearchParams();
  const parts = r.int(5);
  for (let i = 0; i < parts; i++) {
    switch (r.int(7)) {
      case 0:
        params.append('select', Array.from({ length: 1 + r.int(3) }, () => (r.next() < 0.3 ? `${column()}:${column()}` : column())).join(','));
        break;
      case 1:
        params.append('order', `${column()}.${r.pick(['asc', 'desc', 'up', ''])}.${r.pick(['nullsfirst', 'nullslast', 'x'])}`);
        break;
      case 2:
        params.append(r.pick(['limit', 'offset']), r.pick(['-1', '0', '10', '1e9', 'abc', '99999999999999999999']));
        break;
      case 3:
        params.append(r.pick(['or', 'and', 'not.or']), `(${column()}.${operator()}.${value()},${r.pick(['and(', 'or(', ''])}${column()}.${operator()}.${value()})`);
        break;
      default:
        params.append(column(), `${operator()}.${value()}`);
    }
  }
  const headers: Record<string, string> = {};
  if (r.next() < 0.3) headers.prefer = r.pick(['count=exact', 'count=planned', 'return=representation', 'resolution=merge-duplicates', 'tx=rollback', 'x']);
  if (r.next() < 0.2) headers.range = r.pick(['0-24', '5-1', 'a-b', '-3', '0-99999999999']);
  const query = params.toString();
  const path = `/api/${collection.name}${query ? `?${query}` : ''}`;
  if (r.next() < 0.75) return { method: r.pick(['GET', 'GET', 'HEAD']), path, headers, who: r.pick(['anonymous', 'patient', 'coordinator']) };
  // Writes: as people who may not write these rows, or with bodies no collection accepts.
  const body = r.next() < 0.5 ? JSON.stringify(Array.from({ length: 1 + r.int(3) }, () => weirdObject(r, 0, columns))) : JSON.stringify(weirdObject(r, 0, columns));
  const method = r.pick(['POST', 'DELETE', 'PATCH', 'PUT']);
  const idFilter = method === 'DELETE' ? `${query ? '&' : '?'}id=eq.${crypto.randomUUID()}` : '';
  return { method, path: path + idFilter, body, headers: { ...headers, 'content-type': r.pick(['application/json', 'application/json', 'text/plain']) }, who: r.pick(['anonymous', 'patient']) };
}

const ROOT_FIELDS = ['allCasesList', 'allCases', 'caseById', 'currentUser', 'allUsersList', 'caseList', 'pagedCases', 'userById', 'allCaseMessagesList', 'interviewOffersFrom', 'nope'];
const MUTATIONS = ['updateCaseById', 'createCaseMember', 'deleteCaseMemberById', 'updateCaseMessageById', 'createCaseMessage', 'updateUserById', 'cancelOffer', 'nope'];

function graphqlLiteral(r: Random): string {
  const value = weirdValue(r, 2);
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return `{ ${Object.keys(value).map((k) => `${k.replace(/\W/g, '') || 'x'}: 1`).join(' ')} }`;
  return JSON.stringify(value);
}

/** GraphQL: random root fields, arguments of the wrong type, deep nesting, broken syntax, odd variables. */
function graphqlRequest(r: Random): FuzzRequest {
  let query: string;
  const variables = r.next() < 0.5 ? weirdObject(r) : r.pick([null, [], 'x', 1, { id: crypto.randomUUID() }]);
  switch (r.int(6)) {
    case 0:
      query = r.pick(['{', '}', '{ a { b }', 'query', 'mutation { }', '{ __typename', 'subscription { x }', '{ ...F }', 'fragment F on Case { id }', '#', '\u0000']);
      break;
    case 1: {
      let inner = 'id';
      for (let i = 0; i < r.int(30); i++) inner = `caseMembersByCaseIdList { caseByCaseId { ${inner} } }`;
      query = `{ allCasesList(first: ${r.pick([-1, 0, 1, 2 ** 31, 99999])}) { ${inner} } }`;
      break;
    }
    case 2:
      query = `mutation { ${r.pick(MUTATIONS)}(input: { id: "${crypto.randomUUID()}", ${r.pick(['casePatch', 'caseMember', 'patch', 'x'])}: ${graphqlLiteral(r)} }) { clientMutationId } }`;
      break;
    case 3:
      query = `query Q($id: UUID!, $n: Int) { ${r.pick(ROOT_FIELDS)}(id: $id, first: $n) { id } }`;
      break;
    case 4:
      query = `{ ${Array.from({ length: 1 + r.int(80) }, (_, i) => `a${i}: ${r.pick(ROOT_FIELDS)}${r.next() < 0.5 ? `(${r.pick(['first', 'offset', 'id', 'search', 'condition', 'orderBy'])}: ${graphqlLiteral(r)})` : ''} { id }`).join(' ')} }`;
      break;
    default:
      query = `{ ${r.pick(ROOT_FIELDS)}(${r.pick(['first', 'offset', 'id', 'search', 'since', 'orderBy', 'condition', 'filter'])}: ${graphqlLiteral(r)}) { ${r.pick(['id', 'nodes { id }', '__typename', 'x'])} } }`;
  }
  const bodyKind = r.int(10);
  const body = bodyKind === 0 ? r.pick(['', '[]', 'null', '{"query":1}', '{"query":"{ currentUser { id } }","variables":"x"}', '{', JSON.stringify([{ query }])]) : JSON.stringify({ query, variables, ...(r.next() < 0.2 ? { operationName: r.pick(['Q', 'X', '', null, 7]) } : {}) });
  if (r.next() < 0.1) return { method: 'GET', path: `/api/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`, who: r.pick(['anonymous', 'patient']) };
  return { method: 'POST', path: '/api/graphql', body, headers: { 'content-type': r.pick(['application/json', 'application/json', 'application/graphql', 'text/plain']) }, who: r.pick(['anonymous', 'patient', 'coordinator']) };
}

const ACCOUNT_ROUTES: [string, string, readonly string[]][] = [
  ['POST', '/api/auth/users/register', ['user']],
  ['POST', '/api/auth/users/confirm', ['token']],
  ['POST', '/api/auth/users/resend-confirmation', ['email']],
  ['POST', '/api/auth/tokens', ['username', 'email', 'password']],
  ['GET', '/api/auth/users/me', []],
  ['PATCH', '/api/auth/users/me', ['alias', 'phone', 'locale', 'timeZone', 'gender']],
  ['PUT', '/api/auth/password', ['currentPassword', 'newPassword']],
  ['POST', '/api/auth/password-reset', ['email']],
  ['POST', '/api/auth/password-reset/confirm', ['token', 'password']],
  ['POST', '/api/auth/email-change', ['newEmail', 'password']],
  ['POST', '/api/auth/email-change/confirm', ['token']],
];

/** Account routes: bodies with prototype keys, wrong types, huge and odd values. Always one unknown key for the routes that would change a profile. */
function accountRequest(r: Random): FuzzRequest {
  const [method, path, keys] = r.pick(ACCOUNT_ROUTES);
  const object = weirdObject(r, 0, keys);
  if (path.endsWith('/users/me') || path.endsWith('/register')) Object.defineProperty(object, r.pick(PROTOTYPE_KEYS), { value: 'x', enumerable: true });
  const body = r.next() < 0.1 ? r.pick(['', '{', '[]', '"x"', 'null', '{"a":' + '['.repeat(2000)]) : JSON.stringify(object);
  return { method, path, body, headers: { 'content-type': r.pick(['application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded']) }, who: r.pick(['anonymous', 'patient']) };
}

/** Workflow routes: the Camunda subset with unknown ids, malformed typed variables and odd query parameters. */
function workflowRequest(r: Random): FuzzRequest {
  const id = r.next() < 0.7 ? crypto.randomUUID() : encodeURIComponent(r.pick(WEIRD_STRINGS).slice(0, 40));
  const [method, path] = r.pick([
    ['POST', '/process-definition/key/trial/start'],
    ['POST', `/process-definition/key/${encodeURIComponent(r.pick(WEIRD_STRINGS).slice(0, 20))}/start`],
    ['POST', '/message'],
    ['POST', '/signal'],
    ['POST', `/task/${id}/submit-form`],
    ['POST', `/execution/${id}/signal`],
    ['GET', `/task/${id}`],
    ['GET', `/process-instance/${id}/variables?deserializeValues=${r.pick(['true', 'false', 'maybe'])}`],
    ['GET', `/task?${r.pick(['processInstanceId', 'assignee', 'caseId', 'x'])}=${encodeURIComponent(asText(weirdValue(r)))}`],
    ['GET', `/${r.pick(['job', 'history', 'deployment', '..'])}`],
  ] as const);
  const variables: Record<string, unknown> = {};
  for (let i = 0; i < r.int(4); i++) {
    variables[r.pick(['caseId', 'x', 'constructor', 'toString', ''])] = r.next() < 0.5 ? { value: weirdValue(r), type: r.pick(['String', 'Integer', 'Boolean', 'Json', 'Object', 'Date', 'x']) } : weirdValue(r);
  }
  const body = JSON.stringify(r.next() < 0.7 ? { variables, messageName: r.pick(['x', '', 'constructor']), name: r.pick(['s', '']), businessKey: weirdValue(r), processInstanceId: id, startInstructions: r.pick([undefined, [], [{}]]) } : weirdValue(r));
  return { method, path: `/api/workflow/rest${path}`, ...(method === 'POST' ? { body, headers: { 'content-type': 'application/json' } } : {}), who: r.pick(['anonymous', 'patient']) };
}

it('no input gets a 5xx, and no stored row changes', { timeout: (SECONDS + 60) * 1000 }, async () => {
  const before = await digest();
  const r = dice(SEED);
  const generators = [restRequest, graphqlRequest, accountRequest, workflowRequest];
  const failures: string[] = [];
  const counts = { total: 0, byStatus: {} as Record<number, number> };
  const deadline = Date.now() + SECONDS * 1000;
  while (Date.now() < deadline && counts.total < MAX_REQUESTS) {
    const request = r.pick(generators)(r);
    const headers: Record<string, string> = { ...request.headers };
    if (request.who !== 'anonymous') headers.authorization = `Bearer ${tokens[request.who]}`;
    const response = await fetch(t.url + request.path, { method: request.method, headers, ...(request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD' ? { body: request.body } : {}) });
    const text = await response.text();
    counts.total += 1;
    counts.byStatus[response.status] = (counts.byStatus[response.status] ?? 0) + 1;
    if (response.status >= 500 && failures.length < 10) {
      failures.push(`#${counts.total} (seed ${SEED}) ${request.who} ${request.method} ${request.path} ${(request.body ?? '').slice(0, 300)} → ${response.status} ${text.slice(0, 200)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(counts.total).toBeGreaterThan(200);
  expect(await digest()).toEqual(before);
  console.log(`fuzz: ${counts.total} requests, statuses ${JSON.stringify(counts.byStatus)}`);
});
