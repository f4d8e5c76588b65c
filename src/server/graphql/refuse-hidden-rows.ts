/**
 * PostGraphile 5 answers an update or delete of a row that row-level security hides (or that
 * does not exist) with `null` and no error. A person deserves to know their change did not
 * happen, so every update and delete mutation raises a clear error when no row was affected.
 */
import { makeWrapPlansPlugin } from 'postgraphile/utils';
import { object, sideEffect, SafeError, type ObjectStep, type Step } from 'postgraphile/grafast';

export const NOT_FOUND_OR_DENIED = 'NOT_FOUND_OR_DENIED';
export const NOT_FOUND_OR_DENIED_MESSAGE = 'This record does not exist, or you are not allowed to change it.';

export const RefuseHiddenRowsPlugin = makeWrapPlansPlugin(
  (context) => {
    const scope = context.scope as { isPgUpdateMutation?: boolean; isPgDeleteMutation?: boolean };
    return scope.isPgUpdateMutation || scope.isPgDeleteMutation ? {} : null;
  },
  () => (plan) => {
    const $payload = plan() as ObjectStep<{ result: Step }>;
    const $row = $payload.getStepForKey('result');
    sideEffect($row, (row: unknown) => {
      if (row == null) {
        throw new SafeError(NOT_FOUND_OR_DENIED_MESSAGE, { code: NOT_FOUND_OR_DENIED });
      }
      return undefined;
    });
    // Created after the side effect, so it (and the payload fields) implicitly depend on it.
    return object({ result: $row });
  },
);
