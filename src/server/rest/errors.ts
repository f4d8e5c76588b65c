/**
 * Errors of the REST collections, in PostgREST's shape `{code, message, details, hint}` so that
 * PostgREST clients (postgrest-js, supabase-py, …) read them as they read PostgREST's own.
 * Codes follow PostgREST: `PGRSTnnn` for request problems found before the database is asked,
 * the SQLSTATE for errors the database raised.
 */
import { HttpError } from '../http/errors';
import { isDatabaseError, refusalForDatabaseError } from '../../domain/refusals';

export interface RestErrorBody {
  code: string;
  message: string;
  details: string | null;
  hint: string | null;
  /** Sanad's stable refusal code (src/domain/refusals.ts), which the web app translates. */
  error?: string;
}

/** A problem with the request that the client can fix; the status is always 4xx. */
export class RestError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string | null = null,
    readonly hint: string | null = null,
  ) {
    super(message);
    this.name = 'RestError';
  }

  body(): RestErrorBody {
    return { code: this.code, message: this.message, details: this.details, hint: this.hint, error: this.code };
  }
}

/** PGRST100: the query string does not follow the grammar. */
export class RestParseError extends RestError {
  constructor(message: string, details: string | null = null, hint: string | null = null) {
    super(400, 'PGRST100', message, details, hint);
    this.name = 'RestParseError';
  }
}

/** An unknown column in a filter, `select` or `order`: PostgreSQL's own wording (42703). */
export function undefinedColumn(collection: string, column: string): RestError {
  return new RestError(400, '42703', `column ${collection}.${column} does not exist`, null, null);
}

/** An unknown or read-only column in a request body: PostgREST's PGRST204. */
export function unwritableColumn(collection: string, column: string, known: boolean): RestError {
  return known
    ? new RestError(
        400,
        'PGRST204',
        `The '${column}' column of '${collection}' cannot be written`,
        'The server sets this column; leave it out of the request body.',
      )
    : new RestError(400, 'PGRST204', `Could not find the '${column}' column of '${collection}' in the schema cache`);
}

/**
 * The HTTP status PostgREST gives a SQLSTATE, for the errors that describe the request (bad
 * values, constraints, permissions, `raise exception`). Null: not the client's fault, so the
 * caller answers 500 without details.
 */
export function statusForSqlState(code: string, message: string, signedIn: boolean): number | null {
  if (code === '23505' || code === '23503') return 409; // unique and foreign key violations
  if (code === '42501') return signedIn ? 403 : 401;
  if (code === '21000' && message.endsWith('requires a WHERE clause')) return 400;
  if (code === '21000' && message.includes('cannot affect row a second time')) return 400; // one upsert, the same key twice
  if (code === '25006') return 405; // read-only transaction
  if (code === 'P0001') return 400; // `raise exception` in a policy helper or trigger
  const custom = /^PT([1-5]\d\d)$/.exec(code); // PostgREST's `raise sqlstate 'PT403'` convention
  if (custom) return Number(custom[1]);
  if (code.startsWith('22') || code.startsWith('23')) return 400; // data and integrity errors
  if (code.startsWith('28')) return 403; // invalid authorization specification
  return null;
}

export interface RestErrorResponse {
  status: number;
  body: RestErrorBody;
  headers: Record<string, string>;
  /** True when the error is ours rather than the client's: log it. */
  internal: boolean;
}

const INTERNAL_BODY: RestErrorBody = {
  code: 'internal',
  message: 'Something went wrong on our side. Please try again later.',
  details: null,
  hint: null,
  error: 'internal',
};

/** Fastify's codes for request-body problems, in PostgREST's terms. */
const FASTIFY_CODES: Record<string, { code: string; message: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'PGRST107', message: 'Send the request body as application/json.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'PGRST102', message: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'PGRST102', message: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'PGRST102', message: 'Empty or invalid json' },
};

function fieldSummary(error: HttpError): string | null {
  if (!error.fields) return null;
  return Object.entries(error.fields)
    .map(([field, problems]) => `${field}: ${problems.map((p) => p.message).join(' ')}`)
    .join('; ');
}

/** Turns anything a REST handler (or a hook before it) threw into the response to send. */
export function toRestErrorResponse(error: unknown, signedIn: boolean): RestErrorResponse {
  const withAuthHeader = (status: number): Record<string, string> => (status === 401 ? { 'www-authenticate': 'Bearer' } : {});
  if (error instanceof RestError) {
    return { status: error.status, body: error.body(), headers: withAuthHeader(error.status), internal: false };
  }
  if (error instanceof HttpError) {
    // Thrown by shared code (the token check, a collection's beforeWrite hook).
    const body = { code: error.code, message: error.message, details: fieldSummary(error), hint: null, error: error.code };
    return { status: error.statusCode, body, headers: withAuthHeader(error.statusCode), internal: error.statusCode >= 500 };
  }
  if (isDatabaseError(error)) {
    // PostgREST's status and SQLSTATE `code` for its clients; the sentence and `error` code of
    // the refusal instead of PostgreSQL's text, which names tables and constraints (issue 27).
    const status = statusForSqlState(error.code, error.message, signedIn);
    const refusal = refusalForDatabaseError(error, signedIn);
    if (status === null || !refusal) return { status: 500, body: INTERNAL_BODY, headers: {}, internal: true };
    const body = { code: error.code, message: refusal.message, details: null, hint: null, error: refusal.code };
    return { status, body, headers: withAuthHeader(status), internal: false };
  }
  const { statusCode, code, message } = error as { statusCode?: unknown; code?: unknown; message?: unknown };
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const known = typeof code === 'string' ? FASTIFY_CODES[code] : undefined;
    const body = {
      code: known?.code ?? (typeof code === 'string' ? code : 'PGRST000'),
      message: known?.message ?? (typeof message === 'string' ? message : 'The request is not valid.'),
      details: null,
      hint: null,
      error: known?.code ?? (typeof code === 'string' ? code : 'PGRST000'),
    };
    return { status: statusCode, body, headers: withAuthHeader(statusCode), internal: false };
  }
  return { status: 500, body: INTERNAL_BODY, headers: {}, internal: true };
}
