/**
 * PostGraphile 5 over app_public with the classic (v4) names the spec's operations use
 * (allCases, caseById, updateCaseMessageById, …). Every request runs as the role and user id
 * of its verified bearer token, so row-level security decides what GraphQL can see or change.
 */
import type pg from 'pg';
import { postgraphile, type PostGraphileInstance } from 'postgraphile';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { makeV4Preset } from 'postgraphile/presets/v4';
import { makePgService } from 'postgraphile/adaptors/pg';
import type { FastifyRequest } from 'fastify';
import { GraphQLError } from 'postgraphile/graphql';
import { defaultMaskError } from 'postgraphile/grafserv';
import { REFUSAL_MESSAGES, refusalForDatabaseError } from '../../domain/refusals';
import { ANONYMOUS, pgSettingsFor } from '../db/transaction';
import { joinFunctionRowsLaterally } from './lateral-functions';
import { oneReadTransactionPerQuery, withOneMessageSetup } from './pg-adaptor';
import { InlineCaseColumnsPlugin } from './inline-columns';
import { NOT_FOUND_OR_DENIED, NOT_FOUND_OR_DENIED_MESSAGE, RefuseHiddenRowsPlugin } from './refuse-hidden-rows';
import { isDatabaseUnavailable } from '../db/availability';
import { DATABASE_RETRY_SECONDS, DATABASE_UNAVAILABLE_MESSAGE } from '../http/unavailable';

export const GRAPHQL_PATH = '/api/graphql';
export const GRAPHIQL_PATH = '/api/graphiql';

export interface GraphqlOptions {
  pool: pg.Pool;
  graphiql: boolean;
  maxRequestLength: number;
  /** Hardening (issue 16): the longest planning and execution of one request, in ms (0: none). */
  requestTimeoutMs?: number;
  /** Issue 28: hears errors that say the database cannot be reached (the availability monitor). */
  onDatabaseUnavailable?: (error: unknown) => void;
}

/**
 * Database errors that describe the request, not the server (a denied permission, a broken
 * constraint, a rule raised by a SQL function), reach the client with their SQLSTATE (or the
 * rule's own code) as `extensions.code`, the refusal's stable code as `extensions.refusal` and
 * its sentence (src/domain/refusals.ts), never PostgreSQL's text; anything else is masked and
 * logged with an id.
 */
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** A database error the one mapping (src/domain/refusals.ts) calls the request's fault: the same set for every route family. */
const isClientError = (original: { code: string; message?: string; constraint?: string; hint?: string }) =>
  SQLSTATE.test(original.code) && refusalForDatabaseError({ ...original, message: original.message ?? '' }) !== undefined;

/**
 * Errors PostgreSQL raises before our functions run, for input they would refuse anyway: the
 * same code as the function's own check, so a client handles one code.
 */
const INPUT_ERRORS: { code: string; message: RegExp; rule: string; text: string }[] = [
  {
    code: '22000',
    message: /^range lower bound must be less than or equal to range upper bound/,
    rule: 'END_BEFORE_START',
    text: 'The end of a time slot must be after its start',
  },
];

export function maskError(error: GraphQLError, onDatabaseUnavailable?: (error: unknown) => void): GraphQLError {
  // Issue 28: the database is gone, not the request wrong; the GraphQL scope turns this code into a 503.
  if (isDatabaseUnavailable(error.originalError)) {
    onDatabaseUnavailable?.(error.originalError);
    return new GraphQLError(DATABASE_UNAVAILABLE_MESSAGE, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: DATABASE_RETRY_SECONDS },
    });
  }
  // PostGraphile's own "No values were deleted/updated in collection …": same answer as ours.
  if (/^No values were (deleted|updated) in collection/.test(error.message)) {
    return new GraphQLError(NOT_FOUND_OR_DENIED_MESSAGE, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: NOT_FOUND_OR_DENIED },
    });
  }
  const original = error.originalError as { code?: unknown; message?: string; constraint?: string; hint?: string } | undefined;
  if (original && typeof original.code === 'string' && isClientError({ ...original, code: original.code })) {
    const known = INPUT_ERRORS.find((e) => e.code === original.code && e.message.test(original.message ?? ''));
    if (known) {
      return new GraphQLError(known.text, {
        nodes: error.nodes,
        source: error.source,
        positions: error.positions,
        path: error.path,
        extensions: { code: known.rule, refusal: 'end_before_start' },
      });
    }
    // A rule raised by our SQL names itself in the hint (e.g. NOT_INVOLVED): that is the code.
    const code = original.code === 'P0001' && original.hint && /^[A-Z][A-Z_]+$/.test(original.hint) ? original.hint : original.code;
    const refusal = refusalForDatabaseError({ ...original, code: original.code, message: original.message ?? '' });
    return new GraphQLError(refusal?.message ?? REFUSAL_MESSAGES.rule_refused, {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code, refusal: refusal?.code ?? 'rule_refused' },
    });
  }
  return defaultMaskError(error) as GraphQLError;
}

export function makePreset(options: GraphqlOptions): GraphileConfig.Preset {
  return {
    extends: [
      PostGraphileAmberPreset,
      makeV4Preset({
        simpleCollections: 'both',
        dynamicJson: true,
        setofFunctionsContainNulls: false,
        ignoreRBAC: false,
      }),
    ],
    // Introspect as the request role, so the API offers only what sanad_user was granted
    // (column-level update grants become the patch types).
    // speed (issue 17): per-case columns read as inlined subqueries (inline-columns.ts); a query
    // request's selects share one read transaction (pg-adaptor.ts).
    plugins: [RefuseHiddenRowsPlugin, InlineCaseColumnsPlugin, oneReadTransactionPerQuery(options.pool)],
    pgServices: [
      // speed (issue 17): withOneMessageSetup opens each statement's transaction in one round trip.
      withOneMessageSetup(
        makePgService({ pool: options.pool, schemas: ['app_public'], pubsub: false, pgSettingsForIntrospection: { role: 'sanad_user' } }),
        options.pool,
      ),
    ],
    grafserv: {
      graphqlPath: GRAPHQL_PATH,
      graphiqlPath: GRAPHIQL_PATH,
      graphiql: options.graphiql,
      graphiqlOnGraphQLGET: false,
      maxRequestLength: options.maxRequestLength,
      websockets: false,
      maskError: (error) => maskError(error, options.onDatabaseUnavailable),
    },
    grafast: {
      // Hardening (issue 16): planning blocks the event loop, so it gets a small share of the
      // request time-out; execution stops starting new database steps once the time is up.
      ...(options.requestTimeoutMs ? { timeouts: { planning: Math.min(5000, options.requestTimeoutMs), execution: options.requestTimeoutMs } } : {}),
      // The identity was verified by the onRequest hook in app.ts; it is never read from
      // anything the client could set directly.
      context(requestContext) {
        const request = requestContext.fastifyv5?.request as FastifyRequest | undefined;
        return { pgSettings: pgSettingsFor(request?.identity ?? ANONYMOUS) };
      },
    },
  };
}

export function createGraphql(options: GraphqlOptions): PostGraphileInstance {
  // speed (issue 17): row-returning computed columns join into list statements (lateral-functions.ts).
  joinFunctionRowsLaterally();
  return postgraphile(makePreset(options));
}
