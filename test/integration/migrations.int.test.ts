/**
 * The migration runner on the database under test (PGlite, and PostgreSQL when configured):
 * a fresh database migrates, a second run is a no-op, concurrent runs apply each file once,
 * and an edited applied migration is refused.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrationsUpToDate, MIGRATIONS_DIR, readMigrations } from '../../src/server/db/migrate';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ empty: true });
});
afterAll(async () => {
  await database?.destroy();
});

function copyOfMigrations(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sanad-migrations-'));
  for (const file of fs.readdirSync(MIGRATIONS_DIR)) fs.copyFileSync(path.join(MIGRATIONS_DIR, file), path.join(dir, file));
  return dir;
}

describe('migrations', () => {
  it('apply to an empty database, concurrently without applying anything twice', async () => {
    const results = await Promise.all([migrate(database.db.pool), migrate(database.db.pool)]);
    const applied = results.flatMap((r) => r.applied);
    expect(applied.sort()).toEqual(readMigrations().map((m) => m.name).sort());
    expect(await migrationsUpToDate(database.db.pool)).toBe(true);
  });

  it('are a no-op when everything is applied', async () => {
    const again = await migrate(database.db.pool);
    expect(again.applied).toEqual([]);
    expect(again.alreadyApplied).toBe(readMigrations().length);
  });

  it('refuse an applied migration that was edited since', async () => {
    const dir = copyOfMigrations();
    const first = readMigrations(dir)[0]!;
    fs.appendFileSync(path.join(dir, first.name), '\n-- an innocent-looking edit\n');
    await expect(migrate(database.db.pool, dir)).rejects.toThrow(/was edited after it was applied/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('roll back a failing migration completely and report which one failed', async () => {
    const dir = copyOfMigrations();
    fs.writeFileSync(
      path.join(dir, '9999-broken.sql'),
      'create table app_public.half_done (id int);\nselect no_such_function();\n',
    );
    await expect(migrate(database.db.pool, dir)).rejects.toThrow(/9999-broken\.sql failed/);
    const { rows } = await database.db.pool.query(`select to_regclass('app_public.half_done') as t`);
    expect(rows[0].t).toBeNull();
    expect(await migrationsUpToDate(database.db.pool)).toBe(true);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuse a database that has a migration this code does not know', async () => {
    const dir = copyOfMigrations();
    const files = fs.readdirSync(dir).sort();
    fs.rmSync(path.join(dir, files[files.length - 1]!));
    await expect(migrate(database.db.pool, dir)).rejects.toThrow(/does not know/);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Last: it applies a migration only its own copy knows.
  it('let a migration change rows and then alter their table (deferred triggers run at once)', async () => {
    const dir = copyOfMigrations();
    fs.writeFileSync(
      path.join(dir, '9998-backfill.sql'),
      `insert into app_public.users (username, email, locale, time_zone) values ('backfill', 'backfill@example.org', 'en', 'UTC');
       update app_public.users set username = username;
       alter table app_public.users add column backfilled boolean;
       alter table app_public.users drop column backfilled;\n`,
    );
    const result = await migrate(database.db.pool, dir);
    expect(result.applied).toEqual(['9998-backfill.sql']);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
