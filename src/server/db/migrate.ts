/**
 * Migration runner: plain SQL files in db/migrations, applied in order, each in its own
 * transaction, under an advisory lock so that several server processes starting at once
 * apply each file exactly once. Every applied file is recorded with a SHA-256 checksum; a file
 * edited after it was applied is refused, because the database no longer matches its history.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { repoPath } from '../paths';

export const MIGRATIONS_DIR = repoPath('db/migrations');

/** Arbitrary but fixed: the advisory lock key shared by every Sanad process. */
const MIGRATION_LOCK_KEY = 727_001;

export interface MigrationFile {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

const FILE_PATTERN = /^(\d{4})-([a-z0-9-]+)\.sql$/;

export function readMigrations(dir = MIGRATIONS_DIR): MigrationFile[] {
  const files = fs.readdirSync(dir).filter((name) => name.endsWith('.sql')).sort();
  const migrations: MigrationFile[] = [];
  for (const file of files) {
    const match = FILE_PATTERN.exec(file);
    if (!match) throw new MigrationError(`Migration file ${file} must be named NNNN-name.sql`);
    const sql = fs.readFileSync(path.join(dir, file), 'utf8');
    const id = Number(match[1]);
    if (migrations.some((m) => m.id === id)) throw new MigrationError(`Two migrations share the number ${match[1]}`);
    migrations.push({ id, name: file, sql, checksum: crypto.createHash('sha256').update(sql).digest('hex') });
  }
  return migrations;
}

export interface MigrationResult {
  applied: string[];
  alreadyApplied: number;
}

export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<MigrationResult> {
  const migrations = readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      return await applyPending(client, migrations);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
}

async function applyPending(client: pg.PoolClient, migrations: MigrationFile[]): Promise<MigrationResult> {
  await client.query(`
    create schema if not exists app_migrations;
    create table if not exists app_migrations.migrations (
      id integer primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    );
    alter table app_migrations.migrations enable row level security;
  `);
  const { rows } = await client.query<{ id: number; name: string; checksum: string }>(
    'select id, name, checksum from app_migrations.migrations order by id',
  );
  const known = new Map(migrations.map((m) => [m.id, m]));
  for (const row of rows) {
    const file = known.get(row.id);
    if (!file) {
      throw new MigrationError(
        `The database has migration ${row.name}, which this version of Sanad does not know: is an older version running against a newer database?`,
      );
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `Migration ${file.name} was edited after it was applied (checksum differs). Applied migrations must not change: revert the edit and add a new migration instead.`,
      );
    }
  }
  const appliedIds = new Set(rows.map((r) => r.id));
  const applied: string[] = [];
  for (const migration of migrations) {
    if (appliedIds.has(migration.id)) continue;
    // Deferrable triggers run as each statement ends, not at commit: a migration that changes
    // rows and then alters their table (a backfill before a new constraint) would otherwise
    // meet "pending trigger events" (the read-version triggers of 0015 are deferred).
    await client.query('begin; set constraints all immediate');
    try {
      await client.query(migration.sql);
      await client.query('insert into app_migrations.migrations (id, name, checksum) values ($1, $2, $3)', [
        migration.id,
        migration.name,
        migration.checksum,
      ]);
      await client.query('commit');
    } catch (error) {
      await client.query('rollback');
      throw new MigrationError(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
    }
    applied.push(migration.name);
  }
  return { applied, alreadyApplied: rows.length };
}

/** True when every migration file is applied; /readyz uses it. */
export async function migrationsUpToDate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<boolean> {
  const files = readMigrations(dir);
  const { rows } = await pool.query<{ id: number; checksum: string }>('select id, checksum from app_migrations.migrations');
  const applied = new Map(rows.map((r) => [r.id, r.checksum]));
  return files.every((f) => applied.get(f.id) === f.checksum);
}
