/**
 * Backup, restore and verify (issue 28), for both databases, as `npm run sanad -- backup`,
 * `restore` and `verify` (docs/OPERATIONS.md "Backup and restore"). A backup is a folder:
 *
 * - manifest.json: the database kind, the time, the last migration, and every table's row
 *   count and checksum, taken from the same snapshot as the copy itself;
 * - PGlite: pgdata.tar.gz, PGlite's own dump of its data directory (dumpDataDir), taken while
 *   the one connection is held, so no statement runs between the checksums and the copy;
 * - PostgreSQL: database.dump (pg_dump's custom format, from the checksums' exported snapshot)
 *   and roles.sql, the request roles the schema's grants and policies name, so the dump
 *   restores into an empty server where those roles do not exist yet;
 * - jwt-secret, when DATA_DIR holds a generated signing secret: sign-ins and the e-mail
 *   lookup keys derive from it, so a restored server without it could not find accounts by
 *   address.
 *
 * verify compares a database's row counts and checksums with a manifest.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { PGlite } from '@electric-sql/pglite';

export const MANIFEST = 'manifest.json';
export const PGLITE_ARCHIVE = 'pgdata.tar.gz';
export const POSTGRES_DUMP = 'database.dump';
export const ROLES_FILE = 'roles.sql';
export const SECRET_FILE = 'jwt-secret';

export interface TableSum {
  rows: number;
  checksum: string;
}

export interface Manifest {
  format: 1;
  kind: 'pglite' | 'postgres';
  createdAt: string;
  lastMigration: string | null;
  tables: Record<string, TableSum>;
}

/** Session settings under which a row's text is the same on every run (time zone, formats). */
const STABLE_TEXT = "set local timezone = 'UTC'; set local datestyle = 'ISO, YMD'; set local intervalstyle = 'iso_8601'; set local extra_float_digits = 1";

/**
 * Every table's row count and an order-independent checksum of its rows (md5 of the sorted
 * md5s of each row's text), read through `client` inside its current transaction.
 */
export async function tableSums(client: pg.ClientBase): Promise<Record<string, TableSum>> {
  const { rows: tables } = await client.query<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
      order by 1`,
  );
  const sums: Record<string, TableSum> = {};
  for (const { name } of tables) {
    const { rows } = await client.query<{ n: number; checksum: string | null }>(
      `select count(*)::int as n, md5(string_agg(h, '' order by h)) as checksum from (select md5(t::text) as h from only ${name} t) s`,
    );
    sums[name] = { rows: rows[0]!.n, checksum: rows[0]!.checksum ?? '' };
  }
  return sums;
}

async function lastMigration(client: pg.ClientBase): Promise<string | null> {
  const { rows } = await client.query<{ name: string | null }>(
    `select (select name from app_migrations.migrations order by id desc limit 1) as name where to_regclass('app_migrations.migrations') is not null`,
  );
  return rows[0]?.name ?? null;
}

/** The differences between two sets of sums, as lines a person reads ("app_public.cases: 3 rows, expected 4"). */
export function compareSums(expected: Record<string, TableSum>, actual: Record<string, TableSum>): string[] {
  const problems: string[] = [];
  for (const [name, want] of Object.entries(expected)) {
    const got = actual[name];
    if (!got) problems.push(`${name}: missing`);
    else if (got.rows !== want.rows) problems.push(`${name}: ${got.rows} rows, the backup has ${want.rows}`);
    else if (got.checksum !== want.checksum) problems.push(`${name}: same row count, different contents`);
  }
  for (const name of Object.keys(actual)) if (!(name in expected)) problems.push(`${name}: not in the backup`);
  return problems;
}

function writeManifest(dir: string, manifest: Manifest): void {
  // Written last: a folder with a manifest is a finished backup.
  fs.writeFileSync(path.join(dir, `${MANIFEST}.partial`), `${JSON.stringify(manifest, null, 2)}\n`);
  fs.renameSync(path.join(dir, `${MANIFEST}.partial`), path.join(dir, MANIFEST));
}

export function readManifest(dir: string): Manifest {
  const file = path.join(dir, MANIFEST);
  if (!fs.existsSync(file)) throw new BackupError(`${dir} is not a finished backup: it has no ${MANIFEST}.`);
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8')) as Manifest;
  if (manifest.format !== 1 || (manifest.kind !== 'pglite' && manifest.kind !== 'postgres')) throw new BackupError(`${file} is not a Sanad backup manifest.`);
  return manifest;
}

/** A failure the message explains (the CLI prints it without a stack trace). */
export class BackupError extends Error {
  override name = 'BackupError';
}

function prepareOutput(dir: string): void {
  if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) throw new BackupError(`${dir} is not empty; give a new folder for the backup.`);
  fs.mkdirSync(dir, { recursive: true });
}

function copySecret(dataDir: string, dir: string): void {
  const secret = path.join(dataDir, SECRET_FILE);
  if (fs.existsSync(secret)) fs.copyFileSync(secret, path.join(dir, SECRET_FILE));
}

/**
 * PGlite: holds the pool's one connection (every request waits meanwhile, for the few seconds
 * a clinic's database takes), sums the tables in a read-only transaction, and dumps the data
 * directory before letting go, so the copy is exactly what was summed.
 */
export async function backupPglite(pool: pg.Pool, pglite: PGlite, dataDir: string, dir: string): Promise<Manifest> {
  prepareOutput(dir);
  const client = await pool.connect();
  try {
    await client.query(`begin read only; ${STABLE_TEXT}`);
    const tables = await tableSums(client);
    const migration = await lastMigration(client);
    await client.query('commit');
    const archive = await pglite.dumpDataDir('gzip');
    fs.writeFileSync(path.join(dir, PGLITE_ARCHIVE), Buffer.from(await archive.arrayBuffer()));
    copySecret(dataDir, dir);
    const manifest: Manifest = { format: 1, kind: 'pglite', createdAt: new Date().toISOString(), lastMigration: migration, tables };
    writeManifest(dir, manifest);
    return manifest;
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** Runs a PostgreSQL client program; its error output becomes the failure's message. */
function runTool(program: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (errors += chunk));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new BackupError(`${program} was not found: install the PostgreSQL client programs (Debian: apt-get install postgresql-client).`) : error),
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new BackupError(`${program} failed (exit ${code}):\n${errors.trim()}`))));
  });
}

/** The request roles and their memberships, as statements that create what is missing. */
async function rolesScript(client: pg.ClientBase): Promise<string> {
  const { rows: roles } = await client.query<{ name: string; login: boolean; inherit: boolean; bypassrls: boolean }>(
    `select rolname as name, rolcanlogin as login, rolinherit as inherit, rolbypassrls as bypassrls from pg_roles where rolname like 'sanad\\_%' order by rolname`,
  );
  const { rows: members } = await client.query<{ role: string; member: string }>(
    `select r.rolname as role, m.rolname as member from pg_auth_members a join pg_roles r on r.oid = a.roleid join pg_roles m on m.oid = a.member
      where r.rolname like 'sanad\\_%' and m.rolname like 'sanad\\_%' order by 1, 2`,
  );
  const ident = (name: string) => pg.escapeIdentifier(name);
  const lines = [
    '-- The roles the schema grants to (written by `npm run sanad -- backup`). Roles belong to the',
    '-- server, not the database, so a dump does not hold them; this creates those that are missing',
    '-- and lets the restoring (owner) user switch to them, as migrations 0001 and 0081 do.',
  ];
  for (const role of roles) {
    const options = [role.login ? 'login' : 'nologin', role.inherit ? 'inherit' : 'noinherit', role.bypassrls ? 'bypassrls' : 'nobypassrls'].join(' ');
    lines.push(`do $$ begin if not exists (select 1 from pg_roles where rolname = ${pg.escapeLiteral(role.name)}) then create role ${ident(role.name)} ${options}; end if; end $$;`);
  }
  for (const { role, member } of members) lines.push(`grant ${ident(role)} to ${ident(member)};`);
  for (const role of roles) if (!role.login) lines.push(`grant ${ident(role.name)} to current_user;`);
  return `${lines.join('\n')}\n`;
}

/**
 * PostgreSQL: a repeatable-read transaction exports its snapshot; the sums, the roles and
 * pg_dump all read that snapshot, so the manifest describes exactly the dump while the server
 * keeps serving.
 */
export async function backupPostgres(databaseUrl: string, dataDir: string, dir: string): Promise<Manifest> {
  prepareOutput(dir);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`begin isolation level repeatable read read only; ${STABLE_TEXT}`);
    const { rows } = await client.query<{ snapshot: string }>('select pg_export_snapshot() as snapshot');
    const dump = runTool('pg_dump', ['--format=custom', `--snapshot=${rows[0]!.snapshot}`, `--file=${path.join(dir, POSTGRES_DUMP)}`, `--dbname=${databaseUrl}`]);
    // pg_dump failing early must not leave the sums' promise unobserved.
    dump.catch(() => undefined);
    const tables = await tableSums(client);
    const migration = await lastMigration(client);
    fs.writeFileSync(path.join(dir, ROLES_FILE), await rolesScript(client));
    await dump;
    await client.query('commit');
    copySecret(dataDir, dir);
    const manifest: Manifest = { format: 1, kind: 'postgres', createdAt: new Date().toISOString(), lastMigration: migration, tables };
    writeManifest(dir, manifest);
    return manifest;
  } finally {
    await client.end();
  }
}

/** The signing secret of the backup into DATA_DIR, unless one is there already (never overwritten). */
function restoreSecret(dir: string, dataDir: string): void {
  const from = path.join(dir, SECRET_FILE);
  const to = path.join(dataDir, SECRET_FILE);
  if (!fs.existsSync(from)) return;
  fs.mkdirSync(dataDir, { recursive: true });
  if (fs.existsSync(to)) {
    if (fs.readFileSync(to).equals(fs.readFileSync(from))) return;
    throw new BackupError(`${to} holds a different signing secret; move it away to restore the backup's, or set JWT_SECRET to the one the backed-up server used.`);
  }
  fs.copyFileSync(from, to, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(to, 0o600);
}

/** PGlite: unpacks the archive into DATA_DIR's empty database folder. */
export async function restorePglite(dir: string, dataDir: string, databaseDir: string, open: (archive: Blob) => Promise<PGlite>): Promise<Manifest> {
  const manifest = readManifest(dir);
  if (manifest.kind !== 'pglite') throw new BackupError('This backup is of a PostgreSQL server: set DATABASE_URL to an empty database to restore it.');
  if (fs.existsSync(databaseDir) && fs.readdirSync(databaseDir).length > 0) {
    throw new BackupError(`${databaseDir} already holds a database; restore into a new DATA_DIR (or move this one away first).`);
  }
  restoreSecret(dir, dataDir);
  const archive = new Blob([fs.readFileSync(path.join(dir, PGLITE_ARCHIVE))]);
  const pglite = await open(archive);
  await pglite.close();
  return manifest;
}

/**
 * PostgreSQL: creates the roles, then pg_restore in one transaction (all or nothing) with the
 * restoring user as owner of everything; the target database must be empty.
 */
export async function restorePostgres(dir: string, databaseUrl: string, dataDir: string): Promise<Manifest> {
  const manifest = readManifest(dir);
  if (manifest.kind !== 'postgres') throw new BackupError('This backup is of the embedded database: unset DATABASE_URL and give an empty DATA_DIR to restore it.');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ used: boolean }>(`select to_regnamespace('app_public') is not null as used`);
    if (rows[0]!.used) throw new BackupError('The database of DATABASE_URL is not empty; create a new, empty database to restore into.');
    await client.query(fs.readFileSync(path.join(dir, ROLES_FILE), 'utf8'));
  } finally {
    await client.end();
  }
  restoreSecret(dir, dataDir);
  await runTool('pg_restore', ['--no-owner', '--single-transaction', '--exit-on-error', `--dbname=${databaseUrl}`, path.join(dir, POSTGRES_DUMP)]);
  return manifest;
}

/** The problems found comparing the database behind `pool` with the backup's manifest ([] when identical). */
export async function verifyAgainst(pool: pg.Pool, dir: string): Promise<{ manifest: Manifest; problems: string[] }> {
  const manifest = readManifest(dir);
  const client = await pool.connect();
  try {
    await client.query(`begin read only; ${STABLE_TEXT}`);
    const actual = await tableSums(client);
    await client.query('commit');
    return { manifest, problems: compareSums(manifest.tables, actual) };
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
