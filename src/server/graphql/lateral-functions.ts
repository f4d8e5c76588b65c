/**
 * Lets PostGraphile join a row-returning computed column (a function of the row, such as
 * `cases_latest_message(c)` or `cases_patient(c)`) into the statement of a list read from a
 * set-returning function (`caseList`, `pagedCases`, `interviewOffersFrom`), instead of sending
 * it as a second statement with every row of the page passed back as JSON.
 *
 * @dataplan/pg 1.1 refuses that join when the list has an "implicit order" (a set-returning
 * function's own ORDER BY), because an ordinary join could reorder the rows, but allows it for
 * a LATERAL join, whose nested loop keeps the outer rows in their order. Its PgSelectStep means
 * to make every select from a function lateral (`joinAsLateral = option ?? !!resource.parameters`),
 * but the option's default of `false` makes that fallback dead, so function selects are never
 * lateral. This sets the flag as that line intends, for selects from functions that return one
 * row, before the step optimizes (where the join is decided). A function in FROM that refers to
 * an earlier item is lateral in PostgreSQL anyway, so the SQL means the same.
 *
 * Measured (bench/workspace-cpu.ts, case list of 40 cases): 4 statements → 1 per request;
 * see docs/decisions/0030-case-list-read-path.md.
 */
import { PgSelectStep } from '@dataplan/pg';

const PATCHED = Symbol.for('sanad.lateralFunctionSelects');

export function joinFunctionRowsLaterally(): void {
  const prototype = PgSelectStep.prototype as unknown as Record<symbol | string, unknown> & { optimize: (...args: unknown[]) => unknown };
  if (prototype[PATCHED]) return;
  const optimize = prototype.optimize;
  /** The fields read here; private in the library's types. */
  type SelectFields = { joinAsLateral: boolean; isUnique: boolean; resource: { parameters?: unknown } };
  prototype.optimize = function (this: SelectFields, ...args: unknown[]) {
    if (!this.joinAsLateral && this.isUnique && this.resource.parameters) this.joinAsLateral = true;
    return optimize.apply(this, args);
  };
  prototype[PATCHED] = true;
}
