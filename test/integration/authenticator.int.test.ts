/**
 * Issue 34: the request pool's login role is powerless. On PostgreSQL the request pool logs in
 * as sanad_authenticator (migration 0300); a request transaction switches to its role, and SQL
 * that runs `reset role` inside it is left with a role that holds no privilege on any app table
 * and cannot become the owner. On PGlite one superuser session serves every caller: what it
 * can and cannot guarantee is docs/decisions/authenticator-role.md; the role's own powers are
 * checked there too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withUser, ANONYMOUS } from '../../src/server/db/transaction';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

let t: TestDatabase;
let owner: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const { rows } = await t.db.pool.query<{ owner: string }>('select current_user as owner');
  owner = rows[0]!.owner;
});
afterAll(async () => {
  await t?.destroy();
});

/** Every privilege any app table grants to the current role, as `schema.table:privilege`. */
const PRIVILEGES_OF_CURRENT_ROLE = `
  select n.nspname || '.' || c.relname || ':' || p.privilege as held
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    cross join unnest(array['select', 'insert', 'update', 'delete', 'truncate', 'references', 'trigger']) as p(privilege)
   where c.relkind in ('r', 'p', 'v', 'm') and n.nspname like 'app\\_%'
     and has_table_privilege(c.oid, p.privilege)`;

describe('the authenticator role', () => {
  it('is a NOINHERIT login role without special powers, a member of the request roles only', async () => {
    const { rows } = await t.db.pool.query(
      `select rolinherit, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolcanlogin,
              array(select g.rolname::text from pg_auth_members m join pg_roles g on g.oid = m.roleid
                     where m.member = r.oid order by 1) as member_of
         from pg_roles r where rolname = 'sanad_authenticator'`,
    );
    expect(rows[0]).toEqual({
      rolinherit: false,
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolbypassrls: false,
      rolcanlogin: true,
      member_of: ['sanad_anonymous', 'sanad_scorer', 'sanad_user'],
    });
  });

  it('holds no privilege on any app table, and owns nothing', async () => {
    const client = await t.db.pool.connect();
    try {
      await client.query('begin; set local role sanad_authenticator');
      expect((await client.query(PRIVILEGES_OF_CURRENT_ROLE)).rows).toEqual([]);
      const owned = await client.query(`select count(*) as n from pg_class where relowner = 'sanad_authenticator'::regrole`);
      expect(owned.rows[0].n).toBe(0);
      await expect(client.query('select 1 from app_public.users limit 1')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});

describe.runIf(process.env.SANAD_TEST_DB === 'postgres')('a request on PostgreSQL', () => {
  it('logs in as the authenticator and runs as the request role', async () => {
    const roles = await withUser(t.db.requestPool, ANONYMOUS, async (sql) => (await sql.query('select session_user::text as login, current_user::text as role')).rows[0]);
    expect(roles).toEqual({ login: 'sanad_authenticator', role: 'sanad_anonymous' });
  });

  it('after `reset role` holds no privilege on any app table and cannot reach the owner', async () => {
    await withUser(t.db.requestPool, ANONYMOUS, async (sql) => {
      await sql.query('reset role');
      const { rows } = await sql.query('select current_user::text as role');
      expect(rows[0].role).toBe('sanad_authenticator');
      expect((await sql.query(PRIVILEGES_OF_CURRENT_ROLE)).rows).toEqual([]);
      await sql.query('savepoint probe');
      await expect(sql.query(`set role "${owner}"`)).rejects.toMatchObject({ code: '42501' });
      await sql.query('rollback to savepoint probe');
      await expect(sql.query(`set session authorization "${owner}"`)).rejects.toMatchObject({ code: '42501' });
    }).catch((error: unknown) => {
      // The last refusal aborts the transaction, so its commit fails: the refusal is what counts.
      if ((error as { code?: string }).code !== '42501' && (error as { code?: string }).code !== '25P02') throw error;
    });
  });

  it('`set role none` and `reset session authorization` leave the authenticator too', async () => {
    const client = await t.db.requestPool.connect();
    try {
      await client.query('begin; set local role sanad_user; set role none; reset session authorization');
      const { rows } = await client.query('select current_user::text as role, session_user::text as login');
      expect(rows[0]).toEqual({ role: 'sanad_authenticator', login: 'sanad_authenticator' });
      await expect(client.query('select 1 from app_public.cases limit 1')).rejects.toMatchObject({ code: '42501' });
    } finally {
      await client.query('rollback');
      client.release();
    }
  });

  it('the owner pool stays the owner (migrations, CLI and background work)', async () => {
    const { rows } = await t.db.pool.query('select session_user::text as login');
    expect(rows[0].login).toBe(owner);
    expect(owner).not.toBe('sanad_authenticator');
  });
});
