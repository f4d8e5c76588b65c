/**
 * Structured JSON logs (pino). Bodies are never logged; headers and fields that could carry
 * secrets are redacted, so the log can be shipped to any collector.
 */
import pino, { type Logger } from 'pino';
import type { Config } from './config';
import { requestIdMixin } from './http/request-id';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.token',
  '*.encoded',
];

/** The server's logger; `destination` (default stdout) lets a test read the lines. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'sanad' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Issue 28: lines written while a request runs carry its id (http/request-id.ts).
    mixin: requestIdMixin,
  };
  return destination ? pino(options, destination) : pino(options);
}
