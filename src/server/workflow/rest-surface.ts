/**
 * The Camunda 7 routes added for real clients (issue 29, docs/decisions/camunda-rest-surface.md):
 * the engine list and version, task claim/unclaim and variables, definition XML by id,
 * deployments, historic activities and variables, incidents, jobs, the POST variants of the
 * queries (as camunda-bpm-sdk-js sends them) and external tasks (camunda-external-task-client-js).
 * Each route validates, opens one transaction as the request role and calls one named function
 * (tasklist.ts, external-tasks.ts, camunda-history.ts, camunda-reads.ts); who may do what is
 * decided in SQL by the rules of 0020/0280.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { invalidRequest, notFound } from './errors';
import type { CommandContext } from './commands';
import type { WorkflowHost } from './host';
import * as reads from './camunda-reads';
import * as history from './camunda-history';
import { claimTask, readTaskVariables, setTaskVariables, unclaimTask } from './tasklist';
import {
  bpmnErrorExternalTask,
  completeExternalTask,
  extendExternalLock,
  failExternalTask,
  fetchAndLock,
  parseFetch,
  unlockExternalTask,
} from './external-tasks';
import { QueryParams } from './camunda-query';
import { parseTypedVariables } from './variables';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A POST that only reads (a Camunda query): its answer's cases go to the access log as a GET's do. */
    caseRead?: boolean;
  }
}

type Body = Record<string, unknown> | null | undefined;
type Query = Record<string, unknown>;
type InTransaction = <T>(request: FastifyRequest, fn: (ctx: CommandContext) => Promise<T>) => Promise<T>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Ids are UUIDs: anything else cannot exist (404, as an unknown id). */
function id(value: string, what: string): string {
  if (!UUID.test(value)) throw notFound(`${what} with id '${value}' does not exist.`);
  return value;
}

/**
 * A query sent by POST (Camunda's JSON form: lists as arrays, booleans as booleans,
 * `sorting: [{sortBy, sortOrder}]`) as the query-string form the reads understand;
 * firstResult and maxResults stay in the query string, as in Camunda.
 */
export function bodyAsQuery(body: Body, query: Query): Query {
  if (body !== null && body !== undefined && (typeof body !== 'object' || Array.isArray(body))) {
    throw invalidRequest('The query must be a JSON object.');
  }
  const answer: Query = {};
  for (const [name, value] of Object.entries(body ?? {})) {
    if (value === null || value === undefined) continue;
    if (name === 'sorting') {
      if (!Array.isArray(value)) throw invalidRequest('sorting must be a list of {sortBy, sortOrder}.');
      if (value.length > 1) throw invalidRequest('This server sorts by one property: send one entry in sorting.');
      const first = value[0] as { sortBy?: unknown; sortOrder?: unknown } | undefined;
      if (first) {
        if (first.sortBy !== undefined) answer.sortBy = String(first.sortBy);
        if (first.sortOrder !== undefined) answer.sortOrder = String(first.sortOrder);
      }
      continue;
    }
    if (Array.isArray(value)) {
      if (value.some((v) => typeof v === 'object' && v !== null)) throw invalidRequest(`${name} is not supported by this server.`);
      answer[name] = value.join(',');
    } else if (typeof value === 'object') {
      throw invalidRequest(`${name} is not supported by this server.`);
    } else {
      answer[name] = String(value);
    }
  }
  for (const name of ['firstResult', 'maxResults']) if (query[name] !== undefined) answer[name] = query[name];
  return answer;
}

export function registerCamundaSurface(scope: FastifyInstance, pool: pg.Pool, host: WorkflowHost, inTransaction: InTransaction): void {
  // The engine ----------------------------------------------------------------------------------------
  scope.get('/engine', async () => [{ name: 'default' }]);
  scope.get('/version', async () => ({ version: history.CAMUNDA_REST_VERSION }));

  // Reads with a GET and a POST form (and /count) ------------------------------------------------------
  type Read = (ctx: CommandContext, raw: Query, counting: boolean) => Promise<unknown>;
  const readRoutes: [string, Read][] = [
    ['/task', (ctx, raw, counting) => (counting ? reads.countTasks(ctx, raw) : reads.queryTasks(ctx, raw))],
    ['/process-instance', (ctx, raw, counting) => (counting ? reads.countProcessInstances(ctx, raw) : reads.queryProcessInstances(ctx, raw))],
    ['/history/task', (ctx, raw, counting) => (counting ? reads.countHistoricTasks(ctx, raw) : reads.queryHistoricTasks(ctx, raw))],
    [
      '/history/process-instance',
      (ctx, raw, counting) => (counting ? reads.countHistoricProcessInstances(ctx, raw) : reads.queryHistoricProcessInstances(ctx, raw)),
    ],
    ['/history/activity-instance', history.queryHistoricActivities],
    ['/history/variable-instance', history.queryHistoricVariables],
    ['/job', history.queryJobs],
  ];
  const newGets = new Set(['/history/activity-instance', '/history/variable-instance', '/job']);
  for (const [path, read] of readRoutes) {
    if (newGets.has(path)) {
      scope.get<{ Querystring: Query }>(path, async (request) => inTransaction(request, (ctx) => read(ctx, request.query, false)));
      scope.get<{ Querystring: Query }>(`${path}/count`, async (request) => inTransaction(request, (ctx) => read(ctx, request.query, true)));
    }
    const config = { caseRead: true };
    scope.post<{ Querystring: Query; Body: Body }>(path, { config }, async (request, reply) => {
      const raw = bodyAsQuery(request.body, request.query);
      return reply.status(200).send(await inTransaction(request, (ctx) => read(ctx, raw, false)));
    });
    scope.post<{ Querystring: Query; Body: Body }>(`${path}/count`, { config }, async (request, reply) => {
      const raw = bodyAsQuery(request.body, request.query);
      return reply.status(200).send(await inTransaction(request, (ctx) => read(ctx, raw, true)));
    });
  }
  scope.get<{ Querystring: Query }>('/incident', async (request) => inTransaction(request, (ctx) => history.queryIncidents(ctx, request.query)));
  scope.get<{ Querystring: Query }>('/incident/count', async (request) => inTransaction(request, (ctx) => history.queryIncidents(ctx, request.query, true)));
  scope.get<{ Querystring: Query }>('/deployment', async (request) => inTransaction(request, (ctx) => history.queryDeployments(ctx, request.query)));
  scope.get<{ Querystring: Query }>('/deployment/count', async (request) =>
    inTransaction(request, (ctx) => history.queryDeployments(ctx, request.query, true)),
  );
  scope.get<{ Params: { id: string } }>('/process-definition/:id/xml', async (request) =>
    inTransaction(request, (ctx) => history.processDefinitionXml(ctx, request.params.id)),
  );

  // Tasks: claim, unclaim, variables ------------------------------------------------------------------------
  scope.post<{ Params: { id: string }; Body: Body }>('/task/:id/claim', async (request, reply) => {
    const taskId = id(request.params.id, 'Task');
    const userId = request.body?.userId;
    if (typeof userId !== 'string' || userId === '') throw invalidRequest('userId is required: the id of the person who claims the task.');
    await inTransaction(request, (ctx) => claimTask(ctx, taskId, userId));
    return reply.status(204).send();
  });
  scope.post<{ Params: { id: string } }>('/task/:id/unclaim', async (request, reply) => {
    const taskId = id(request.params.id, 'Task');
    await inTransaction(request, (ctx) => unclaimTask(ctx, taskId));
    return reply.status(204).send();
  });
  scope.get<{ Params: { id: string }; Querystring: Query }>('/task/:id/variables', async (request) => {
    const taskId = id(request.params.id, 'Task');
    new QueryParams(request.query).boolean('deserializeValues');
    return inTransaction(request, (ctx) => readTaskVariables(ctx, taskId));
  });
  scope.get<{ Params: { id: string; name: string } }>('/task/:id/variables/:name', async (request) => {
    const taskId = id(request.params.id, 'Task');
    const variables = await inTransaction(request, (ctx) => readTaskVariables(ctx, taskId, [request.params.name]));
    const value = variables[request.params.name];
    if (!value) throw notFound(`task variable with name ${request.params.name} does not exist`);
    return { ...value, valueInfo: {} };
  });
  scope.post<{ Params: { id: string }; Body: Body }>('/task/:id/variables', async (request, reply) => {
    const taskId = id(request.params.id, 'Task');
    const modifications = parseTypedVariables(request.body?.modifications, 'modifications');
    const deletions = request.body?.deletions ?? [];
    if (!Array.isArray(deletions) || deletions.some((d) => typeof d !== 'string')) throw invalidRequest('deletions must be a list of variable names.');
    await inTransaction(request, (ctx) => setTaskVariables(ctx, taskId, modifications, deletions as string[]));
    return reply.status(204).send();
  });
  scope.put<{ Params: { id: string; name: string }; Body: Body }>('/task/:id/variables/:name', async (request, reply) => {
    const taskId = id(request.params.id, 'Task');
    const modifications = parseTypedVariables({ [request.params.name]: request.body ?? {} }, 'the variable');
    await inTransaction(request, (ctx) => setTaskVariables(ctx, taskId, modifications, []));
    return reply.status(204).send();
  });

  // External tasks --------------------------------------------------------------------------------------------
  scope.post<{ Body: Body }>('/external-task/fetchAndLock', async (request, reply) => {
    const input = parseFetch(request.body);
    const userId = request.identity.userId;
    // Signed out: inTransaction answers Camunda's 401 before any look.
    if (!userId) return inTransaction(request, async () => []);
    const locked = await fetchAndLock(pool, host, userId, input, () => request.raw.destroyed);
    return reply.status(200).send(locked);
  });
  const externalCall =
    (run: (ctx: CommandContext, taskId: string, body: Record<string, unknown>) => Promise<void>) =>
    async (request: FastifyRequest<{ Params: { id: string }; Body: Body }>, reply: FastifyReply) => {
      const taskId = id(request.params.id, 'External task');
      const body = request.body ?? {};
      if (typeof body !== 'object' || Array.isArray(body)) throw invalidRequest('The request body must be a JSON object.');
      await inTransaction(request, (ctx) => run(ctx, taskId, body));
      return reply.status(204).send();
    };
  scope.post<{ Params: { id: string }; Body: Body }>('/external-task/:id/complete', externalCall(completeExternalTask));
  scope.post<{ Params: { id: string }; Body: Body }>('/external-task/:id/failure', externalCall(failExternalTask));
  scope.post<{ Params: { id: string }; Body: Body }>('/external-task/:id/extendLock', externalCall(extendExternalLock));
  scope.post<{ Params: { id: string }; Body: Body }>('/external-task/:id/bpmnError', externalCall(bpmnErrorExternalTask));
  scope.post<{ Params: { id: string }; Body: Body }>('/external-task/:id/unlock', externalCall((ctx, taskId) => unlockExternalTask(ctx, taskId)));
}
