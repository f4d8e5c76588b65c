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
