/**
 * What the task screens ask the server: open tasks through GraphQL (db/migrations/0014:
 * openWorkflowTasks, myDueTasks, mayComplete), the workflow reads of spec §7 as REST
 * collections, and the Camunda REST calls of spec §7 — a failed one shows a browser alert with
 * the status and the response body as text (spec §8).
 */
import type { TaskFormField, TaskListFilter, CamundaVariables } from '../../../domain/workflow-tasks';
import { taskQueryVariables } from '../../../domain/workflow-tasks';
import { mergeTaskLog, taskLogQuery, type RunningProcess, type TaskLogEntry } from '../../../domain/workflow-reads';
import { queryOptions, type QueryClient } from '@tanstack/react-query';
import { api, readToken, sendSigned, signatureAsked } from '../../api/client';
import { graphql, request } from '../../api/graphql';
import { IDEMPOTENCY_HEADER, needsIdempotencyKey, newIdempotencyKey } from '../../api/idempotency';

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
  caseByCaseId: { id: string; shortId: string; patient?: TaskPerson | null } | null;
  assigneePerson?: TaskPerson | null;
}

/** A person a task row names: the patient of its case, its assignee (issue 26: names, not ids). */
export interface TaskPerson {
  id: string;
  alias: string | null;
  /** The patient's profile zone: a due time is named in both clocks when they read differently. */
  timeZone?: string | null;
}

const TaskRowFields = graphql(`fragment TaskRowFields on WorkflowTask {
  id name taskDefinitionKey candidateGroups assignee due priority created caseId
  caseByCaseId { id shortId patient { id alias timeZone } }
  assigneePerson { id alias }
}`);

export const OpenWorkflowTasks = graphql(
  `query OpenWorkflowTasks($dueBefore: Datetime, $overdue: Boolean, $groupName: String, $caseSearch: String, $sort: WorkflowTaskSort, $first: Int, $offset: Int) {
    openWorkflowTasks(dueBefore: $dueBefore, overdue: $overdue, groupName: $groupName, caseSearch: $caseSearch, sort: $sort, first: $first, offset: $offset) {
      totalCount nodes { ...TaskRowFields }
    }
  }`,
  [TaskRowFields],
);
export const MyDueTasks = graphql(`query MyDueTasks { myDueTasksList { ...TaskRowFields } }`, [TaskRowFields]);
export const CaseTasks = graphql(
  `query CaseTasks($caseId: UUID!) { allWorkflowTasksList(condition: { caseId: $caseId, endTime: null }, orderBy: [DUE_ASC, CREATED_ASC]) { ...TaskRowFields } }`,
  [TaskRowFields],
);
export const WorkflowTask = graphql(
  `query WorkflowTask($id: UUID!) {
    workflowTaskById(id: $id) {
      ...TaskRowFields owner followUp endTime deleteReason formFields mayComplete processInstanceId
      caseByCaseId { id shortId stage patient { id alias timeZone } }
      workflowInstanceByProcessInstanceId { id definitionKey definitionVersion businessKey state startTime }
    }
  }`,
  [TaskRowFields],
);
export const FailedWorkflowJobs = graphql(`query FailedWorkflowJobs { failedWorkflowJobsList { id activityId activityName attempts lastError failedAt caseByCaseId { id shortId } } }`);

export interface TaskPage {
  totalCount: number;
  nodes: TaskRow[];
}

export async function loadOpenTasks(filter: TaskListFilter, now: Date, timeZone: string): Promise<TaskPage> {
  const data = await request(OpenWorkflowTasks, taskQueryVariables(filter, now, timeZone) as never);
  return (data.openWorkflowTasks ?? { totalCount: 0, nodes: [] }) as TaskPage;
}

export async function loadMyDueTasks(): Promise<TaskRow[]> {
  const data = await request(MyDueTasks);
  return (data.myDueTasksList ?? []) as TaskRow[];
}

/** The open tasks of one case, soonest due first (the case detail page). */
export async function loadCaseTasks(caseId: string): Promise<TaskRow[]> {
  const data = await request(CaseTasks, { caseId });
  return (data.allWorkflowTasksList ?? []) as TaskRow[];
}

export interface TaskDetail extends TaskRow {
  owner: string | null;
  followUp: string | null;
  endTime: string | null;
  deleteReason: string | null;
  formFields: TaskFormField[];
  mayComplete: boolean | null;
  processInstanceId: string;
  caseByCaseId: { id: string; shortId: string; stage: string; patient?: TaskPerson | null } | null;
  workflowInstanceByProcessInstanceId: { id: string; definitionKey: string; definitionVersion: number; businessKey: string | null; state: string; startTime: string } | null;
}

export async function loadTask(id: string): Promise<TaskDetail | null> {
  const data = await request(WorkflowTask, { id });
  // formFields is JSON the workflow host wrote from the BPMN (src/server/workflow).
  return (data.workflowTaskById ?? null) as TaskDetail | null;
}

export type TypedVariables = Record<string, { value: unknown; type?: string }>;

/** The process variables, for the care staff of the case and coordinators; null for others. */
export async function loadProcessVariables(processInstanceId: string): Promise<TypedVariables | null> {
  const response = await workflowFetch('GET', `/process-instance/${encodeURIComponent(processInstanceId)}/variables`);
  if (!response.ok) return null;
  return (await response.json()) as TypedVariables;
}

/** A refusal for a signature the person did not give (they cancelled the signing dialog). */
function signatureCancelled(status: number, body: string): boolean {
  try {
    return signatureAsked(status, JSON.parse(body) as Record<string, unknown>) !== undefined;
  } catch {
    return false;
  }
}

async function workflowFetch(method: string, path: string, body?: unknown): Promise<Response> {
  const token = readToken();
  // Through sendSigned: completing a signed task (randomizing, closing a safety task) asks for
  // the person's electronic signature and repeats the call with it (issue 30).
  return sendSigned(WORKFLOW_REST + path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      // Issue 28: a completion sent twice completes once (the server replays the first answer).
      ...(needsIdempotencyKey(method, path, body) ? { [IDEMPOTENCY_HEADER]: newIdempotencyKey() } : {}),
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
  // A signature the person chose not to give is no failure to report (the screen says it).
  if (!signatureCancelled(response.status, body)) window.alert(`${response.status} ${body}`);
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
  const data = await request(FailedWorkflowJobs);
  return (data.failedWorkflowJobsList ?? []) as FailedJob[];
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

// Keys, queries and the refetch rule -----------------------------------------------------------------

/** Every workflow read lives under 'workflow', so "workflow data is refetched" is one call. */
export const workflowKeys = {
  all: ['workflow'] as const,
  open: (filter: TaskListFilter, timeZone: string) => ['workflow', 'open', filter, timeZone] as const,
  due: () => ['workflow', 'due'] as const,
  caseTasks: (caseId: string) => ['workflow', 'case', caseId] as const,
  task: (id: string) => ['workflow', 'task', id] as const,
  variables: (processInstanceId: string) => ['workflow', 'variables', processInstanceId] as const,
  processes: () => ['workflow', 'processes'] as const,
  log: () => ['workflow', 'log'] as const,
  failed: () => ['workflow', 'failed'] as const,
};

/**
 * Workflow screens also refetch when the person comes back to the tab: a task may have been
 * done elsewhere (by booking an interview, by a colleague).
 */
const onReturn = { refetchOnWindowFocus: true } as const;

export const openTasksQuery = (filter: TaskListFilter, timeZone: string) =>
  queryOptions({
    queryKey: workflowKeys.open(filter, timeZone),
    queryFn: async () => ({ at: new Date(), page: await loadOpenTasks(filter, new Date(), timeZone) }),
    ...onReturn,
  });
export const dueTasksQuery = () => queryOptions({ queryKey: workflowKeys.due(), queryFn: loadMyDueTasks, ...onReturn });
export const caseTasksQuery = (caseId: string) => queryOptions({ queryKey: workflowKeys.caseTasks(caseId), queryFn: () => loadCaseTasks(caseId), ...onReturn });
export const taskQuery = (id: string) => queryOptions({ queryKey: workflowKeys.task(id), queryFn: () => loadTask(id) });
export const variablesQuery = (processInstanceId: string) =>
  queryOptions({ queryKey: workflowKeys.variables(processInstanceId), queryFn: () => loadProcessVariables(processInstanceId) });
export const processesQuery = () =>
  queryOptions({ queryKey: workflowKeys.processes(), queryFn: () => Promise.all([loadRunningProcesses(), loadDates()]), ...onReturn });
export const failedJobsQuery = () => queryOptions({ queryKey: workflowKeys.failed(), queryFn: loadFailedJobs, ...onReturn });

/** The task log, incremental (spec §7): each fetch asks only for what is new since the kept log. */
export const taskLogQueryOptions = () =>
  queryOptions({
    queryKey: workflowKeys.log(),
    queryFn: async ({ client }) => {
      const known = client.getQueryData<LoggedTask[]>(workflowKeys.log()) ?? null;
      return mergeTaskLog(known, await loadTaskLog(known)) as LoggedTask[];
    },
    ...onReturn,
  });

/**
 * Spec §4 Workflow tasks: "after a task is completed the due task is removed and workflow data
 * is refetched". The task leaves every kept list at once (no flash of a done task), then every
 * workflow read, and the case pages showing tasks, are fetched again.
 */
export async function refetchAfterTaskCompleted(client: QueryClient, taskId: string): Promise<void> {
  const without = (rows: TaskRow[] | undefined) => rows?.filter((row) => row.id !== taskId);
  client.setQueryData<TaskRow[]>(workflowKeys.due(), without);
  client.setQueriesData<TaskRow[]>({ queryKey: ['workflow', 'case'] }, without);
  client.setQueriesData<{ at: Date; page: TaskPage }>({ queryKey: ['workflow', 'open'] }, (kept) =>
    kept ? { ...kept, page: { totalCount: kept.page.totalCount - (kept.page.nodes.some((n) => n.id === taskId) ? 1 : 0), nodes: without(kept.page.nodes) ?? [] } } : kept,
  );
  await client.invalidateQueries({ queryKey: workflowKeys.all });
}
