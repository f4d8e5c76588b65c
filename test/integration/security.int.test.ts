/**
 * Row-level security, checked where it lives: schema-wide invariants first, then what each
 * role sees and may change through GraphQL (which runs every query under RLS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/server/admin/accounts';
import { startTestApp, type TestApp } from '../helpers/app';

let t: TestApp;
type Person = Awaited<ReturnType<TestApp['user']>>;
let coordinator: Person, therapist: Person, outsider: Person, patientA: Person, patientB: Person, interviewer: Person;

beforeAll(async () => {
  t = await startTestApp();
  coordinator = await t.user({ flags: ['coordinator'], alias: 'Coordinator One' });
  therapist = await t.user({ flags: ['therapist'] });
  outsider = await t.user({ flags: ['therapist', 'supervisor'] });
  interviewer = await t.user({ flags: ['interviewer'] });
  patientA = await t.user({ flags: ['patient'] });
  patientB = await t.user({ flags: ['patient'] });
  await addMember(t.database.db.pool, patientA.caseId!, therapist.username, ['therapist']);
});
afterAll(async () => {
  await t?.close();
});

const casesQuery = `{ allCases { nodes { id } } }`;
const caseIds = async (token: string) => {
  const result = await t.graphql(casesQuery, {}, token);
  expect(result.errors).toBeUndefined();
  return (result.data.allCases.nodes as { id: string }[]).map((n) => n.id).sort();
};

describe('schema-wide rules', () => {
  // Issue 34: these run on the request pool, which on PostgreSQL logs in as the authenticator.
  it('every table in every schema has row-level security enabled', async () => {
    const { rows } = await t.database.db.requestPool.query(
      `select n.nspname || '.' || c.relname as name
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and n.nspname like 'app\\_%' and not c.relrowsecurity`,
    );
    expect(rows.map((r) => r.name)).toEqual([]);
    const { rows: tables } = await t.database.db.requestPool.query(
      `select count(*) as n from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relkind = 'r' and n.nspname like 'app\\_%'`,
    );
    expect(tables[0].n).toBeGreaterThanOrEqual(8);
  });

  it('every security definer function pins its search_path', async () => {
    const { rows } = await t.database.db.requestPool.query(
      `select p.oid::regprocedure::text as name
         from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname like 'app\\_%' and p.prosecdef
          and not exists (select 1 from unnest(coalesce(p.proconfig, '{}')) c where c like 'search_path=%')`,
    );
    expect(rows).toEqual([]);
  });

  it('request roles have no privilege at all on app_private', async () => {
    const { rows } = await t.database.db.requestPool.query(
      `select has_schema_privilege('sanad_user', 'app_private', 'usage') as user_usage,
              has_schema_privilege('sanad_anonymous', 'app_private', 'usage') as anon_usage`,
    );
    expect(rows[0]).toEqual({ user_usage: false, anon_usage: false });
  });
});

describe('cases and profiles', () => {
  it('a patient sees only their own case', async () => {
    expect(await caseIds(patientA.token)).toEqual([patientA.caseId]);
    expect(await caseIds(patientB.token)).toEqual([patientB.caseId]);
    const direct = await t.graphql(`query($id: UUID!) { caseById(id: $id) { id } }`, { id: patientB.caseId }, patientA.token);
    expect(direct.data.caseById).toBeNull();
  });

  it('a patient sees their own profile and their care team, never another patient', async () => {
    const result = await t.graphql(`{ allUsers { nodes { id } } }`, {}, patientA.token);
    const ids = (result.data.allUsers.nodes as { id: string }[]).map((n) => n.id).sort();
    expect(ids).toEqual([patientA.id, therapist.id].sort());
  });

  it('staff who are not members see no case; members see theirs', async () => {
    expect(await caseIds(outsider.token)).toEqual([]);
    expect(await caseIds(interviewer.token)).toEqual([]);
    expect(await caseIds(therapist.token)).toEqual([patientA.caseId]);
  });

  it('a coordinator sees every case and every user', async () => {
    const ids = await caseIds(coordinator.token);
    expect(ids).toEqual(expect.arrayContaining([patientA.caseId, patientB.caseId]));
    const users = await t.graphql(`{ allUsers { totalCount } }`, {}, coordinator.token);
    expect(users.data.allUsers.totalCount).toBeGreaterThanOrEqual(6);
  });

  it('anonymous callers are refused, with a clear error', async () => {
    const result = await t.graphql(casesQuery, {});
    expect(result.data?.allCases ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toBe('You are not allowed to do this.');
    expect(result.errors?.[0]?.extensions?.code).toBe('42501');
  });
});

describe('changing cases and memberships', () => {
  it('a patient cannot change their case, a coordinator can', async () => {
    const update = `mutation($id: UUID!, $stage: String!) { updateCaseById(input: { id: $id, casePatch: { stage: $stage } }) { case { stage } } }`;
    const denied = await t.graphql(update, { id: patientA.caseId, stage: 'screening' }, patientA.token);
    expect(denied.errors?.[0]?.message).toBe('This record does not exist, or you are not allowed to change it.');
    expect(denied.errors?.[0]?.extensions?.code).toBe('NOT_FOUND_OR_DENIED');
    const { rows } = await t.database.db.pool.query('select stage from app_public.cases where id = $1', [patientA.caseId]);
    expect(rows[0].stage).toBe('registration');
    const allowed = await t.graphql(update, { id: patientA.caseId, stage: 'screening' }, coordinator.token);
    expect(allowed.errors).toBeUndefined();
    expect(allowed.data.updateCaseById.case.stage).toBe('screening');
  });

  it('only a coordinator creates cases and adds members', async () => {
    const create = `mutation { createCase(input: { case: { title: "x" } }) { case { id } } }`;
    expect((await t.graphql(create, {}, therapist.token)).errors?.length).toBeGreaterThan(0);
    const made = await t.graphql(create, {}, coordinator.token);
    expect(made.errors).toBeUndefined();
    const caseId = made.data.createCase.case.id;
    const add = `mutation($c: UUID!, $u: UUID!) { createCaseMember(input: { caseMember: { caseId: $c, userId: $u, actsAsTherapist: true } }) { caseMember { id } } }`;
    expect((await t.graphql(add, { c: caseId, u: outsider.id }, therapist.token)).errors?.length).toBeGreaterThan(0);
    expect((await t.graphql(add, { c: caseId, u: outsider.id }, coordinator.token)).errors).toBeUndefined();
    expect(await caseIds(outsider.token)).toEqual([caseId]);
  });

  it('a person edits their own profile, not someone else’s', async () => {
    const update = `mutation($id: UUID!, $alias: String!) { updateUserById(input: { id: $id, userPatch: { alias: $alias } }) { user { alias } } }`;
    const own = await t.graphql(update, { id: patientA.id, alias: 'Nour' }, patientA.token);
    expect(own.data.updateUserById.user.alias).toBe('Nour');
    const other = await t.graphql(update, { id: therapist.id, alias: 'Hacked' }, patientA.token);
    expect(other.data?.updateUserById ?? null).toBeNull();
    expect(other.errors?.[0]?.extensions?.code).toBe('NOT_FOUND_OR_DENIED');
    const { rows } = await t.database.db.pool.query('select alias from app_public.users where id = $1', [therapist.id]);
    expect(rows[0].alias).toBeNull();
  });

  it('account flags cannot be set through the API', async () => {
    const result = await t.graphql(
      `mutation($id: UUID!) { updateUserById(input: { id: $id, userPatch: { isCoordinatorAccount: true } }) { user { id } } }`,
      { id: patientA.id },
      patientA.token,
    );
    expect(result.errors?.[0]?.message).toMatch(/isCoordinatorAccount/);
  });
});

describe('audit log', () => {
  it('records who changed what, before and after', async () => {
    await t.graphql(
      `mutation($id: UUID!) { updateCaseById(input: { id: $id, casePatch: { diagnosis: "F43.1" } }) { case { id } } }`,
      { id: patientB.caseId },
      coordinator.token,
    );
    const { rows } = await t.database.db.pool.query(
      `select actor_id, operation, old_data->>'diagnosis' as before, new_data->>'diagnosis' as after
         from app_public.audit_log where case_id = $1 and table_name = 'cases' and operation = 'UPDATE' order by id desc limit 1`,
      [patientB.caseId],
    );
    expect(rows[0]).toEqual({ actor_id: coordinator.id, operation: 'UPDATE', before: null, after: 'F43.1' });
  });

  it('is readable by staff members and coordinators, not by patients or outsiders', async () => {
    const query = `query($id: UUID!) { allAuditLogs(condition: { caseId: $id }) { totalCount } }`;
    expect((await t.graphql(query, { id: patientA.caseId }, coordinator.token)).data.allAuditLogs.totalCount).toBeGreaterThan(0);
    expect((await t.graphql(query, { id: patientA.caseId }, therapist.token)).data.allAuditLogs.totalCount).toBeGreaterThan(0);
    expect((await t.graphql(query, { id: patientA.caseId }, patientA.token)).data.allAuditLogs.totalCount).toBe(0);
    expect((await t.graphql(query, { id: patientA.caseId }, outsider.token)).data.allAuditLogs.totalCount).toBe(0);
  });

  it('cannot be changed or deleted, not even by the owner', async () => {
    await expect(t.database.db.pool.query('update app_public.audit_log set operation = operation')).rejects.toThrow(/append-only/);
    await expect(t.database.db.pool.query('delete from app_public.audit_log')).rejects.toThrow(/append-only/);
    await expect(t.database.db.pool.query('truncate app_public.audit_log')).rejects.toThrow(/append-only/);
  });
});

describe('AllCoordinators', () => {
  const query = `query AllCoordinators { allCoordinators { nodes { id username alias email } } }`;
  it('gives staff the coordinators’ contact details', async () => {
    const result = await t.graphql(query, {}, therapist.token);
    expect(result.data.allCoordinators.nodes).toContainEqual({
      id: coordinator.id,
      username: coordinator.username,
      alias: 'Coordinator One',
      email: coordinator.email,
    });
  });
  it('gives patients nothing', async () => {
    const result = await t.graphql(query, {}, patientA.token);
    expect(result.data.allCoordinators.nodes).toEqual([]);
  });
});
