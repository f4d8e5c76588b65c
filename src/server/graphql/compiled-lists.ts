/**
 * The web's case lists and case screen answered by one SQL statement (docs/decisions/
 * 0030-case-list-read-path.md).
 *
 * Why: for PagedCases (200 cases with three nested people lists) grafast spends several times
 * the Node CPU that reading the rows costs (planning steps, an output plan per field, the
 * payload's stringification); PostgreSQL can build the same JSON in the statement that reads
 * the rows. So for exactly the three documents of src/domain/case-list-operations.ts and
 * CaseWithMessages of src/domain/case-operations.ts, sent by the web app as written, the answer
 * is one call of a function of migration 0107 or 0108, whose JSON text is passed on without
 * being parsed.
 *
 * The request is answered here only when PostGraphile would answer it without an error and the
 * answer is the same: a POST of JSON whose query is one of the texts exactly, the operation
 * name that text's or none, only the document's variables, each of its type and within what
 * GraphQL and the function accept (a search without NUL, a positive `first`, a non-negative
 * `offset`, 32-bit integers, an `id` that is a UUID), from a signed-in person, asking for a media type grafserv would
 * choose without doubt. Anything else, and a read that fails, goes on to PostGraphile, which
 * answers and errs as before. The hook runs after identity, rate limits and the GraphQL guard
 * (registered after them); the read has the GraphQL read's settings (pgSettingsFor, generic
 * plans as pg-adaptor gives the case lists), in one message: the transaction's setup, the
 * prepared statement's execution and the commit (readCompiled).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CASE_LIST_QUERY, PAGED_CASES_QUERY, SHORT_PAGED_CASES_QUERY } from '../../domain/case-list-operations';
import { CASE_WITH_MESSAGES_QUERY } from '../../domain/case-operations';
import type pg from 'pg';
import { queryOnceAsUser } from '../db/transaction';
import { GRAPHQL_PATH } from './preset';

type Variables = Record<string, unknown>;

export interface CompiledList {
  operationName: string;
  /** The root field's name in the answer. */
  rootField: string;
  /**
   * The statement, prepared under its name on each connection that runs it (an SQL identifier:
   * queryOnceAsUser executes it by name); its values come from `values`.
   */
  statement: { name: string; text: string };
  /** The statement's values from the request's variables, or undefined when PostGraphile must answer. */
  values(variables: Variables): unknown[] | undefined;
}

const INT_MAX = 2 ** 31 - 1;

/** A search or stage: absent or null (null), or a string PostgreSQL can hold as text (no NUL). */
function optionalText(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' && !value.includes('\u0000') ? value : undefined;
}

/** An Int variable with a default: absent gives the default; null or anything outside [min, 2³¹−1] is not taken. */
function intIn(value: unknown, fallback: number, min: number): number | undefined {
  if (value === undefined) return fallback;
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= INT_MAX ? value : undefined;
}

/** A Boolean variable with a default: absent gives the default; null is not taken. */
function booleanOr(value: unknown, fallback: boolean): boolean | undefined {
  if (value === undefined) return fallback;
  return typeof value === 'boolean' ? value : undefined;
}

function onlyKeys(variables: Variables, allowed: readonly string[]): boolean {
  return Object.keys(variables).every((key) => allowed.includes(key));
}

const PAGED_VARIABLES = ['filterUnassigned', 'search', 'stage', 'first', 'offset'] as const;

/** pagedCases' values ($1–$5), with the document's defaults (first 200, offset 0). */
function pagedValues(variables: Variables): unknown[] | undefined {
  if (!onlyKeys(variables, PAGED_VARIABLES)) return undefined;
  const values = [
    booleanOr(variables.filterUnassigned, false),
    optionalText(variables.search),
    optionalText(variables.stage),
    intIn(variables.first, 200, 1),
    intIn(variables.offset, 0, 0),
  ];
  return values.includes(undefined) ? undefined : values;
}

const CASE_LIST_VARIABLES = ['search', 'stage', 'first', 'offset'] as const;

/** caseList's values ($1–$4), with the document's defaults (first 100, offset 0). */
function caseListValues(variables: Variables): unknown[] | undefined {
  if (!onlyKeys(variables, CASE_LIST_VARIABLES)) return undefined;
  const values = [optionalText(variables.search), optionalText(variables.stage), intIn(variables.first, 100, 1), intIn(variables.offset, 0, 0)];
  return values.includes(undefined) ? undefined : values;
}

/** A UUID as PostGraphile's UUID scalar takes it (hyphenated hex, any case); anything else is left to it. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** caseById's value ($1): the required `id`, a UUID, and no other variable. */
function caseValues(variables: Variables): unknown[] | undefined {
  if (!onlyKeys(variables, ['id'])) return undefined;
  return typeof variables.id === 'string' && UUID.test(variables.id) ? [variables.id] : undefined;
}

/** The four documents, by their exact text. */
export const COMPILED_LISTS: ReadonlyMap<string, CompiledList> = new Map([
  [
    PAGED_CASES_QUERY,
    {
      operationName: 'PagedCases',
      rootField: 'pagedCases',
      statement: { name: 'sanad_compiled_paged_cases', text: 'select app_hidden.paged_cases_page_json($1, $2, $3, $4, $5, true) as json' },
      values: pagedValues,
    },
  ],
  [
    SHORT_PAGED_CASES_QUERY,
    {
      operationName: 'ShortPagedCases',
      rootField: 'pagedCases',
      statement: { name: 'sanad_compiled_short_paged_cases', text: 'select app_hidden.paged_cases_page_json($1, $2, $3, $4, $5, false) as json' },
      values: pagedValues,
    },
  ],
  [
    CASE_LIST_QUERY,
    {
      operationName: 'CaseListWithMessageCounts',
      rootField: 'caseList',
      statement: { name: 'sanad_compiled_case_list', text: 'select app_hidden.case_list_page_json($1, $2, $3, $4) as json' },
      values: caseListValues,
    },
  ],
  [
    CASE_WITH_MESSAGES_QUERY,
    {
      operationName: 'CaseWithMessages',
      rootField: 'caseById',
      statement: { name: 'sanad_compiled_case_with_messages', text: 'select app_hidden.case_with_messages_json($1) as json' },
      values: caseValues,
    },
  ],
]);

/** grafserv's media types, in its order of preference (after the GraphQL-over-HTTP watershed). */
const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json;charset=utf-8';
const APPLICATION_JSON = 'application/json;charset=utf-8';

/**
 * The media type grafserv answers with, for the Accept headers whose choice is plain: none or
 * any (its first type), or exactly one of its two types. Other headers (lists, parameters,
 * weights) are left to grafserv.
 */
export function answerMediaType(accept: string | undefined): string | undefined {
  const wanted = accept?.trim().toLowerCase();
  if (wanted === undefined || wanted === '*/*' || wanted === 'application/graphql-response+json') return GRAPHQL_RESPONSE_JSON;
  if (wanted === 'application/json') return APPLICATION_JSON;
  return undefined;
}

interface GraphqlBody {
  query?: unknown;
  variables?: unknown;
  operationName?: unknown;
}

const BODY_KEYS = ['query', 'variables', 'operationName'];

export interface CompiledListsOptions {
  pool: pg.Pool;
  operations?: ReadonlyMap<string, CompiledList>;
}

/** What a request answered here needs: the operation, its values and the answer's media type. */
interface Recognised {
  operation: CompiledList;
  values: unknown[];
  mediaType: string;
}

/** The request, when it is one of the lists this path answers exactly as PostGraphile would. */
export function recognise(request: FastifyRequest, operations: ReadonlyMap<string, CompiledList> = COMPILED_LISTS): Recognised | undefined {
  if (request.method !== 'POST' || request.routeOptions.url !== GRAPHQL_PATH) return undefined;
  if (!request.identity?.userId) return undefined;
  const contentType = request.headers['content-type'];
  if (!contentType || contentType.split(';')[0]?.trim().toLowerCase() !== 'application/json') return undefined;
  const body = request.body as GraphqlBody | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.query !== 'string') return undefined;
  if (!Object.keys(body).every((key) => BODY_KEYS.includes(key))) return undefined;
  const operation = operations.get(body.query);
  if (!operation) return undefined;
  if (body.operationName != null && body.operationName !== operation.operationName) return undefined;
  const variables = body.variables ?? {};
  if (typeof variables !== 'object' || Array.isArray(variables)) return undefined;
  const values = operation.values(variables as Variables);
  if (!values) return undefined;
  const mediaType = answerMediaType(request.headers.accept);
  if (!mediaType) return undefined;
  return { operation, values, mediaType };
}

export class CompiledLists {
  private readonly operations: ReadonlyMap<string, CompiledList>;
  readonly stats = { answered: 0, failed: 0 };

  constructor(private readonly options: CompiledListsOptions) {
    this.operations = options.operations ?? COMPILED_LISTS;
  }

  /** Adds the hook to `app`; register it after the GraphQL guard and the read cache. */
  register(app: FastifyInstance): void {
    app.addHook('preHandler', (request, reply) => this.answer(request, reply));
  }

  /** Sends the answer and returns the reply (Fastify then skips the route), or nothing to go on to PostGraphile. */
  private async answer(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const recognised = recognise(request, this.operations);
    if (!recognised) return undefined;
    const { operation, values, mediaType } = recognised;
    let json: string;
    try {
      json = await this.read(request.identity.userId!, operation, values);
    } catch (error) {
      // PostGraphile reads it again and answers with its own error (a time-out, a refusal).
      this.stats.failed++;
      request.log.warn({ err: error, operation: operation.operationName }, 'compiled case list read failed; PostGraphile answers');
      return undefined;
    }
    this.stats.answered++;
    return reply
      .status(200)
      .header('content-type', mediaType)
      .header('x-sanad-compiled-list', operation.operationName)
      .send(`{"data":{"${operation.rootField}":${json}}}`);
  }

  /** The root field's JSON text, read as the person with the GraphQL read's settings. */
  private read(userId: string, operation: CompiledList, values: unknown[]): Promise<string> {
    return readCompiled(this.options.pool, userId, operation, values);
  }
}

/**
 * A compiled document's JSON text, read as the person: the transaction, its settings (those
 * PostGraphile's reads get, and generic plans), the prepared statement's execution and the
 * commit in one message, one round trip (the statement is prepared once per connection).
 */
export async function readCompiled(pool: pg.Pool, userId: string, operation: CompiledList, values: unknown[]): Promise<string> {
  const [result] = await queryOnceAsUser(pool, { userId }, [{ ...operation.statement, values }], 'sanad_user', { genericPlans: true });
  const json = (result?.rows[0] as { json?: unknown } | undefined)?.json;
  if (typeof json !== 'string') throw new Error(`${operation.statement.name} gave no JSON`);
  return json;
}
