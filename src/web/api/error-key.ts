/**
 * Which catalog entry explains a failed request. The server names the refusal itself (REST and
 * the account routes: `error`; GraphQL: `extensions.refusal`), mapped once in
 * src/domain/refusals.ts; older answers carry the SQLSTATE or a rule's own code, read here by
 * the same mapping. The screens translate the key with refusalKeys (`refusals.*`, then the
 * older `errorCodes.*`).
 */
import type { ApiError } from './client';
import { REFUSAL_CODES, RULE_REFUSAL_CODES, refusalCodeForConstraint, ruleCode } from '../../domain/refusals';

const BY_CODE: Record<string, string> = {
  '42501': 'forbidden',
  '23505': 'duplicate',
  '23514': 'value_not_allowed',
  '23502': 'value_required',
  '23503': 'reference_missing',
  '22001': 'too_long',
};

/** Every key errorKey can produce besides a code passed through, for the catalog test. */
export const ERROR_KEYS = [...new Set([...RULE_REFUSAL_CODES, 'too_long'])];
/** The refusal codes of src/domain/refusals.ts (`refusals.*`), for the catalog test. */
export const REFUSAL_KEYS = REFUSAL_CODES;

export function errorKey(error: Pick<ApiError, 'code' | 'message' | 'body'>): string {
  if (typeof error.body?.refusal === 'string') return error.body.refusal;
  const constraint = typeof error.body?.constraint === 'string' ? error.body.constraint : '';
  const byConstraint = constraint ? refusalCodeForConstraint(constraint) : undefined;
  if (byConstraint) return byConstraint;
  // A rule's own code (NOT_INVOLVED): its older translated name.
  if (RULE_REFUSAL_CODES.includes(ruleCode(error.code)) && /^[A-Z_]+$/.test(error.code)) return ruleCode(error.code);
  if (error.code === 'P0001') return 'rule_refused';
  if (BY_CODE[error.code]) return BY_CODE[error.code]!;
  if (/^22/.test(error.code)) return 'invalid_value';
  return error.code;
}
