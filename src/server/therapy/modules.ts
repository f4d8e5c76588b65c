/**
 * Service-task handler of the treatment-modules process (workflows/treatment-modules.bpmn),
 * run inside the workflow step's transaction like every handler.
 *
 * - `treatmentModulesPlan`: for the arm in `treatment`, queues one instance of the process per
 *   configured worksheet (variables `worksheet`, `worksheetDue`, `treatment`), each due at the end
 *   of its week counted from `treatmentStart` (the assignment's time; the step's time if absent).
 * - `treatmentModulesEnd` (workflows/trial.bpmn, when the treatment phase ends normally): queues
 *   the internal message `treatmentEnded` for the case's processes, which ends the worksheet
 *   tasks still open, as `dropout` does when a patient drops out. Only the server sends it
 *   (workflow_calls, migration 0085).
 */
import type { Config } from '../config';
import { modulesOfArm, moduleDue } from '../../domain/treatment-modules';
import type { Handler, HandlerRegistry } from '../workflow/handlers';
import type pg from 'pg';
import { withOwner } from '../db/transaction';

export function treatmentModuleHandlers(modules: Config['treatmentModules']): HandlerRegistry {
  const treatmentModulesPlan: Handler = async ({ sql, caseId, variables, now }) => {
    const arm = variables.treatment?.value;
    if (typeof arm !== 'string' || arm === '') throw new Error('treatmentModulesPlan needs the variable "treatment"');
    const startValue = variables.treatmentStart?.value;
    const start = typeof startValue === 'string' && !Number.isNaN(Date.parse(startValue)) ? new Date(startValue) : now;
    for (const module of modulesOfArm(modules, arm)) {
      await sql.query(`select app_hidden.request_workflow_start($1, 'treatment-modules', $2, $3::jsonb)`, [
        caseId,
        module.worksheet,
        JSON.stringify({ treatment: arm, worksheet: module.worksheet, worksheetDue: moduleDue(start, module.week).toISOString() }),
      ]);
    }
    return { plannedModules: modulesOfArm(modules, arm).length };
  };
  const treatmentModulesEnd: Handler = async ({ sql, caseId }) => {
    await sql.query(`select app_hidden.notify_workflow($1, 'treatmentEnded')`, [caseId]);
  };
  return { treatmentModulesPlan, treatmentModulesEnd };
}

/**
 * Issue 27 item 3: the database decides which worksheets a randomized patient may use, so it
 * holds each arm's sheets (app_public.arm_worksheets). At start the configured modules replace
 * the table's rows in one transaction, so the rule and the planned tasks never disagree.
 */
export async function syncArmWorksheets(pool: pg.Pool, modules: Config['treatmentModules']): Promise<void> {
  const rows = Object.entries(modules).flatMap(([arm, list]) => list.map((m) => ({ arm, worksheet: m.worksheet, week: m.week })));
  await withOwner(pool, async (sql) => {
    await sql.query('delete from app_public.arm_worksheets');
    await sql.query(
      `insert into app_public.arm_worksheets (arm, worksheet, week)
       select r.arm, r.worksheet, r.week from jsonb_to_recordset($1::jsonb) as r(arm text, worksheet text, week integer)`,
      [JSON.stringify(rows)],
    );
  });
}
