/**
 * The Camunda 7 REST subset at /api/workflow/rest (spec §7, docs/API.md): each route validates
 * its input (schemas.ts), opens one transaction as the request role and calls one named
 * command (commands.ts: who may do what is decided there, by the rules of 0020) or read
 * (camunda-reads.ts: filtered to the caller's cases by row-level security), then answers in
 * Camunda's shape, status codes and error bodies ({type, message}).
 */
import { SIGNATURE_HEADER } from '../../domain/signatures';
import { sendDatabaseUnavailable } from '../http/unavailable';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withUser } from '../db/transaction';
import { CamundaError, invalidRequest, notFound } from './errors';
import { databaseRefusal } from '../http/errors';
import type { WorkflowHost } from './host';
import { parseTypedVariables, type TypedVariables } from './variables';
import {
  completeTask,
  correlateMessage,
  deleteProcessInstance,
  moveJob,
  readProcessVariables,
  setJobRetries,
  signalExecution,
  startProcess,
  throwSignal,
  type CommandContext,
} from './commands';
import * as reads from './camunda-reads';
import { registerCamundaSurface } from './rest-surface';
import { caseIdsIn } from '../../domain/access-log';
import { caseReadsOf } from '../integrity/access-log';
import { parseOffsetDate } from './camunda-query';
import { deleteQuery, dueDateBody, idParams, keyParams, messageBody, retriesBody, signalBody, startBody, variablesBody } from './schemas';

export const WORKFLOW_REST_PREFIX = '/api/workflow/rest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Body = Record<string, unknown> | null | undefined;
type Query = Record<string, unknown>;

/** Ids are UUIDs: anything else cannot exist (404, as an unknown id). */
function id(value: string, what: string): string {
  if (!UUID.test(value)) throw notFound(`${what} with id '${value}' does not exist.`);
  return value;
}

function userId(request: FastifyRequest): string {
  const user = request.identity.userId;
  if (!user) throw new CamundaError(401, 'AuthenticationException', 'Sign in to use the workflow API.');
  return user;
}

/** Camunda features that would change what a call does and that Sanad does not have. */
function refuseUnsupported(body: Body, names: string[]): void {
  for (const name of names) {
    const value = body?.[name];
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'object' && Object.keys(value).length === 0) continue;
    throw invalidRequest(`${name} is not supported by this server.`);
  }
}

const flag = (value: unknown, fallback: boolean) => (typeof value === 'boolean' ? value : fallback);

/** The case of a workflow instance or task the caller may read (for the access log). */
async function caseOf(ctx: CommandContext, table: 'app_public.workflow_instances' | 'app_public.workflow_tasks', id: string): Promise<string[]> {
  const { rows } = await ctx.sql.query<{ case_id: string }>(`select case_id from ${table} where id = $1`, [id]);
  return rows.map((row) => row.case_id);
}

/** Camunda's engine-scoped paths: /engine/default/… is the same API (Sanad has one engine). */
export const ENGINE_PREFIX = '/engine/default';

export async function registerWorkflowRoutes(app: FastifyInstance, pool: pg.Pool, host: WorkflowHost): Promise<void> {
  for (const prefix of [WORKFLOW_REST_PREFIX, `${WORKFLOW_REST_PREFIX}${ENGINE_PREFIX}`]) await registerScope(app, pool, host, prefix);
}

async function registerScope(app: FastifyInstance, pool: pg.Pool, host: WorkflowHost, prefix: string): Promise<void> {
  await app.register(
    async (scope) => {
      scope.setErrorHandler((error: FastifyError | CamundaError, request: FastifyRequest, reply: FastifyReply) => {
        if (error instanceof CamundaError) return reply.status(error.statusCode).send(error.body);
        if (request.server.databaseAvailability?.report(error)) return sendDatabaseUnavailable(reply, request.url);
        const fastifyError = error as FastifyError;
        if (fastifyError.validation) {
          return reply.status(400).send({ type: 'InvalidRequestException', message: `The request is not valid: ${fastifyError.message}.` });
        }
        const status = fastifyError.statusCode ?? 500;
        if (status >= 400 && status < 500) {
          const message = fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'The request body is not valid JSON.' : error.message;
          return reply.status(status).send({ type: 'InvalidRequestException', message });
        }
        if ((error as { code?: string }).code === '23505' && (error as { constraint?: string }).constraint?.startsWith('workflow_instances')) {
          return reply.status(400).send({ type: 'InvalidRequestException', message: 'The case already has a running process with this business key.' });
        }
        // A refusal of the database (a bad value, a broken rule, a denied row): its code and
        // sentence, never PostgreSQL's text (src/domain/refusals.ts).
        const refusal = databaseRefusal(error, Boolean(request.identity?.userId));
        if (refusal) {
          const type = refusal.status === 403 ? 'AuthorizationException' : 'InvalidRequestException';
          return reply.status(refusal.status === 409 ? 400 : refusal.status).send({ type, message: refusal.message, code: refusal.code });
        }
        request.log.error({ err: error }, 'workflow request failed');
        return reply.status(500).send({ type: 'ProcessEngineException', message: 'Something went wrong on our side. Please try again later.' });
      });
      scope.setNotFoundHandler((request, reply) => {
        void reply.status(404).send({ type: 'RestException', message: `There is no workflow endpoint at ${request.method} ${request.url.split('?')[0]}.` });
      });

      // Issue 30: the cases a read's answer names (tasks, instances, history) go to the access
      // log; the app-wide onSend hook writes them before the answer leaves.
      scope.addHook('preSerialization', async (request, _reply, payload) => {
        const read = request.method === 'GET' || request.routeOptions.config?.caseRead === true;
        if (read && request.identity?.userId) {
          const cases = caseIdsIn(payload);
          if (cases.size > 0) caseReadsOf(request).add('workflow', 'tasks', cases);
        }
        return payload;
      });

      // Camunda answers `Content-Type: application/json` without a charset (JSON is UTF-8 by
      // definition), and camunda-external-task-client-js parses a body only on that exact type.
      scope.addHook('onSend', async (_request, reply, payload) => {
        const type = reply.getHeader('content-type');
        if (typeof type === 'string' && type.startsWith('application/json;')) reply.header('content-type', 'application/json');
        return payload;
      });

      /** One transaction as the request role; the command or read decides the rest. */
      const inTransaction = <T>(request: FastifyRequest, fn: (ctx: CommandContext) => Promise<T>) => {
        const user = userId(request);
        return withUser(pool, { userId: user }, (sql) => fn({ sql, host, userId: user }));
      };
      const selfLink = (request: FastifyRequest, instanceId: string) =>
        `${request.protocol}://${request.host}${WORKFLOW_REST_PREFIX}/process-instance/${instanceId}`;

      // Process definitions -------------------------------------------------------------------------

      scope.post<{ Params: { key: string }; Body: Body }>(
        '/process-definition/key/:key/start',
        { schema: { params: keyParams, body: startBody } },
        async (request) => {
          const body = request.body;
          refuseUnsupported(body, ['skipCustomListeners', 'skipIoMappings']);
          const instructions = body?.startInstructions;
          if (Array.isArray(instructions) && instructions.length > 0) {
            throw invalidRequest('startInstructions are not supported: a process always begins at its start event.');
          }
          const variables = parseTypedVariables(body?.variables);
          const caseId = variables.caseId?.value;
          if (typeof caseId !== 'string' || !UUID.test(caseId)) {
            throw invalidRequest('The variable caseId (a String holding the id of the case) is required.');
          }
          const businessKey = typeof body?.businessKey === 'string' ? body.businessKey : null;
          const started = await inTransaction(request, async (ctx) => {
            const instance = await startProcess(ctx, { key: request.params.key, caseId, businessKey, variables });
            // Only coordinators start by hand (0020), and they may read the variables.
            const withVariables = body?.withVariablesInReturn === true ? await readProcessVariables(ctx, instance.id) : undefined;
            return { instance, withVariables };
          });
          const dto = reads.processInstanceDto(started.instance, selfLink(request, started.instance.id));
          return started.withVariables ? { ...dto, variables: started.withVariables } : dto;
        },
      );

      scope.get<{ Querystring: Query }>('/process-definition', async (request) =>
        inTransaction(request, (ctx) => reads.queryProcessDefinitions(ctx, request.query)),
      );
      scope.get<{ Querystring: Query }>('/process-definition/count', async (request) =>
        inTransaction(request, (ctx) => reads.queryProcessDefinitions(ctx, request.query, true)),
      );
      scope.get<{ Params: { key: string } }>('/process-definition/key/:key', { schema: { params: keyParams } }, async (request) =>
        inTransaction(request, (ctx) => reads.getProcessDefinitionByKey(ctx, request.params.key)),
      );
      scope.get<{ Params: { key: string } }>('/process-definition/key/:key/xml', { schema: { params: keyParams } }, async (request) =>
        inTransaction(request, (ctx) => reads.getProcessDefinitionXml(ctx, request.params.key)),
      );

      // Messages and signals ----------------------------------------------------------------------------

      scope.post<{ Body: Body }>('/message', { schema: { body: messageBody } }, async (request, reply) => {
        const body = request.body ?? {};
        refuseUnsupported(body, ['processVariablesLocal', 'localCorrelationKeys', 'tenantId', 'variablesInResultEnabled']);
        const input = {
          messageName: body.messageName as string,
          businessKey: typeof body.businessKey === 'string' ? body.businessKey : undefined,
          processInstanceId: typeof body.processInstanceId === 'string' ? body.processInstanceId : undefined,
          correlationKeys: parseTypedVariables(body.correlationKeys, 'correlationKeys'),
          processVariables: parseTypedVariables(body.processVariables, 'processVariables'),
          // The spec's defaults: all and resultEnabled are true unless given.
          all: flag(body.all, true),
        };
        const results = await inTransaction(request, (ctx) => correlateMessage(ctx, input));
        if (!flag(body.resultEnabled, true)) return reply.status(204).send();
        return reply.status(200).send(
          results.map((r) => ({
            resultType: 'Execution',
            execution: { id: r.processInstanceId, processInstanceId: r.processInstanceId, ended: r.ended, tenantId: null },
            processInstance: null,
          })),
        );
      });

      scope.post<{ Body: Body }>('/signal', { schema: { body: signalBody } }, async (request, reply) => {
        const body = request.body ?? {};
        if (typeof body.name !== 'string' || body.name === '') throw invalidRequest('No signal name given');
        refuseUnsupported(body, ['tenantId']);
        const input = {
          name: body.name,
          executionId: typeof body.executionId === 'string' ? body.executionId : undefined,
          variables: parseTypedVariables(body.variables),
        };
        const results = await inTransaction(request, (ctx) => throwSignal(ctx, input));
        if (!flag(body.resultEnabled, false)) return reply.status(204).send();
        return reply.status(200).send(results.map((r) => ({ processInstanceId: r.processInstanceId, ended: r.ended })));
      });

      scope.post<{ Params: { id: string }; Body: Body }>(
        '/execution/:id/signal',
        { schema: { params: idParams, body: variablesBody } },
        async (request, reply) => {
          const variables = parseTypedVariables(request.body?.variables);
          await inTransaction(request, (ctx) => signalExecution(ctx, request.params.id, variables));
          return reply.status(204).send();
        },
      );

      // Process instances ---------------------------------------------------------------------------------

      scope.get<{ Querystring: Query }>('/process-instance', async (request) =>
        inTransaction(request, (ctx) => reads.queryProcessInstances(ctx, request.query)),
      );
      scope.get<{ Querystring: Query }>('/process-instance/count', async (request) =>
        inTransaction(request, (ctx) => reads.countProcessInstances(ctx, request.query)),
      );
      scope.get<{ Params: { id: string } }>('/process-instance/:id', { schema: { params: idParams } }, async (request) => {
        const instanceId = id(request.params.id, 'Process instance');
        return inTransaction(request, (ctx) => reads.getProcessInstance(ctx, instanceId));
      });
      scope.get<{ Params: { id: string } }>('/process-instance/:id/variables', { schema: { params: idParams } }, async (request) => {
        const instanceId = id(request.params.id, 'Process instance');
        return inTransaction(request, async (ctx) => {
          const variables = await readProcessVariables(ctx, instanceId);
          caseReadsOf(request).add('workflow', 'tasks', await caseOf(ctx, 'app_public.workflow_instances', instanceId));
          return variables;
        });
      });
      scope.delete<{ Params: { id: string }; Querystring: Query }>(
        '/process-instance/:id',
        { schema: { params: idParams, querystring: deleteQuery } },
        async (request, reply) => {
          const instanceId = id(request.params.id, 'Process instance');
          await inTransaction(request, (ctx) => deleteProcessInstance(ctx, instanceId));
          return reply.status(204).send();
        },
      );

      // Tasks ----------------------------------------------------------------------------------------------

      scope.get<{ Querystring: Query }>('/task', async (request) => inTransaction(request, (ctx) => reads.queryTasks(ctx, request.query)));
      scope.get<{ Querystring: Query }>('/task/count', async (request) =>
        inTransaction(request, (ctx) => reads.countTasks(ctx, request.query)),
      );
      scope.get<{ Params: { id: string } }>('/task/:id', { schema: { params: idParams } }, async (request) => {
        const taskId = id(request.params.id, 'Task');
        return inTransaction(request, (ctx) => reads.getTask(ctx, taskId));
      });
      scope.get<{ Params: { id: string }; Querystring: Query }>('/task/:id/form-variables', { schema: { params: idParams } }, async (request) => {
        const taskId = id(request.params.id, 'Task');
        return inTransaction(request, async (ctx) => {
          const variables = await reads.taskFormVariables(ctx, taskId, request.query);
          caseReadsOf(request).add('workflow', 'tasks', await caseOf(ctx, 'app_public.workflow_tasks', taskId));
          return variables;
        });
      });

      /** complete and submit-form: the same command; 204, or 200 with variables when asked. */
      const complete = (call: 'complete task' | 'submit task form') => async (request: FastifyRequest<{ Params: { id: string }; Body: Body }>, reply: FastifyReply) => {
        const variables = parseTypedVariables(request.body?.variables);
        const taskId = id(request.params.id, 'Task');
        const withVariables = request.body?.withVariablesInReturn === true;
        const answer = await inTransaction(request, async (ctx) => {
          const done = await completeTask({ ...ctx, signature: request.headers[SIGNATURE_HEADER] }, taskId, variables, call);
          if (!withVariables) return undefined;
          // Care staff and coordinators get the process variables; others what they submitted.
          return readProcessVariables(ctx, done.processInstanceId).catch((error: unknown) => {
            if (error instanceof CamundaError && error.statusCode === 403) return variables;
            throw error;
          });
        });
        if (answer === undefined) return reply.status(204).send();
        return reply.status(200).send(answer satisfies TypedVariables);
      };
      const taskRoute = { schema: { params: idParams, body: variablesBody } };
      scope.post<{ Params: { id: string }; Body: Body }>('/task/:id/complete', taskRoute, complete('complete task'));
      scope.post<{ Params: { id: string }; Body: Body }>('/task/:id/submit-form', taskRoute, complete('submit task form'));

      // History --------------------------------------------------------------------------------------------

      scope.get<{ Querystring: Query }>('/history/task', async (request) =>
        inTransaction(request, (ctx) => reads.queryHistoricTasks(ctx, request.query)),
      );
      scope.get<{ Querystring: Query }>('/history/task/count', async (request) =>
        inTransaction(request, (ctx) => reads.countHistoricTasks(ctx, request.query)),
      );
      scope.get<{ Querystring: Query }>('/history/process-instance', async (request) =>
        inTransaction(request, (ctx) => reads.queryHistoricProcessInstances(ctx, request.query)),
      );
      scope.get<{ Querystring: Query }>('/history/process-instance/count', async (request) =>
        inTransaction(request, (ctx) => reads.countHistoricProcessInstances(ctx, request.query)),
      );

      // Jobs -----------------------------------------------------------------------------------------------

      scope.put<{ Params: { id: string }; Body: { duedate: string } }>(
        '/job/:id/duedate',
        { schema: { params: idParams, body: dueDateBody } },
        async (request, reply) => {
          const due = parseOffsetDate(request.body.duedate);
          if (!due) {
            throw invalidRequest(
              `duedate must be a date with its offset, like 2026-01-31T10:00:00.000+0000 or 2026-01-31T12:00:00+02:00; got ${JSON.stringify(request.body.duedate)}.`,
            );
          }
          const jobId = id(request.params.id, 'Job');
          await inTransaction(request, (ctx) => moveJob(ctx, jobId, due));
          return reply.status(204).send();
        },
      );
      scope.put<{ Params: { id: string }; Body: { retries: number } }>(
        '/job/:id/retries',
        { schema: { params: idParams, body: retriesBody } },
        async (request, reply) => {
          const jobId = id(request.params.id, 'Job');
          await inTransaction(request, (ctx) => setJobRetries(ctx, jobId, request.body.retries));
          return reply.status(204).send();
        },
      );

      registerCamundaSurface(scope, pool, host, inTransaction);
    },
    { prefix },
  );
}
