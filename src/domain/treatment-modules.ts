/**
 * Treatment modules (issue 14 item 2): which worksheets a treatment arm assigns as patient tasks,
 * and in which week of the treatment each is due. Configured per arm code (TREATMENT_MODULES, or
 * workflows/treatment-modules.json): `{"<arm>": [{"worksheet": "cbt_thoughts", "week": 1}, …]}`.
 * Pure: parsing with messages a person can act on, and the due date of a module.
 */
import { WORKSHEET_CODES, type WorksheetCode } from './worksheets';

export interface TreatmentModule {
  worksheet: WorksheetCode;
  /** The week of the treatment (1 = the first) at whose end the worksheet is due. */
  week: number;
}
export type TreatmentModules = Record<string, TreatmentModule[]>;

const DAY_MS = 24 * 3_600_000;

/** Parses and checks the configuration; throws an Error naming the setting and the bad entry. */
export function parseTreatmentModules(raw: unknown, source: string): TreatmentModules {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`${source} must be a JSON object of treatment arm codes, each with a list of {"worksheet", "week"}`);
  }
  const result: TreatmentModules = {};
  for (const [arm, list] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^.{1,64}$/.test(arm)) throw new Error(`${source}: the arm code "${arm}" must have 1 to 64 characters`);
    if (!Array.isArray(list)) throw new Error(`${source}: arm "${arm}" must have a list of modules`);
    const seen = new Set<string>();
    result[arm] = list.map((entry: unknown, index) => {
      const where = `${source}: arm "${arm}", module ${index + 1}`;
      if (!entry || typeof entry !== 'object') throw new Error(`${where} must be an object {"worksheet", "week"}`);
      const { worksheet, week } = entry as Record<string, unknown>;
      if (typeof worksheet !== 'string' || !(WORKSHEET_CODES as readonly string[]).includes(worksheet)) {
        throw new Error(`${where}: unknown worksheet "${String(worksheet)}"; use one of ${WORKSHEET_CODES.join(', ')}`);
      }
      if (typeof week !== 'number' || !Number.isInteger(week) || week < 1 || week > 104) {
        throw new Error(`${where}: "week" must be a whole number from 1 to 104`);
      }
      // One task per worksheet and arm: sending a worksheet completes the task of that worksheet.
      if (seen.has(worksheet)) throw new Error(`${where}: the worksheet "${worksheet}" is assigned twice`);
      seen.add(worksheet);
      return { worksheet: worksheet as WorksheetCode, week };
    });
  }
  return result;
}

/** The modules of an arm (none for an arm without configuration). */
export function modulesOfArm(modules: TreatmentModules, arm: string): TreatmentModule[] {
  return Object.hasOwn(modules, arm) ? modules[arm]! : [];
}

/** A module is due at the end of its week, counted from the start of the treatment. */
export function moduleDue(treatmentStart: Date, week: number): Date {
  return new Date(treatmentStart.getTime() + week * 7 * DAY_MS);
}
