/**
 * Which steps of the workflows a patient may see (issue 25): "My path" (/workflows) shows a
 * patient only the elements listed here, each with a text written for patients in the catalogs
 * (`patientPath.steps.<element id>`). Everything else stays hidden from patients: process ids
 * and business keys, the safety process (a patient must not read that a safety process runs on
 * them), reminders ("Overdue"), messages, variables and the English names of the BPMN files.
 *
 * A test reads every model in workflows/*.bpmn: each task for the group "patients" must be
 * listed here, every listed element must exist, and the safety process lists nothing.
 */
export type PatientFacingKind = 'task' | 'date';

/** Per process id (BPMN `process@id`): the element ids a patient sees, and as what. */
export const PATIENT_FACING: Readonly<Record<string, Readonly<Record<string, PatientFacingKind>>>> = {
  trial: {
    screeningTask: 'task',
    bookTask: 'task',
    preTask: 'task',
    patientTreatmentTask: 'task',
    postTask: 'task',
    fu1Task: 'task',
    fu2Task: 'task',
    fu1Wait: 'date',
    fu2Wait: 'date',
  },
  'treatment-modules': {
    worksheetTask: 'task',
  },
  counseling: {
    counselingPatientTask: 'task',
  },
};

/** Processes whose every element is hidden from patients. */
export const HIDDEN_FROM_PATIENTS: readonly string[] = ['safety'];

/** Whether element `elementId` of the process `definitionKey` is shown to patients as `kind`. */
export function isPatientFacing(definitionKey: string | null | undefined, elementId: string, kind: PatientFacingKind): boolean {
  if (!definitionKey || HIDDEN_FROM_PATIENTS.includes(definitionKey)) return false;
  return PATIENT_FACING[definitionKey]?.[elementId] === kind;
}

/** The catalog key of a patient-facing element's text. */
export function patientStepKey(elementId: string): string {
  return `patientPath.steps.${elementId}`;
}

/** Every element id listed (the catalogs need a text for each). */
export function patientFacingIds(): string[] {
  return [...new Set(Object.values(PATIENT_FACING).flatMap((elements) => Object.keys(elements)))];
}

/**
 * A task of the person's log: by its process when that is known; a task whose process is no
 * longer listed (an ended worksheet process) counts when a shown process lists its id as a task.
 * The safety process lists nothing, so its tasks never pass either way.
 */
export function isPatientFacingTask(definitionKey: string | null | undefined, taskKey: string): boolean {
  if (definitionKey) return isPatientFacing(definitionKey, taskKey, 'task');
  return Object.values(PATIENT_FACING).some((elements) => elements[taskKey] === 'task');
}
