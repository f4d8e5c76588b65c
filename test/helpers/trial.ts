/**
 * Driving a case through the trial process (workflows/trial.bpmn) in integration tests, the way
 * the features do it: the start queued as registration queues it, the features' messages
 * through `app_hidden.notify_workflow` (the outbox the scheduler delivers), and the people's
 * tasks completed over the REST route `submit-form` with their own tokens.
 *
 * `trialDriver(() => t)` binds the steps to a test file's app (its `t` is set in `beforeAll`, so
 * it is read when a step runs). `advance` takes a case from one phase to a later one and checks
 * on the way that each phase's task is open; tests that check more along the way (due dates,
 * candidate groups, messages) take the single steps instead.
 */
import { expect } from 'vitest';
import type { CaseRole } from '../../src/domain/roles';
import { addMember, type NewUser } from '../../src/server/admin/accounts';
import { withOwnerAs } from '../../src/server/db/transaction';
import { completeTaskAsServer } from '../../src/server/workflow/commands';
import type { TestApp } from './app';

export type Person = Awaited<ReturnType<TestApp['user']>>;

/** A process variable in the Camunda form the REST routes and `notify_workflow` take. */
export const typed = {
  string: (value: string) => ({ value, type: 'String' }),
  boolean: (value: boolean) => ({ value, type: 'Boolean' }),
  date: (value: Date) => ({ value: value.toISOString(), type: 'Date' }),
};

/**
 * The phases a case passes on the accepted path, named by the task that is open in each:
 * screening (screeningTask), booking (bookTask), interview (interviewTask), randomization
 * (randomizeTask), pre (preTask) and treatment (therapistTreatmentTask and patientTreatmentTask).
 */
export const TRIAL_PHASES = ['screening', 'booking', 'interview', 'randomization', 'pre', 'treatment'] as const;
export type TrialPhase = (typeof TRIAL_PHASES)[number];

const PHASE_TASK: Record<TrialPhase, string> = {
  screening: 'screeningTask',
  booking: 'bookTask',
  interview: 'interviewTask',
  randomization: 'randomizeTask',
  pre: 'preTask',
  treatment: 'therapistTreatmentTask',
};

export interface OpenTask {
  id: string;
  task_definition_key: string;
  due: Date | null;
  candidate_groups: string[];
}

export interface AdvanceOptions {
  /** The phase the case is in now; `screening` (just started) unless said. */
  from?: TrialPhase;
  /** Signs the interview outcome (to leave the interview phase). */
  interviewer?: Person;
  /** Completes the randomization task (to leave the randomization phase). */
  coordinator?: Person;
  /** The interview's outcome; `depression` unless said (any accepted problem leads on). */
  outcome?: string;
  /** The booked offer; `offer-<case id>` unless said, so that cases do not share one. */
  offerId?: string;
  /** The booking, as the booking feature sends it; none unless said. */
  bookingId?: string;
  /** When the booked interview starts; a day from the wall clock unless said. */
  startsAt?: Date;
}

const DAY = 86_400_000;

export function trialDriver(app: () => TestApp) {
  const pool = () => app().database.db.pool;
  const tick = () => app().sanad.workflow.tick();

  /** A feature's message to the case's processes, delivered as the scheduler delivers it. */
  async function notify(caseId: string, message: string, variables: Record<string, unknown> = {}): Promise<void> {
    await pool().query('select app_hidden.notify_workflow($1, $2, $3)', [caseId, message, JSON.stringify(variables)]);
    await tick();
  }

  /** As registration does: the start is queued and the scheduler runs it. */
  async function startTrial(caseId: string): Promise<void> {
    await pool().query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [caseId]);
    await tick();
  }

  /** A new patient (with `user`'s fields) whose case has these members and a started trial. */
  async function newTrialCase(members: { person: Person; roles: CaseRole[] }[] = [], user: Partial<NewUser> = {}): Promise<{ patient: Person; caseId: string }> {
    const patient = await app().user({ flags: ['patient'], ...user });
    const caseId = patient.caseId!;
    for (const { person, roles } of members) await addMember(pool(), caseId, person.username, roles);
    await startTrial(caseId);
    return { patient, caseId };
  }

  async function stage(caseId: string): Promise<string> {
    const { rows } = await pool().query('select stage from app_public.cases where id = $1', [caseId]);
    return rows[0].stage;
  }

  /** The case's open tasks (of `key` only, if given), oldest first. */
  async function openTasks(caseId: string, key?: string): Promise<OpenTask[]> {
    const { rows } = await pool().query(
      `select id, task_definition_key, due, candidate_groups from app_public.workflow_tasks
        where case_id = $1 and end_time is null and ($2::text is null or task_definition_key = $2) order by created, task_definition_key`,
      [caseId, key ?? null],
    );
    return rows;
  }

  /** The one open task `key` of the case (the test fails if there is none or more). */
  async function openTask(caseId: string, key: string): Promise<OpenTask> {
    const tasks = await openTasks(caseId, key);
    expect(tasks, `open task ${key}`).toHaveLength(1);
    return tasks[0]!;
  }

  /** Submits a task's form as `token`'s person; the answer is the caller's to check. */
  function submit(taskId: string, token: string, variables: Record<string, unknown> = {}) {
    return app().api('POST', `/api/workflow/rest/task/${taskId}/submit-form`, { token, body: { variables } });
  }

  /** Completes the open task `key` as `token`'s person (204 or the test fails) and lets the scheduler run. */
  async function complete(caseId: string, key: string, token: string, variables: Record<string, unknown> = {}): Promise<void> {
    const answer = await submit((await openTask(caseId, key)).id, token, variables);
    expect(answer.status, `${key}: ${JSON.stringify(answer.body)}`).toBe(204);
    await tick();
  }

  /** The questionnaires of `time` (pre, post, fu1, fu2) filled in: its open task completes. */
  async function measurement(caseId: string, time: string): Promise<void> {
    await openTask(caseId, `${time}Task`);
    await notify(caseId, `${time}MeasurementCompleted`, { timeOfMeasurement: typed.string(time) });
  }

  /**
   * The interview outcome as a signed report records it: no person can complete the interview
   * task (issue 27), so this takes the server's own door that finalizing a report takes
   * (completeTaskAsServer, src/server/reports/service.ts), recorded as by `interviewer`. Tests
   * of the report itself sign real reports (interview-reports.int.test.ts).
   */
  async function signedOutcome(caseId: string, interviewer: Person, outcome: string): Promise<void> {
    await openTask(caseId, 'interviewTask');
    const done = await withOwnerAs(pool(), interviewer.id, (sql) =>
      completeTaskAsServer(sql, app().sanad.workflow.host, {
        caseId,
        taskDefinitionKey: 'interviewTask',
        variables: { outcome: { value: outcome, type: 'String' } },
        completedBy: interviewer.id,
      }),
    );
    expect(done, 'interviewTask open').toBe(true);
    await tick();
  }

  /** A case waiting at "Randomize the patient" with the interview's `outcome` (ptsd or depression). */
  async function atRandomization(caseId: string, interviewer: Person, outcome = 'ptsd'): Promise<void> {
    await startTrial(caseId);
    await advance(caseId, 'randomization', { interviewer, outcome });
  }

  function needed(person: Person | undefined, role: string, step: string): Person {
    if (!person) throw new Error(`advance: leaving ${step} needs the ${role}`);
    return person;
  }

  /** One step of the accepted path: what moves a case out of `phase`. */
  async function leave(caseId: string, phase: TrialPhase, options: AdvanceOptions): Promise<void> {
    switch (phase) {
      case 'screening':
        return notify(caseId, 'screeningCompleted', { excluded: typed.boolean(false), exclusionReasons: typed.string('') });
      case 'booking':
        return notify(caseId, 'interviewBooked', {
          offerId: typed.string(options.offerId ?? `offer-${caseId}`),
          ...(options.bookingId === undefined ? {} : { bookingId: typed.string(options.bookingId) }),
          startsAt: typed.date(options.startsAt ?? new Date(Date.now() + DAY)),
        });
      case 'interview':
        return signedOutcome(caseId, needed(options.interviewer, 'interviewer', phase), options.outcome ?? 'depression');
      case 'randomization':
        return complete(caseId, 'randomizeTask', needed(options.coordinator, 'coordinator', phase).token);
      case 'pre':
        return measurement(caseId, 'pre');
      case 'treatment':
        throw new Error('advance: treatment is the last phase it drives to');
    }
  }

  /** Takes the case from `options.from` (screening) to `to` on the accepted path; each phase's task must be open. */
  async function advance(caseId: string, to: TrialPhase, options: AdvanceOptions = {}): Promise<void> {
    const from = TRIAL_PHASES.indexOf(options.from ?? 'screening');
    const until = TRIAL_PHASES.indexOf(to);
    if (until < from) throw new Error(`advance: ${to} comes before ${options.from}`);
    await openTask(caseId, PHASE_TASK[TRIAL_PHASES[from]!]);
    for (let phase = from; phase < until; phase += 1) {
      await leave(caseId, TRIAL_PHASES[phase]!, options);
      await openTask(caseId, PHASE_TASK[TRIAL_PHASES[phase + 1]!]);
    }
  }

  return { notify, startTrial, newTrialCase, stage, openTasks, openTask, submit, complete, measurement, advance, signedOutcome, atRandomization };
}
