/**
 * What the task screens ask the server: open tasks through GraphQL (db/migrations/0014:
 * openWorkflowTasks, myDueTasks, mayComplete), the workflow reads of spec §7 as REST
 * collections, and the Camunda REST calls of spec §7 — a failed one shows a browser alert with
 * the status and the response body as text (spec §8).
 */
import type { TaskFormField, TaskListFilter, CamundaVariables } from '../../../domain/workflow-tasks';
import { taskQueryVariables } from '../../../domain/workflow-tasks';
import { taskLogQuery, type RunningProcess, type TaskLogEntry } from '../../../domain/workflow-reads';
import { api, graphql, readToken } from '../../api/client';

export const WORKFLOW_REST = '/api/workflow/rest';

export interface TaskRow {
  id: string;
  name: string | null;
  taskDefinitionKey: string;
  candidateGroups: (string | null)[];
  assignee: string | null;
  due: string | null;
  priority: number;
  created: string;
  caseId: string;
  caseByCaseId: { id: string; shortId: string } | null;
}

const TASK_ROW = 'id name taskDefinitionKey candidateGroups assignee due priority created caseId caseByCaseId { id shortId }';

export interface TaskPage {
  totalCount: number;
  nodes: TaskRow[];
}

export async function loadOpenTasks(filter: TaskListFilter, now: Date, timeZone: string): Promise<TaskPage> {
  const data = await graphql<{ openWorkflowTasks: TaskPage }>(
    `query OpenWorkflowTasks($dueBefore: Datetime, $overdue: Boolean, $groupName: String, $caseSearch: String, $sort: WorkflowTaskSort, $first: Int, $offset: Int) {
      openWorkflowTasks(dueBefore: $dueBefore, overdue: $overdue, groupName: $groupName, caseSearch: $caseSearch, sort: $sort, first: $first, offset: $offset) {
        totalCount nodes { ${TASK_ROW} }
      }
    }`,
    taskQueryVariables(filter, now, timeZone),
  );
  return data.openWorkflowTasks;
}

export async function loadMyDueTasks(): Promise<TaskRow[]> {
  const data = await graphql<{ myDueTasksList: TaskRow[] }>(`query MyDueTasks { myDueTasksList { ${TASK_ROW} } }`);
  return data.myDueTasksList;
}

/** The open tasks of one case, soonest due first (the case detail page). */
export async function loadCaseTasks(caseId: string): Promise<TaskRow[]> {
  const data = await graphql<{ allWorkflowTasksList: TaskRow[] }>(
    `query CaseTasks($caseId: UUID!) { allWorkflowTasksList(condition: { caseId: $caseId, endTime: null }, orderBy: [DUE_ASC, CREATED_ASC]) { ${TASK_ROW} } }`,
    { caseId },
  );
  return data.allWorkflowTasksList;
}

export interface TaskDetail extends TaskRow {
  owner: string | null;
  followUp: string | null;
  endTime: string | null;
  deleteReason: string | null;
  formFields: TaskFormField[];
  mayComplete: boolean | null;
  processInstanceId: string;
  caseByCaseId: { id: string; shortId: string; stage: string } | null;
  workflowInstanceByProcessInstanceId: { id: string; definitionKey: string; definitionVersion: number; businessKey: string | null; state: string; startTime: string } | null;
}

export async function loadTask(id: string): Promise<TaskDetail | null> {
  const data = await graphql<{ workflowTaskById: TaskDetail | null }>(
    `query WorkflowTask($id: UUID!) {
      workflowTaskById(id: $id) {
        ${TASK_ROW} owner followUp endTime deleteReason formFields mayComplete processInstanceId
        caseByCaseId { id shortId stage }
        workflowInstanceByProcessInstanceId { id definitionKey definitionVersion businessKey state startTime }
      }
    }`,
    { id },
  );
  return data.workflowTaskById;
}

export type TypedVariables = Record<string, { value: unknown; type?: string }>;

/** The process variables, for the care staff of the case and coordinators; null for others. */
export async function loadProcessVariables(processInstanceId: string): Promise<TypedVariables | null> {
  const response = await workflowFetch('GET', `/process-instance/${encodeURIComponent(processInstanceId)}/variables`);
  if (!response.ok) return null;
  return (await response.json()) as TypedVariables;
}

async function workflowFetch(method: string, path: string, body?: unknown): Promise<Response> {
  const token = readToken();
  return fetch(WORKFLOW_REST + path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
}

export type WorkflowCallResult = { ok: true } | { ok: false; status: number; body: string };

/**
 * POST /task/{id}/submit-form (spec §7): success is 204. A failure with a response shows the
 * browser alert of spec §8 with the status and the body as text; the result also carries them,
 * so the screen can say it in the person's language and keep the form as it was.
 */
export async function submitTaskForm(taskId: string, variables: CamundaVariables): Promise<WorkflowCallResult> {
  let response: Response;
  try {
    response = await workflowFetch('POST', `/task/${encodeURIComponent(taskId)}/submit-form`, { variables });
  } catch {
    return { ok: false, status: 0, body: '' };
  }
  if (response.status === 204) return { ok: true };
  const body = await response.text();
  window.alert(`${response.status} ${body}`);
  return { ok: false, status: response.status, body };
}

// Workflow reads (spec §7) --------------------------------------------------------------------------

export interface DateEntry {
  id: string;
  case_id: string;
  process_instance_id: string;
  name: string;
  label: string | null;
  timestamp: string;
}

export function loadRunningProcesses(): Promise<RunningProcess[]> {
  return api<RunningProcess[]>('GET', '/api/my_running_processes');
}

export function loadDates(): Promise<DateEntry[]> {
  return api<DateEntry[]>('GET', '/api/my_dates');
}

export interface LoggedTask extends TaskLogEntry {
  case_id: string;
  task_definition_key: string;
  name: string | null;
  candidate_groups: string[];
  due: string | null;
  created: string;
  delete_reason: string | null;
}

/** One step of the incremental task log: the query follows what is known (spec §7). */
export function loadTaskLog(known: readonly LoggedTask[] | null): Promise<LoggedTask[]> {
  return api<LoggedTask[]>('GET', `/api/my_task_log?${taskLogQuery(known)}`);
}

// Failed workflow steps (db/migrations/0018) --------------------------------------------------------

export interface FailedJob {
  id: string;
  activityId: string;
  activityName: string | null;
  attempts: number;
  lastError: string | null;
  failedAt: string;
  caseByCaseId: { id: string; shortId: string } | null;
}

/** Steps whose handler failed too often, newest first: all for coordinators, their cases for care staff. */
export async function loadFailedJobs(): Promise<FailedJob[]> {
  const data = await graphql<{ failedWorkflowJobsList: FailedJob[] }>(
    `query FailedWorkflowJobs { failedWorkflowJobsList { id activityId activityName attempts lastError failedAt caseByCaseId { id shortId } } }`,
  );
  return data.failedWorkflowJobsList;
}

/**
 * PUT /job/{id}/retries with one retry: the step runs again at once, and if it fails again it is
 * marked failed again rather than retried for hours behind the person's back.
 */
export async function retryJob(id: string): Promise<WorkflowCallResult> {
  let response: Response;
  try {
    response = await workflowFetch('PUT', `/job/${encodeURIComponent(id)}/retries`, { retries: 1 });
  } catch {
    return { ok: false, status: 0, body: '' };
  }
  if (response.status === 204) return { ok: true };
  return { ok: false, status: response.status, body: await response.text() };
}
