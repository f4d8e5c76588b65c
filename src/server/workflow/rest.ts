/**
 * The Camunda 7 REST subset of spec §7 at /api/workflow/rest: Camunda's request and response
 * shapes, status codes and error bodies ({type, message}). Permissions come from the database:
 * each route first reads what it acts on as the request role (row-level security), then runs
 * the step as the owner in the same transaction. See docs/API.md.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type pg from 'pg';
import { withOwnerAs, withUser, type Sql } from '../db/transaction';
import { CamundaError, forbidden, invalidRequest, notFound } from './errors';
import type { WorkflowHost } from './host';
import { parseTypedVariables, type TypedVariables } from './variables';
import type { FormField } from './definitions';
import { TASK_COMPLETION_HOOKS } from './task-hooks';

export const WORKFLOW_REST_PREFIX = '/api/workflow/rest';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Camunda's date format for job due dates: 2026-01-31T10:00:00.000+0000 */
const CAMUNDA_DATE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?\+0000$/;

/** Runs `fn` as the request role: row-level security decides what it sees. */
async function asRequestRole<T>(sql: Sql, fn: () => Promise<T>): Promise<T> {
  await sql.query('set local role sanad_user');
  const result = await fn(); // on an error the transaction rolls back, role and all
  await sql.query('set local role none');
  return result;
}

function body(request: FastifyRequest): Record<string, unknown> {
  const value = request.body;
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidRequest('The request body must be a JSON object.');
  return value as Record<string, unknown>;
}

function optionalString(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalidRequest(`${name} must be a string.`);
  return value;
}

function optionalBoolean(input: Record<string, unknown>, name: string, fallback: boolean): boolean {
  const value = input[name];
  if (value === undefined || value === null) return fallback;
  if (typeof value !== 'boolean') throw invalidRequest(`${name} must be true or false.`);
  return value;
}

function queryFlag(value: unknown, name: string): boolean {
  if (value === undefined) return true;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw invalidRequest(`The query parameter ${name} must be true or false.`);
}

function id(value: string, what: string): string {
  if (!UUID.test(value)) throw notFound(`${what} with id '${value}' does not exist.`);
  return value;
}

function userId(request: FastifyRequest): string {
  const user = request.identity.userId;
  if (!user) throw new CamundaError(401, 'AuthenticationException', 'Sign in to use the workflow API.');
  return user;
}

/** Checks submitted form values against the task's form fields (enum values, types). */
function checkFormValues(fields: FormField[], variables: TypedVariables): void {
  for (const field of fields) {
    const submitted = variables[field.id];
    if (!submitted || submitted.value === null) continue;
    const value = submitted.value;
    if (field.type === 'enum' && field.values && !field.values.some((v) => v.id === value)) {
      throw invalidRequest(`The value '${String(value)}' of '${field.id}' is not one of: ${field.values.map((v) => v.id).join(', ')}.`);
    }
    if (field.type === 'boolean' && typeof value !== 'boolean') throw invalidRequest(`'${field.id}' must be a Boolean.`);
    if (field.type === 'long' && !Number.isInteger(value)) throw invalidRequest(`'${field.id}' must be a whole number.`);
    if ((field.type === 'string' || field.type === 'enum') && typeof value !== 'string') throw invalidRequest(`'${field.id}' must be a String.`);
  }
}

export async function registerWorkflowRoutes(app: FastifyInstance, pool: pg.Pool, host: WorkflowHost): Promise<void> {
  await app.register(
    async (scope) => {
      scope.setErrorHandler((error: FastifyError | CamundaError, request: FastifyRequest, reply: FastifyReply) => {
        if (error instanceof CamundaError) return reply.status(error.statusCode).send(error.body);
        const status = (error as FastifyError).statusCode ?? 500;
        if (status >= 400 && status < 500) {
          const message = (error as FastifyError).code === 'FST_ERR_CTP_INVALID_JSON_BODY' ? 'The request body is not valid JSON.' : error.message;
          return reply.status(status).send({ type: status === 415 ? 'InvalidRequestException' : 'InvalidRequestException', message });
        }
        const pgCode = (error as { code?: string }).code;
        if (pgCode === '23505') {
          return reply.status(400).send({ type: 'InvalidRequestException', message: 'The case already has a running process with this business key.' });
        }
        request.log.error({ err: error }, 'workflow request failed');
        return reply.status(500).send({ type: 'ProcessEngineException', message: 'Something went wrong on our side. Please try again later.' });
      });
      scope.setNotFoundHandler((request, reply) => {
        void reply.status(404).send({ type: 'RestException', message: `There is no workflow endpoint at ${request.method} ${request.url.split('?')[0]}.` });
      });

      const transaction = <T>(request: FastifyRequest, fn: (sql: Sql, user: string) => Promise<T>) => {
        const user = userId(request);
        return withOwnerAs(pool, user, (sql) => fn(sql, user));
      };

      /**
       * Like `transaction` followed by `asRequestRole(read)`, one round trip shorter: the
       * transaction begins as the request role (the begin message sets it), `read` runs under
       * row-level security, then the role is dropped and `fn` continues as the owner.
       */
      const transactionReadingFirst = <R, T>(
        request: FastifyRequest,
        read: (sql: Sql) => Promise<R>,
        fn: (sql: Sql, user: string, found: R) => Promise<T>,
      ) => {
        const user = userId(request);
        return withUser(pool, { userId: user }, async (sql) => {
          const found = await read(sql);
          await sql.query('set local role none');
          return fn(sql, user, found);
        });
      };

      // POST /process-definition/key/{key}/start ------------------------------------------------
      scope.post<{ Params: { key: string } }>('/process-definition/key/:key/start', async (request, reply) => {
        const input = body(request);
        const variables = parseTypedVariables(input.variables);
        const businessKey = optionalString(input, 'businessKey') ?? null;
        const instructions = input.startInstructions;
        if (instructions !== undefined && instructions !== null && !(Array.isArray(instructions) && instructions.length === 0)) {
          throw invalidRequest('startInstructions are not supported: a process always begins at its start event.');
        }
        const caseId = variables.caseId?.value;
        if (typeof caseId !== 'string' || !UUID.test(caseId)) {
          throw invalidRequest('The variable caseId (a String holding the id of the case) is required.');
        }
        await transaction(request, async (sql) => {
          const definition = await host.latestDefinition(sql, request.params.key);
          if (!definition) throw notFound(`No matching process definition with key: ${request.params.key}`);
          const visible = await asRequestRole(sql, () => sql.query('select 1 from app_public.cases where id = $1', [caseId]));
          if (!visible.rowCount) throw forbidden(`You are not a member of the case ${caseId}.`);
          await host.startInTx(sql, { key: request.params.key, caseId, businessKey, variables });
        });
        return reply.status(204).send();
      });

      // POST /message ----------------------------------------------------------------------------
      scope.post('/message', async (request, reply) => {
        const input = body(request);
        const messageName = optionalString(input, 'messageName');
        if (!messageName) throw invalidRequest('messageName is required.');
        const businessKey = optionalString(input, 'businessKey');
        const processInstanceId = optionalString(input, 'processInstanceId');
        const correlationKeys = parseTypedVariables(input.correlationKeys, 'correlationKeys');
        const variables = parseTypedVariables(input.processVariables, 'processVariables');
        const all = optionalBoolean(input, 'all', true);
        const resultEnabled = optionalBoolean(input, 'resultEnabled', true);
        const results = await transaction(request, async (sql) => {
          const candidates = await asRequestRole(sql, async () => {
            const { rows } = await sql.query<{ id: string }>(
              `select id from app_public.workflow_instances
                where state = 'ACTIVE' and $1 = any (waiting_messages)
                  and ($2::text is null or business_key = $2) and ($3::text is null or id::text = $3)
                order by start_time`,
              [messageName, businessKey ?? null, processInstanceId ?? null],
            );
            return rows;
          });
          const matched = await host.correlateInTx(sql, { messageName, businessKey, processInstanceId, correlationKeys, variables, candidates: all ? candidates : candidates.slice(0, 2) });
          if (!all && matched.length !== 1) {
            throw new CamundaError(
              400,
              'MismatchingMessageCorrelationException',
              matched.length === 0
                ? `Cannot correlate message '${messageName}': No process definition or execution matches the parameters`
                : `Cannot correlate message '${messageName}': More than one execution matches the parameters`,
            );
          }
          return matched;
        });
        if (!resultEnabled) return reply.status(204).send();
        return reply.status(200).send(
          results.map((r) => ({
            resultType: 'Execution',
            execution: { id: r.processInstanceId, processInstanceId: r.processInstanceId, ended: r.ended, tenantId: null },
            processInstance: null,
          })),
        );
      });

      // POST /signal -----------------------------------------------------------------------------
      scope.post('/signal', async (request, reply) => {
        const input = body(request);
        const name = optionalString(input, 'name');
        if (!name) throw invalidRequest('No signal name given');
        const executionId = optionalString(input, 'executionId');
        const variables = parseTypedVariables(input.variables);
        const resultEnabled = optionalBoolean(input, 'resultEnabled', false);
        const results = await transaction(request, async (sql) => {
          const candidates = await asRequestRole(sql, async () => {
            const { rows } = await sql.query<{ id: string }>(
              `select id from app_public.workflow_instances
                where state = 'ACTIVE' and $1 = any (waiting_signals) and ($2::text is null or $2 = any (waiting_executions))
                order by start_time`,
              [name, executionId ?? null],
            );
            return rows;
          });
          const signaled: { id: string; ended: boolean }[] = [];
          for (const candidate of candidates) {
            const outcome = await host.stepInTx(sql, candidate.id, { kind: 'signal', signalName: name, variables });
            if (outcome?.matched) signaled.push({ id: candidate.id, ended: outcome.state === 'COMPLETED' });
          }
          return signaled;
        });
        if (!resultEnabled) return reply.status(204).send();
        return reply.status(200).send(results.map((r) => ({ processInstanceId: r.id, ended: r.ended })));
      });

      // DELETE /process-instance/{id} ------------------------------------------------------------
      scope.delete<{ Params: { id: string }; Querystring: Record<string, string> }>('/process-instance/:id', async (request, reply) => {
        queryFlag(request.query.skipCustomListeners, 'skipCustomListeners');
        queryFlag(request.query.skipIoMappings, 'skipIoMappings');
        const instanceId = id(request.params.id, 'Process instance');
        await transaction(request, async (sql) => {
          const found = await asRequestRole(sql, () =>
            sql.query<{ case_id: string; coordinator: boolean }>(
              `select case_id, app_hidden.is_coordinator() as coordinator from app_public.workflow_instances where id = $1 and state = 'ACTIVE'`,
              [instanceId],
            ),
          );
          const row = found.rows[0];
          if (!row) throw notFound(`Process instance with id ${instanceId} does not exist`);
          if (!row.coordinator) throw forbidden('Only coordinators may cancel a process instance.');
          if (!(await host.terminateInTx(sql, instanceId))) throw notFound(`Process instance with id ${instanceId} does not exist`);
        });
        return reply.status(204).send();
      });

      // POST /task/{id}/submit-form -------------------------------------------------------------
      scope.post<{ Params: { id: string } }>('/task/:id/submit-form', async (request, reply) => {
        const input = body(request);
        const variables = parseTypedVariables(input.variables);
        const taskId = id(request.params.id, 'Task');
        const readTask = (sql: Sql) =>
          sql.query<{
            process_instance_id: string; execution_id: string; end_time: Date | null; may: boolean; form_fields: FormField[];
            task_definition_key: string; case_id: string;
          }>(
            `select t.process_instance_id, t.execution_id, t.end_time, t.form_fields, t.task_definition_key, t.case_id,
                    app_hidden.is_coordinator()
                    or t.assignee = app_public.current_user_id()::text
                    or exists (select 1 from unnest(t.candidate_groups) g where app_hidden.workflow_in_group(t.case_id, g)) as may
               from app_public.workflow_tasks t where t.id = $1`,
            [taskId],
          );
        await transactionReadingFirst(request, readTask, async (sql, user, found) => {
          const task = found.rows[0];
          if (!task || task.end_time) throw notFound(`Cannot submit task form ${taskId}: task ${taskId} does not exist or is no longer open`);
          if (!task.may) throw forbidden(`You may not complete the task ${taskId}: it is for another person or group.`);
          checkFormValues(task.form_fields, variables);
          // Some tasks take a value from the server, never from the form (the drawn treatment).
          const hook = TASK_COMPLETION_HOOKS[task.task_definition_key];
          if (hook) Object.assign(variables, await asRequestRole(sql, () => hook(sql, { caseId: task.case_id, submitted: variables })));
          const outcome = await host.stepInTx(sql, task.process_instance_id, {
            kind: 'completeTask',
            executionId: task.execution_id,
            variables,
            userId: user,
          });
          if (!outcome?.matched) throw notFound(`Cannot submit task form ${taskId}: the task is no longer open`);
        });
        return reply.status(204).send();
      });

      // POST /execution/{id}/signal --------------------------------------------------------------
      scope.post<{ Params: { id: string } }>('/execution/:id/signal', async (request, reply) => {
        const input = body(request);
        const variables = parseTypedVariables(input.variables);
        const executionId = request.params.id;
        await transaction(request, async (sql) => {
          const found = await asRequestRole(sql, () =>
            sql.query<{ id: string; may: boolean }>(
              `select id, app_hidden.workflow_may_manage(case_id) as may from app_public.workflow_instances
                where state = 'ACTIVE' and $1 = any (waiting_executions)`,
              [executionId],
            ),
          );
          const instance = found.rows[0];
          if (!instance) throw notFound(`Cannot find execution with id '${executionId}'`);
          if (!instance.may) throw forbidden('Only care staff of the case and coordinators may signal an execution.');
          const outcome = await host.stepInTx(sql, instance.id, { kind: 'signalExecution', executionId, variables });
          if (!outcome?.matched) throw notFound(`Cannot find execution with id '${executionId}'`);
        });
        return reply.status(204).send();
      });

      // PUT /job/{id}/duedate and /job/{id}/retries ---------------------------------------------
      const findJob = async (sql: Sql, jobId: string) => {
        const found = await asRequestRole(sql, () =>
          sql.query<{ process_instance_id: string; may: boolean }>(
            `select process_instance_id, app_hidden.workflow_may_manage(case_id) as may from app_public.workflow_jobs where id = $1`,
            [jobId],
          ),
        );
        const job = found.rows[0];
        if (!job) throw notFound(`Job with id ${jobId} does not exist`);
        if (!job.may) throw forbidden('Only care staff of the case and coordinators may change its jobs.');
        // Jobs change only under their instance's lock.
        await sql.query('select 1 from app_public.workflow_instances where id = $1 for update', [job.process_instance_id]);
      };

      scope.put<{ Params: { id: string } }>('/job/:id/duedate', async (request, reply) => {
        const input = body(request);
        const duedate = input.duedate;
        if (typeof duedate !== 'string' || !CAMUNDA_DATE.test(duedate)) {
          throw invalidRequest(`duedate must be a date like 2026-01-31T10:00:00.000+0000 (UTC, ending +0000); got ${JSON.stringify(duedate)}.`);
        }
        const due = new Date(duedate.replace(/\+0000$/, 'Z'));
        if (Number.isNaN(due.getTime())) throw invalidRequest(`duedate ${duedate} is not a valid date.`);
        const jobId = id(request.params.id, 'Job');
        await transaction(request, async (sql) => {
          await findJob(sql, jobId);
          await sql.query('update app_public.workflow_jobs set due_date = $2 where id = $1', [jobId, due]);
        });
        return reply.status(204).send();
      });

      scope.put<{ Params: { id: string } }>('/job/:id/retries', async (request, reply) => {
        const input = body(request);
        const retries = input.retries;
        if (typeof retries !== 'number' || !Number.isInteger(retries) || retries < 0) throw invalidRequest('retries must be a whole number of at least 0.');
        const jobId = id(request.params.id, 'Job');
        await transaction(request, async (sql) => {
          await findJob(sql, jobId);
          await sql.query(
            `update app_public.workflow_jobs
                set failed_at = case when $2 = 0 then coalesce(failed_at, $3) end,
                    attempts = case when $2 = 0 then attempts else greatest(0, $4 - $2) end,
                    due_date = case when $2 = 0 then due_date else $3 end
              where id = $1`,
            [jobId, retries, host.clock.now(), host.maxAttempts],
          );
        });
        return reply.status(204).send();
      });

      // GET /task/{id}: the Camunda task, for the task screens ------------------------------------
      scope.get<{ Params: { id: string } }>('/task/:id', async (request) => {
        const taskId = id(request.params.id, 'Task');
        return transaction(request, async (sql) => {
          const found = await asRequestRole(sql, () =>
            sql.query(
              `select t.*, i.definition_key, i.definition_version from app_public.workflow_tasks t
                 join app_public.workflow_instances i on i.id = t.process_instance_id
                where t.id = $1 and t.end_time is null`,
              [taskId],
            ),
          );
          const t = found.rows[0];
          if (!t) throw notFound(`No matching task with id ${taskId}`);
          return {
            id: t.id,
            name: t.name,
            assignee: t.assignee,
            owner: t.owner,
            created: t.created,
            due: t.due,
            followUp: t.follow_up,
            priority: t.priority,
            processInstanceId: t.process_instance_id,
            processDefinitionId: `${t.definition_key}:${t.definition_version}`,
            executionId: t.execution_id,
            taskDefinitionKey: t.task_definition_key,
            caseId: t.case_id,
            candidateGroups: t.candidate_groups,
            formFields: t.form_fields,
            suspended: false,
            tenantId: null,
          };
        });
      });

      // GET /process-instance/{id}/variables -----------------------------------------------------
      scope.get<{ Params: { id: string } }>('/process-instance/:id/variables', async (request) => {
        const instanceId = id(request.params.id, 'Process instance');
        return transaction(request, async (sql) => {
          // The request role may not read the variables column (0014): check the right as the
          // request role, then read as the owner.
          const found = await asRequestRole(sql, () =>
            sql.query<{ may: boolean }>(
              `select app_hidden.workflow_may_manage(case_id) as may from app_public.workflow_instances where id = $1`,
              [instanceId],
            ),
          );
          if (!found.rows[0]) throw notFound(`Process instance with id ${instanceId} does not exist`);
          if (!found.rows[0].may) throw forbidden('Only care staff of the case and coordinators may read process variables.');
          const { rows } = await sql.query<{ variables: TypedVariables }>('select variables from app_public.workflow_instances where id = $1', [instanceId]);
          return rows[0]!.variables;
        });
      });
    },
    { prefix: WORKFLOW_REST_PREFIX },
  );
}
