/**
 * Rules of the task screens (issue 6): the staff list's filter as it lives in the address and
 * the query it becomes, due windows in the person's time zone, where a patient's task is done,
 * and a task form's values turned into Camunda-typed variables for
 * POST /api/workflow/rest/task/{id}/submit-form. Pure, so the unit tests pin every rule.
 */
import { dayKey, fromLocalInput } from './format';
import type { MeasurementTime } from './measurements';

/** Candidate groups of BPMN user tasks (docs/WORKFLOW.md), in the order the filter offers them. */
export const TASK_GROUPS = ['patients', 'therapists', 'interviewers', 'supervisors', 'supporters', 'counselors', 'coordinators'] as const;
export type TaskGroup = (typeof TASK_GROUPS)[number];

export const TASK_DUE_WINDOWS = ['any', 'today', 'week'] as const;
export type TaskDueWindow = (typeof TASK_DUE_WINDOWS)[number];

export const TASK_SORTS = ['due', 'priority', 'created'] as const;
export type TaskSort = (typeof TASK_SORTS)[number];

/** Open tasks a staff list page shows at once. */
export const TASK_PAGE_SIZE = 50;

export interface TaskListFilter {
  due: TaskDueWindow;
  overdue: boolean;
  group: TaskGroup | '';
  caseSearch: string;
  sort: TaskSort;
  offset: number;
}

function oneOf<T extends string>(allowed: readonly T[], value: string | null, fallback: T): T {
  return value !== null && (allowed as readonly string[]).includes(value) ? (value as T) : fallback;
}

/** The filter from the address; anything unknown falls back to the default instead of failing. */
export function readTaskFilter(params: URLSearchParams): TaskListFilter {
  return {
    due: oneOf(TASK_DUE_WINDOWS, params.get('due'), 'any'),
    overdue: params.get('overdue') === '1',
    group: oneOf<TaskGroup | ''>(['', ...TASK_GROUPS], params.get('group'), ''),
    caseSearch: (params.get('case') ?? '').slice(0, 100),
    sort: oneOf(TASK_SORTS, params.get('sort'), 'due'),
    offset: Math.max(0, Math.floor(Number(params.get('offset'))) || 0),
  };
}

/** The address of a filter: defaults are left out, so the plain list has a plain address. */
export function writeTaskFilter(filter: TaskListFilter): URLSearchParams {
  const params = new URLSearchParams();
  if (filter.due !== 'any') params.set('due', filter.due);
  if (filter.overdue) params.set('overdue', '1');
  if (filter.group) params.set('group', filter.group);
  if (filter.caseSearch.trim()) params.set('case', filter.caseSearch.trim());
  if (filter.sort !== 'due') params.set('sort', filter.sort);
  if (filter.offset) params.set('offset', String(filter.offset));
  return params;
}

/** Midnight at the start of the calendar day `days` after today, in the person's zone. */
export function startOfDayAfter(now: Date, timeZone: string, days: number): Date {
  const [year, month, day] = dayKey(now, timeZone).split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1, day + days));
  const local = `${target.toISOString().slice(0, 10)}T00:00`;
  return fromLocalInput(local, timeZone) ?? target;
}

/**
 * The end of a due window: "today" is due before tomorrow begins, "week" before the day after
 * the next seven days begins (a rolling week: where a week starts differs between the Arab world
 * and Germany, and "the next 7 days" means the same to everyone). Overdue tasks are due in
 * either window.
 */
export function dueBefore(window: TaskDueWindow, now: Date, timeZone: string): Date | null {
  if (window === 'today') return startOfDayAfter(now, timeZone, 1);
  if (window === 'week') return startOfDayAfter(now, timeZone, 8);
  return null;
}

/** The arguments of the GraphQL query openWorkflowTasks (db/migrations/0014). */
export function taskQueryVariables(filter: TaskListFilter, now: Date, timeZone: string) {
  const before = dueBefore(filter.due, now, timeZone);
  return {
    dueBefore: before ? before.toISOString() : null,
    overdue: filter.overdue,
    groupName: filter.group || null,
    caseSearch: filter.caseSearch.trim() || null,
    sort: filter.sort.toUpperCase() as Uppercase<TaskSort>,
    first: TASK_PAGE_SIZE,
    offset: filter.offset,
  };
}

export function isOverdue(due: string | Date | null | undefined, now: Date): boolean {
  if (!due) return false;
  return new Date(due).getTime() < now.getTime();
}

/**
 * Where a patient does a task of the trial (workflows/trial.bpmn): the feature whose action
 * completes it (the questionnaires send screeningCompleted or <time>MeasurementCompleted, a booking
 * sends interviewBooked). Patient tasks are never completed by hand from /due: ticking off
 * "fill in the screening questionnaires" without filling them in would skip the screening.
 */
const PATIENT_TASK_PATHS: Record<string, string> = {
  screeningTask: '/messungen/screening',
  bookTask: '/interviews/booking',
  preTask: '/messungen/pre',
  postTask: '/messungen/post',
  fu1Task: '/messungen/fu1',
  fu2Task: '/messungen/fu2',
  // The sessions' work is done in the worksheets; the task completes when the therapist closes
  // the treatment (src/server/workflow/task-hooks.ts, TASKS_COMPLETED_WITH).
  patientTreatmentTask: '/all-exercises',
  // One worksheet the treatment assigned (workflows/treatment-modules.bpmn): sending it completes it.
  worksheetTask: '/all-exercises',
  // The counseling (workflows/counseling.bpmn): the patient reads the counselor's letters; the
  // task completes when the counselor closes the counseling.
  counselingPatientTask: '/treatment/past-letters',
};

/** The trial's questionnaire tasks and the time of measurement each stands for. */
const MEASUREMENT_TASK_TIMES: Record<string, MeasurementTime> = {
  screeningTask: 'screening',
  preTask: 'pre',
  postTask: 'post',
  fu1Task: 'fu1',
  fu2Task: 'fu2',
};

/**
 * The times of measurement the workflow says are due now, from the person's open tasks, with
 * the earliest due date of each (null when the task has none): /frageboegen puts them first.
 */
export function dueMeasurementTimes(tasks: readonly { taskDefinitionKey: string; due: string | null }[]): Map<MeasurementTime, string | null> {
  const due = new Map<MeasurementTime, string | null>();
  for (const task of tasks) {
    const time = MEASUREMENT_TASK_TIMES[task.taskDefinitionKey];
    if (!time) continue;
    const known = due.get(time);
    if (known === undefined || (task.due !== null && (known === null || Date.parse(task.due) < Date.parse(known)))) due.set(time, task.due);
  }
  return due;
}

export interface DueTask {
  id: string;
  taskDefinitionKey: string;
  candidateGroups: readonly (string | null)[];
}

/** Where a due task is done: the patient's feature, or the task screen for staff tasks. */
export function dueTaskPath(task: DueTask, isStaff: boolean): string | null {
  const patientTask = task.candidateGroups.includes('patients');
  if (patientTask) return PATIENT_TASK_PATHS[task.taskDefinitionKey] ?? null;
  return isStaff ? `/admin/tasks/${task.id}` : null;
}

// Task forms -----------------------------------------------------------------------------------------

/** camunda:formField of a task, as the engine stores it in workflow_tasks.form_fields. */
export interface TaskFormField {
  id: string;
  label?: string;
  type: string;
  defaultValue?: string;
  values?: { id: string; name?: string }[];
}

export type FormValues = Record<string, string | boolean>;
export type CamundaVariables = Record<string, { value: string | number | boolean; type: 'String' | 'Long' | 'Boolean' | 'Date' }>;
export type FormFieldError = 'required' | 'wholeNumber' | 'notAChoice' | 'date' | 'unsupported';

/** The form types the task screen renders; anything else is shown but cannot be submitted. */
export const SUPPORTED_FORM_TYPES = ['string', 'long', 'boolean', 'enum', 'date'] as const;

export function isSupportedField(field: TaskFormField): boolean {
  return (SUPPORTED_FORM_TYPES as readonly string[]).includes(field.type);
}

/** What the form shows first: the field's default value, booleans false without one. */
export function initialFormValues(fields: readonly TaskFormField[]): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    if (field.type === 'boolean') values[field.id] = field.defaultValue === 'true';
    else values[field.id] = field.defaultValue ?? '';
  }
  return values;
}

/** Camunda's date format, 2027-03-28T22:00:00.000+0000 (UTC). */
export function camundaDate(date: Date): string {
  return date.toISOString().replace('Z', '+0000');
}

/**
 * The form's values as Camunda-typed variables, or the errors per field. Every field must be
 * filled: the engine keeps no validation constraints of camunda:formData, and an empty answer
 * would silently take a process's default path (an interview outcome left empty would end the
 * trial as "register again later"). A date is the start of that day in the person's zone.
 */
export function formVariables(
  fields: readonly TaskFormField[],
  values: FormValues,
  timeZone: string,
): { ok: true; variables: CamundaVariables } | { ok: false; errors: Record<string, FormFieldError> } {
  const variables: CamundaVariables = {};
  const errors: Record<string, FormFieldError> = {};
  for (const field of fields) {
    const raw = values[field.id];
    if (field.type === 'boolean') {
      variables[field.id] = { value: raw === true, type: 'Boolean' };
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (!isSupportedField(field)) {
      errors[field.id] = 'unsupported';
    } else if (text === '') {
      errors[field.id] = 'required';
    } else if (field.type === 'long') {
      if (!/^-?\d{1,15}$/.test(text)) errors[field.id] = 'wholeNumber';
      else variables[field.id] = { value: Number(text), type: 'Long' };
    } else if (field.type === 'enum') {
      if (!(field.values ?? []).some((choice) => choice.id === text)) errors[field.id] = 'notAChoice';
      else variables[field.id] = { value: text, type: 'String' };
    } else if (field.type === 'date') {
      const start = /^\d{4}-\d{2}-\d{2}$/.test(text) ? fromLocalInput(`${text}T00:00`, timeZone) : null;
      if (!start) errors[field.id] = 'date';
      else variables[field.id] = { value: camundaDate(start), type: 'Date' };
    } else {
      variables[field.id] = { value: text, type: 'String' };
    }
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, variables };
}

/** A typed variable as text for the task screen (values of any type, dates as given). */
export function variableText(variable: { value: unknown; type?: string }): string {
  const { value } = variable;
  if (value === null || value === undefined) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export type TypedValue = { value: string; type: 'String' } | { value: number; type: 'Long' | 'Double' } | { value: boolean; type: 'Boolean' } | { value: null; type: 'Null' };

/**
 * A value as a typed workflow variable (spec §9 "Numbers: Long if integer, else Double"): the
 * engine compares a Long 3 and a Double 3.5 differently, so the type follows the value.
 */
export function typedValue(value: string | number | boolean | null): TypedValue {
  if (value === null) return { value: null, type: 'Null' };
  if (typeof value === 'boolean') return { value, type: 'Boolean' };
  if (typeof value === 'number') return { value, type: Number.isInteger(value) ? 'Long' : 'Double' };
  return { value, type: 'String' };
}
