/**
 * The workflow host: deploys the BPMN files, starts instances, and runs every step of an
 * instance under its row lock in one transaction (docs/decisions/0021-workflow-engine.md). The REST routes, the outbox
 * consumer and the scheduler all come through here.
 */
import type pg from 'pg';
import type { Logger } from 'pino';
import { withOwner, type Sql } from '../db/transaction';
import { DefinitionCache, deploy, readWorkflowFiles, type DefinitionInfo } from './definitions';
import { runStep, systemClock, type Clock, type StepEvent, type StepOutcome } from './engine';
import type { JobKind } from './engine-common';
import { DEFAULT_HANDLERS, type HandlerRegistry } from './handlers';
import { matchesCorrelationKeys, typed, type TypedVariables } from './variables';
import { invalidRequest, notFound } from './errors';

export interface WorkflowHostOptions {
  pool: pg.Pool;
  log: Logger;
  /** Folder of the BPMN files deployed at start. */
  workflowsDir: string;
  clock?: Clock;
  handlers?: HandlerRegistry;
  maxAttempts?: number;
  retryBaseMs?: number;
}

export interface StartInput {
  key: string;
  caseId: string;
  businessKey: string | null;
  variables: TypedVariables;
}

export interface CorrelationInput {
  messageName: string;
  businessKey?: string | undefined;
  processInstanceId?: string | undefined;
  correlationKeys?: TypedVariables | undefined;
  variables: TypedVariables;
  /** Limit to these instances (found under the caller's row-level security). */
  candidates: { id: string }[];
}

export interface CorrelationResult {
  processInstanceId: string;
  ended: boolean;
}

interface LockedInstance {
  id: string;
  case_id: string;
  business_key: string | null;
  definition_key: string;
  definition_version: number;
  state: string;
  variables: TypedVariables;
}

interface StoredStep {
  engine_state: any;
  job_due: boolean;
  step: number;
  open_tasks: { id: string; executionId: string }[];
  jobs: { executionId: string; kind: JobKind; attempts: number }[];
}

interface ClaimedJob extends LockedInstance {
  job_id: string;
  kind: JobKind;
  execution_id: string;
}

/** Due jobs fired per transaction: fewer round trips per firing, instance rows locked for ~20 steps at most. */
export const JOB_BATCH = 20;

export class WorkflowHost {
  readonly definitions = new DefinitionCache();
  readonly clock: Clock;
  readonly handlers: HandlerRegistry;
  readonly maxAttempts: number;
  readonly retryBaseMs: number;

  constructor(readonly options: WorkflowHostOptions) {
    this.clock = options.clock ?? systemClock;
    this.handlers = { ...DEFAULT_HANDLERS, ...options.handlers };
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBaseMs = options.retryBaseMs ?? 30_000;
  }

  /** Deploys workflows/*.bpmn (new content becomes a new version). */
  async deployAll(): Promise<{ key: string; version: number; created: boolean }[]> {
    const files = readWorkflowFiles(this.options.workflowsDir);
    const deployed = await withOwner(this.options.pool, (sql) => deploy(sql, files));
    for (const d of deployed) if (d.created) this.options.log.info(d, 'workflow definition deployed');
    return deployed;
  }

  private stepSettings(sql: Sql) {
    return { sql, clock: this.clock, handlers: this.handlers, maxAttempts: this.maxAttempts, retryBaseMs: this.retryBaseMs };
  }

  async latestDefinition(sql: Sql, key: string): Promise<DefinitionInfo | undefined> {
    return this.definitions.latest(sql, key);
  }

  /** Starts an instance of the newest version of a definition, in the caller's transaction. */
  async startInTx(sql: Sql, input: StartInput): Promise<{ id: string; definition: DefinitionInfo; outcome: StepOutcome }> {
    const definition = await this.definitions.latest(sql, input.key);
    if (!definition) throw invalidRequest(`No process definition with the key '${input.key}' is deployed.`);
    const variables: TypedVariables = { ...input.variables, caseId: { value: input.caseId, type: 'String' } };
    // Durations (due dates, timers, follow-ups) count in the participant's calendar (issue 27):
    // the patient's time zone travels with the process as the variable `timeZone`.
    if (!variables.timeZone) {
      const zone = await sql.query<{ time_zone: string }>(
        `select u.time_zone from app_public.case_members m join app_public.users u on u.id = m.user_id
          where m.case_id = $1 and m.acts_as_patient order by m.created_at limit 1`,
        [input.caseId],
      );
      if (zone.rows[0]) variables.timeZone = { value: zone.rows[0].time_zone, type: 'String' };
    }
    if (input.businessKey) {
      const running = await sql.query(
        `select 1 from app_public.workflow_instances where case_id = $1 and business_key = $2 and state = 'ACTIVE'`,
        [input.caseId, input.businessKey],
      );
      if (running.rowCount) {
        throw invalidRequest(`The case already has a running process with the business key '${input.businessKey}'.`);
      }
    }
    const now = this.clock.now();
    const inserted = await sql.query<{ id: string }>(
      `insert into app_public.workflow_instances (definition_key, definition_version, business_key, case_id, start_time, variables)
       values ($1, $2, $3, $4, $5, $6) returning id`,
      [definition.key, definition.version, input.businessKey, input.caseId, now, JSON.stringify(variables)],
    );
    const id = inserted.rows[0]!.id;
    // Lock the new row like every other step does (nobody else can see it before commit anyway).
    await sql.query('select 1 from app_public.workflow_instances where id = $1 for update', [id]);
    const outcome = await runStep(
      this.stepSettings(sql),
      definition,
      { id, caseId: input.caseId, businessKey: input.businessKey, variables, engineState: null, step: 0, openTasks: [], jobs: [] },
      { kind: 'start' },
    );
    return { id, definition, outcome };
  }

  /**
   * Runs one event on one instance: locks its row, recovers the engine and applies the event.
   * `accept` may refuse after the lock (for example correlation keys that no longer match).
   */
  async stepInTx(
    sql: Sql,
    instanceId: string,
    event: StepEvent,
    accept?: (instance: LockedInstance) => boolean,
  ): Promise<StepOutcome | undefined> {
    const { rows } = await sql.query<LockedInstance>({
      name: 'sanad-workflow-lock',
      text: `select id, case_id, business_key, definition_key, definition_version, state, variables
               from app_public.workflow_instances where id = $1 for update`,
      values: [instanceId],
    });
    const instance = rows[0];
    if (!instance || instance.state !== 'ACTIVE') return undefined;
    if (accept && !accept(instance)) return undefined;
    const outcome = await this.stepLocked(sql, instance, event);
    return outcome === 'not due' ? undefined : outcome;
  }

  /**
   * Runs one event on an instance whose row this transaction has locked. Reads the rest in a
   * statement of its own, after the lock: when the lock had to wait for another step, only a new
   * statement sees what that step committed (READ COMMITTED gives the locking statement the
   * newest instance row but the other tables as they were when it began, so a join there would
   * recover the engine from the state before that step). With `dueJobId` (a fired job) the same
   * statement reads that job again, and the step runs only if it is still there and due.
   */
  private async stepLocked(sql: Sql, instance: LockedInstance, event: StepEvent, dueJobId?: string): Promise<StepOutcome | 'not due' | undefined> {
    // Named statements (here and in the claim and the lock): each connection plans them once.
    const stored = await sql.query<StoredStep>({
      name: 'sanad-workflow-state',
      text: `select s.state as engine_state, s.step,
              coalesce((select json_agg(json_build_object('id', t.id, 'executionId', t.execution_id))
                          from app_public.workflow_tasks t where t.process_instance_id = $1 and t.end_time is null), '[]') as open_tasks,
              coalesce((select json_agg(json_build_object('executionId', j.execution_id, 'kind', j.kind, 'attempts', j.attempts))
                          from app_public.workflow_jobs j where j.process_instance_id = $1), '[]') as jobs,
              exists (select 1 from app_public.workflow_jobs j where j.id = $2 and j.failed_at is null and j.due_date <= $3) as job_due
         from app_private.workflow_engine_states s where s.instance_id = $1`,
      values: [instance.id, dueJobId ?? null, this.clock.now()],
    });
    const step = stored.rows[0];
    if (!step) return undefined;
    if (dueJobId && !step.job_due) return 'not due';
    const definition = await this.definitions.get(sql, instance.definition_key, instance.definition_version);
    return runStep(
      this.stepSettings(sql),
      definition,
      {
        id: instance.id,
        caseId: instance.case_id,
        businessKey: instance.business_key,
        variables: instance.variables,
        engineState: step.engine_state,
        step: step.step,
        openTasks: step.open_tasks,
        jobs: step.jobs,
      },
      event,
    );
  }

  /** Correlates a message to each candidate that waits for it (Camunda's correlateAll). */
  async correlateInTx(sql: Sql, input: CorrelationInput): Promise<CorrelationResult[]> {
    const results: CorrelationResult[] = [];
    for (const candidate of input.candidates) {
      const outcome = await this.stepInTx(
        sql,
        candidate.id,
        { kind: 'message', messageName: input.messageName, variables: input.variables },
        (instance) =>
          (input.businessKey === undefined || instance.business_key === input.businessKey) &&
          (input.processInstanceId === undefined || instance.id === input.processInstanceId) &&
          matchesCorrelationKeys(instance.variables, input.correlationKeys ?? {}),
      );
      if (outcome?.matched) results.push({ processInstanceId: candidate.id, ended: outcome.state === 'COMPLETED' });
    }
    return results;
  }

  /** Ends an instance from outside (DELETE /process-instance/{id}): no listeners, no end events. */
  async terminateInTx(sql: Sql, instanceId: string): Promise<boolean> {
    const { rows } = await sql.query<{ state: string }>(
      'select state from app_public.workflow_instances where id = $1 for update',
      [instanceId],
    );
    if (rows[0]?.state !== 'ACTIVE') return false;
    const now = this.clock.now();
    await sql.query(
      `update app_public.workflow_instances
          set state = 'EXTERNALLY_TERMINATED', end_time = $2, waiting_messages = '{}', waiting_signals = '{}', waiting_executions = '{}'
        where id = $1`,
      [instanceId, now],
    );
    await sql.query(
      `update app_public.workflow_tasks set end_time = $2, delete_reason = 'deleted' where process_instance_id = $1 and end_time is null`,
      [instanceId, now],
    );
    await sql.query(`update app_public.workflow_history set end_time = $2 where process_instance_id = $1 and end_time is null`, [instanceId, now]);
    await sql.query('delete from app_public.workflow_jobs where process_instance_id = $1', [instanceId]);
    await sql.query('delete from app_private.workflow_engine_states where instance_id = $1', [instanceId]);
    return true;
  }

  /** The active instances of a case that wait for a message (system correlation: the outbox). */
  async waitingInCase(sql: Sql, caseId: string, messageName: string): Promise<{ id: string }[]> {
    const { rows } = await sql.query<{ id: string }>(
      `select id from app_public.workflow_instances
        where case_id = $1 and state = 'ACTIVE' and $2 = any (waiting_messages) order by start_time`,
      [caseId, messageName],
    );
    return rows;
  }

  // Scheduler work ----------------------------------------------------------------------------

  /**
   * Fires up to `limit` due jobs (timers and retries) in one transaction. One statement claims
   * them by locking their instance rows with FOR UPDATE SKIP LOCKED, so another server process
   * skips those instances; each job is then a step of its own on the locked instance, which reads
   * the job again and fires the timer only if the engine still waits for it: each timer fires
   * once, and a crash before the commit leaves every claimed job due. A batch saves the claim,
   * the instance lock and the commit per firing. If one step fails, the batch rolls back and its
   * jobs fire one transaction each, so the failing one cannot hold the others back; it stays due
   * and is logged. Returns how many jobs it handled (0: none is due, or only failing ones).
   */
  async fireDueJobs(limit = JOB_BATCH): Promise<number> {
    let claimed: ClaimedJob[] = [];
    try {
      await withOwner(this.options.pool, async (sql) => {
        claimed = await this.claimDueJobs(sql, limit);
        // One job per instance and batch: a second job of the same instance waits for the next
        // batch, where its step starts from what the first one wrote.
        const instances = new Set<string>();
        for (const job of claimed) {
          if (instances.has(job.id)) continue;
          instances.add(job.id);
          await this.fireClaimed(sql, job);
        }
      });
      return claimed.length;
    } catch (error) {
      if (claimed.length <= 1) {
        this.options.log.error({ err: error, jobId: claimed[0]?.job_id }, 'workflow job failed; it stays due');
        return 0;
      }
      let handled = 0;
      for (const job of claimed) {
        try {
          await withOwner(this.options.pool, async (sql) => {
            for (const again of await this.claimDueJobs(sql, 1, job.job_id)) await this.fireClaimed(sql, again);
          });
          handled += 1;
        } catch (jobError) {
          this.options.log.error({ err: jobError, jobId: job.job_id }, 'workflow job failed; it stays due');
        }
      }
      return handled;
    }
  }

  /** Fires one due job in a transaction of its own (true: one was claimed). */
  async fireOneDueJob(): Promise<boolean> {
    return (await this.fireDueJobs(1)) > 0;
  }

  /** Claims due jobs (or the one job `jobId`) with their instance rows locked; at most `limit`. */
  private async claimDueJobs(sql: Sql, limit: number, jobId?: string): Promise<ClaimedJob[]> {
    const { rows } = await sql.query<ClaimedJob>({
      name: 'sanad-workflow-claim',
      text: `select j.id as job_id, j.kind, j.execution_id,
              i.id, i.case_id, i.business_key, i.definition_key, i.definition_version, i.state, i.variables
         from app_public.workflow_jobs j
         join app_public.workflow_instances i on i.id = j.process_instance_id
        where j.due_date <= $1 and j.failed_at is null and i.state = 'ACTIVE' and ($3::uuid is null or j.id = $3)
        order by j.due_date
        limit $2
          for update of i skip locked`,
      values: [this.clock.now(), limit, jobId ?? null],
    });
    return rows;
  }

  /** One claimed job's step; a job the engine no longer waits for is deleted. */
  private async fireClaimed(sql: Sql, job: ClaimedJob): Promise<void> {
    const outcome = await this.stepLocked(sql, job, { kind: job.kind, executionId: job.execution_id }, job.job_id);
    if (outcome === 'not due') return;
    if (!outcome?.matched) {
      // The engine no longer waits for it (or the instance ended): the job is stale.
      await sql.query('delete from app_public.workflow_jobs where id = $1', [job.job_id]);
    }
  }

  /** Correlates one outbox row to its case's waiting processes; false when none is due. */
  async processOneOutboxRow(): Promise<boolean> {
    const claimedId = await withOwner(this.options.pool, async (sql) => {
      const { rows } = await sql.query<{ id: number; case_id: string; message_name: string; variables: unknown }>(
        `select id, case_id, message_name, variables from app_private.workflow_outbox
          where run_after <= greatest(now(), $1) and failed_at is null
          order by id limit 1 for update skip locked`,
        [this.clock.now()],
      );
      const row = rows[0];
      if (!row) return null;
      try {
        await sql.query('savepoint outbox_row');
        const variables = outboxVariables(row.variables);
        const candidates = await this.waitingInCase(sql, row.case_id, row.message_name);
        await this.correlateInTx(sql, { messageName: row.message_name, variables, candidates });
        await sql.query('delete from app_private.workflow_outbox where id = $1', [row.id]);
      } catch (error) {
        await sql.query('rollback to savepoint outbox_row');
        await this.recordQueueFailure(sql, 'app_private.workflow_outbox', row.id, error);
      }
      return row.id;
    });
    return claimedId !== null;
  }

  /** Starts one requested process (registration starts the trial; safety starts carry variables, 0050). */
  async processOneStartRequest(): Promise<boolean> {
    const claimedId = await withOwner(this.options.pool, async (sql) => {
      const { rows } = await sql.query<{ id: number; case_id: string; definition_key: string; business_key: string | null; variables: unknown }>(
        `select id, case_id, definition_key, business_key, variables from app_private.workflow_start_requests
          where run_after <= greatest(now(), $1) and failed_at is null order by id limit 1 for update skip locked`,
        [this.clock.now()],
      );
      const row = rows[0];
      if (!row) return null;
      try {
        await sql.query('savepoint start_request');
        const variables = outboxVariables(row.variables);
        await this.startInTx(sql, { key: row.definition_key, caseId: row.case_id, businessKey: row.business_key, variables });
        await sql.query('delete from app_private.workflow_start_requests where id = $1', [row.id]);
      } catch (error) {
        await sql.query('rollback to savepoint start_request');
        await this.recordQueueFailure(sql, 'app_private.workflow_start_requests', row.id, error);
      }
      return row.id;
    });
    return claimedId !== null;
  }

  private async recordQueueFailure(sql: Sql, table: string, id: number, error: unknown): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.options.log.warn({ table, id, err: error }, 'workflow queue entry failed; retrying later');
    await sql.query(
      `update ${table} set attempts = attempts + 1, last_error = $2,
              run_after = greatest(now(), $5) + make_interval(secs => $3 * power(2, attempts)),
              failed_at = case when attempts + 1 >= $4 then now() end
        where id = $1`,
      [id, message.slice(0, 2000), this.retryBaseMs / 1000, this.maxAttempts, this.clock.now()],
    );
  }
}

/** Outbox variables are Camunda-typed; plain values are accepted too (typed by their JSON type). */
export function outboxVariables(raw: unknown): TypedVariables {
  const result: TypedVariables = {};
  if (!raw || typeof raw !== 'object') return result;
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'value' in value && 'type' in value) result[name] = value as TypedVariables[string];
    else result[name] = typed(value);
  }
  return result;
}

export function requireFound<T>(value: T | undefined | null, message: string): T {
  if (value === undefined || value === null) throw notFound(message);
  return value;
}
