/**
 * The task list names people (issue 26: "task and report lists show short ids, not patient
 * names"): each row of the web's task-list query carries the patient of its case and the
 * assignee as accounts with their names (alias), as far as the reader may see them; the
 * assignee's account id alone is never the only thing a screen has to show.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';
import { trialDriver } from '../helpers/trial';

let t: TestApp;
const trial = trialDriver(() => t);
const pool = () => t.database.db.pool;

beforeAll(async () => {
  t = await startTestApp();
}, 120_000);
afterAll(async () => {
  await t?.close();
});

// The row fields of src/web/features/tasks/api.ts (TaskRowFields).
const TASKS = `query { openWorkflowTasks(first: 50) { nodes {
  id taskDefinitionKey assignee caseId
  caseByCaseId { id shortId patient { id alias } }
  assigneePerson { id alias }
} } }`;

describe('task rows name people', () => {
  it('carry the patient’s and the assignee’s names to whoever sees the task, and nothing to others', async () => {
    const coordinator = await t.user({ flags: ['coordinator'], alias: 'Coordinator Lea' });
    const therapist = await t.user({ flags: ['therapist'], alias: 'Dr. Samir Haddad' });
    const outsider = await t.user({ flags: ['therapist'], alias: 'Someone else' });
    const { caseId } = await trial.newTrialCase([], { alias: 'Amal K.' });
    await addMember(pool(), caseId, therapist.username, ['therapist']);
    await pool().query(`update app_public.workflow_tasks set assignee = $2 where case_id = $1 and end_time is null`, [caseId, therapist.id]);

    for (const reader of [coordinator, therapist]) {
      const answer = await t.graphql(TASKS, {}, reader.token);
      expect(answer.errors).toBeUndefined();
      const row = (answer.data.openWorkflowTasks.nodes as { caseId: string; caseByCaseId: { patient: { alias: string } }; assigneePerson: { alias: string } }[]).find((n) => n.caseId === caseId);
      expect(row?.caseByCaseId.patient.alias).toBe('Amal K.');
      expect(row?.assigneePerson.alias).toBe('Dr. Samir Haddad');
    }
    const other = await t.graphql(TASKS, {}, outsider.token);
    expect(other.errors).toBeUndefined();
    expect((other.data.openWorkflowTasks.nodes as { caseId: string }[]).some((n) => n.caseId === caseId)).toBe(false);
  });
});
