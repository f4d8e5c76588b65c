/**
 * Errors a person can act on. Route code throws these; the app's error handler turns them into
 * JSON `{error, message, fields?}` with the given status. Anything else becomes a 500 with no
 * internals in the body.
 */
import type { FieldErrors } from '../../domain/accounts';

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

/** The 4xx status of a PostgreSQL error that describes the request, or undefined. */
export function inputSqlStatus(error: unknown): number | undefined {
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (typeof code !== 'string' || typeof severity !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return undefined;
  if (code === '23505' || code === '23503') return 409;
  if (code === '42501') return 403;
  if (code.startsWith('22') || code.startsWith('23') || code === 'P0001') return 400;
  return undefined;
}
