/**
 * db/schema.sql is the schema as it stands after every migration (src/server/db/schema-dump.ts).
 * On PGlite, which the committed file is dumped from, a fresh dump must equal it byte for byte;
 * on a PostgreSQL server, whose version may print definitions differently, it must name the same
 * objects. Either failure means: run `npm run schema:sql` and commit db/schema.sql.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dumpedNames, dumpObjects, dumpSchema, SCHEMA_SQL_FILE } from '../../src/server/db/schema-dump';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

const STALE = 'db/schema.sql differs from the migrated schema: run `npm run schema:sql` and commit db/schema.sql';

let database: TestDatabase;
let dump: string;
beforeAll(async () => {
  database = await createTestDatabase();
  dump = await dumpSchema(database.db.pool);
});
afterAll(async () => {
  await database?.destroy();
});

describe('db/schema.sql', () => {
  it('is current (run `npm run schema:sql` after adding a migration)', () => {
    const committed = fs.readFileSync(SCHEMA_SQL_FILE, 'utf8');
    if (database.kind === 'pglite') expect(dump === committed, STALE).toBe(true);
    expect(dumpedNames(dump), STALE).toEqual(dumpedNames(committed));
  });

  it('is the same on every run: sorted, without OIDs, owners or times', async () => {
    expect(await dumpSchema(database.db.pool)).toBe(dump);
    expect(dump).not.toMatch(/ owner to /i);
    const names = (await dumpObjects(database.db.pool)).map((o) => `${o.kind}: ${o.name}`);
    expect(dumpedNames(dump)).toEqual(names);
  });

  it('holds what a reader looks for: columns, row-level security, grants, policies, functions, triggers', () => {
    expect(dump).toContain('create table app_public.cases (');
    expect(dump).toMatch(/^alter table app_public\.cases enable row level security;$/m);
    expect(dump).toMatch(/^grant select \([^)]*\bshort_id\b|^grant select on table app_public\.cases to sanad_user;$/m);
    expect(dump).toMatch(/^create policy \S+ on app_public\.case_messages as permissive for select to sanad_user$/m);
    expect(dump).toContain('CREATE OR REPLACE FUNCTION app_hidden.is_coordinator()');
    expect(dump).toMatch(/^CREATE TRIGGER _000_append_only BEFORE DELETE OR UPDATE ON app_public\.audit_log/m);
    expect(dump).not.toContain('app_migrations.');
  });

  it('tells a changed schema apart, so a stale file cannot pass', async () => {
    const client = await database.db.pool.connect();
    try {
      await client.query('begin');
      await client.query('create table app_public.schema_dump_probe (id uuid primary key)');
      await client.query('create policy probe_read on app_public.schema_dump_probe for select to sanad_user using (true)');
      const changed = await dumpSchema(client);
      expect(changed).not.toBe(dump);
      expect(dumpedNames(changed)).toContain('table: app_public.schema_dump_probe');
      expect(dumpedNames(changed)).toContain('policy: app_public.schema_dump_probe probe_read');
    } finally {
      await client.query('rollback');
      client.release();
    }
  });
});
