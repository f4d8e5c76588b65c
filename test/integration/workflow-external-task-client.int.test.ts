/**
 * Camunda's own worker library, unmodified (camunda-external-task-client-js, a devDependency),
 * against a running Sanad (issue 29): a trial configures its `setStage` topic as external, the
 * worker subscribes at the engine-scoped base URL with a bearer token, long-polls, receives the
 * task with the variables it asked for, completes it with a variable of its own, and the trial
 * moves on to the screening task when the scheduler runs the step.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Client, Variables } from 'camunda-external-task-client-js';
import { withOwner } from '../../src/server/db/transaction';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
afterAll(async () => {
  await t?.close();
});
beforeAll(async () => {
  t = await startTestApp();
});

it('a worker written with camunda-external-task-client-js completes an external task', async () => {
  const coordinator = await t.user({ flags: ['coordinator'] });
  const patient = await t.user({ flags: ['patient'] });
  const caseId = patient.caseId!;
  const host = t.sanad.workflow.host;
  await withOwner(t.database.db.pool, async (sql) => {
    await sql.query(`insert into app_private.workflow_external_topics (topic, note) values ('setStage', 'set by the test worker')`);
    const { rows } = await sql.query(`select id from app_public.workflow_instances where case_id = $1 and state = 'ACTIVE'`, [caseId]);
    for (const row of rows) await host.terminateInTx(sql, row.id);
    await host.startInTx(sql, { key: 'trial', caseId, businessKey: 'trial', variables: {} });
  });

  const client = new Client({
    baseUrl: `${t.url}/api/workflow/rest/engine/default`,
    workerId: 'test-worker',
    asyncResponseTimeout: 2000,
    interval: 50,
    maxTasks: 5,
    autoPoll: false,
    // The client's request interceptor: Sanad's bearer token (as a Camunda deployment's auth header).
    interceptors: (config: { headers?: Record<string, string> }) => ({ ...config, headers: { ...config.headers, Authorization: `Bearer ${coordinator.token}` } }),
  });
  const handled = new Promise<{ stage: unknown; caseVariable: unknown }>((resolve, reject) => {
    client.subscribe('setStage', { lockDuration: 30_000, variables: ['caseId'] }, async ({ task, taskService }) => {
      try {
        const variables = new Variables();
        variables.set('stageSetBy', 'test-worker');
        await taskService.complete(task, variables);
        resolve({ stage: task.activityId, caseVariable: task.variables.get('caseId') });
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
  // The client reports its request failures as events, not as rejections: they fail the test.
  const failed = new Promise<never>((_, reject) => {
    for (const event of ['poll:error', 'complete:error']) client.on(event, (first: unknown, second?: unknown) => reject(new Error(`${event}: ${String(second ?? first)} ${String((second as { response?: { body?: unknown } })?.response?.body ?? "")}`)));
  });
  client.start();
  const result = await Promise.race([handled, failed]);
  client.stop();

  expect(result).toEqual({ stage: 'screeningStage', caseVariable: caseId });
  await t.sanad.workflow.tick();
  const { rows } = await t.database.db.pool.query(
    `select t.task_definition_key, i.variables->'stageSetBy' as set_by from app_public.workflow_tasks t
       join app_public.workflow_instances i on i.id = t.process_instance_id
      where t.case_id = $1 and t.end_time is null and i.state = 'ACTIVE'`,
    [caseId],
  );
  expect(rows).toEqual([{ task_definition_key: 'screeningTask', set_by: { value: 'test-worker', type: 'String' } }]);
});
