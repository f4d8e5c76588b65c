/**
 * Errors a person can act on. Route code throws these; the app's error handler turns them into
 * JSON `{error, message, fields?}` with the given status. Anything else becomes a 500 with no
 * internals in the body.
 */
import type { FieldErrors } from '../../domain/accounts';
import { isDatabaseError, refusalForDatabaseError, type Refusal } from '../../domain/refusals';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    /** Stable machine-readable code, translated by the web app. */
    readonly code: string,
    message: string,
    readonly fields?: FieldErrors,
    readonly extra?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (code: string, message: string, fields?: FieldErrors) => new HttpError(400, code, message, fields);
export const unauthorized = (code: string, message: string, extra?: Record<string, unknown>) =>
  new HttpError(401, code, message, undefined, extra);
export const forbidden = (code: string, message: string) => new HttpError(403, code, message);
export const notFound = (code: string, message: string) => new HttpError(404, code, message);
export const conflict = (code: string, message: string, fields?: FieldErrors) => new HttpError(409, code, message, fields);

/**
 * The refusal a database error stands for (src/domain/refusals.ts: code, status, a sentence
 * without database texts), or undefined when it is not the request's fault. Every route family
 * (the app's handler, REST, GraphQL, the workflow routes) answers refusals through this.
 */
export function databaseRefusal(error: unknown, signedIn = true): Refusal | undefined {
  return isDatabaseError(error) ? refusalForDatabaseError(error, signedIn) : undefined;
}

/** An HttpError for a database refusal, for handlers that wrap a database error themselves. */
export function refusalError(error: unknown): HttpError | undefined {
  const refusal = databaseRefusal(error);
  return refusal && new HttpError(refusal.status, refusal.code, refusal.message);
}
