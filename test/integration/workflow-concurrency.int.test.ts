/**
 * Two steps of one instance at the same time (PostgreSQL only: PGlite has one connection).
 * The second step waits for the first one's row lock and must then continue from the state the
 * first one committed, never from what it read before the lock was granted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app';
import { testDatabaseKind } from '../helpers/databases';

const onPostgres = testDatabaseKind() === 'postgres';
let t: TestApp;

describe.skipIf(!onPostgres)('workflow steps racing on one instance', () => {
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a task completed while another completion waits for the lock is completed once', async () => {
    const pool = t.database.db.pool;
    const host = t.sanad.workflow.host;
    const coordinator = await t.user({ flags: ['coordinator'] });
    const patient = await t.user({ flags: ['patient'] });
    await pool.query(`select app_hidden.request_workflow_start($1, 'trial', 'trial')`, [patient.caseId]);
    await t.sanad.workflow.tick();
    const { rows } = await pool.query<{ id: string; process_instance_id: string; execution_id: string }>(
      `select id, process_instance_id, execution_id from app_public.workflow_tasks
        where case_id = $1 and task_definition_key = 'screeningTask' and end_time is null`,
      [patient.caseId],
    );
    const task = rows[0]!;

    // The first completion runs and holds the instance lock until it commits.
    const first = await pool.connect();
    let second: Promise<{ status: number }> | undefined;
    try {
      await first.query('begin');
      const outcome = await host.stepInTx(first, task.process_instance_id, {
        kind: 'completeTask',
        executionId: task.execution_id,
        variables: { excluded: { value: false, type: 'Boolean' } },
        userId: null,
      });
      expect(outcome?.matched).toBe(true);
      // The second completion still sees the task open and waits for the lock.
      // (The screening task declares no form fields: the coordinator completes it by hand with none.)
      second = t.api('POST', `/api/workflow/rest/task/${task.id}/submit-form`, { token: coordinator.token, body: {} });
      await waitUntilBlocked(pool);
      await first.query('commit');
    } finally {
      first.release();
    }
    expect((await second!).status).toBe(404);

    const { rows: counts } = await pool.query(
      `select (select count(*) from app_public.workflow_tasks where process_instance_id = $1 and task_definition_key = 'bookTask')::int as book_tasks,
              (select count(*) from app_public.workflow_history where process_instance_id = $1 and activity_id = 'interviewStage')::int as interview_stages`,
      [task.process_instance_id],
    );
    expect(counts[0]).toEqual({ book_tasks: 1, interview_stages: 1 });
  });
});

/** Waits until some session waits for a row lock (the second completion). */
async function waitUntilBlocked(pool: import('pg').Pool): Promise<void> {
  for (let i = 0; i < 200; i += 1) {
    const { rows } = await pool.query(
      `select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (rows[0].n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the second completion never waited for the lock');
}
