/**
 * `npm run sanad -- backup|restore|verify <folder>` (issue 28). These open the database
 * themselves (restore must not migrate or even open an empty target first), so the CLI runs
 * them before its usual open-and-migrate step.
 *
 * A backup of the embedded database while the server runs: only the server may open PGlite's
 * files, so the command asks it. It writes DATA_DIR/backup-request.json naming the folder and
 * sends the server SIGUSR2 (the pid is in the data directory's lock); the server writes the
 * backup (answerBackupRequests) and the command waits for its manifest.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { createPglite, openDatabase, pgliteDirectory, type Database } from '../db/database';
import { acquireDirectoryLock, DataDirLockedError } from '../db/dir-lock';
import { BackupError, backupPglite, backupPostgres, MANIFEST, readManifest, restorePglite, restorePostgres, verifyAgainst } from './backup';

export const OPS_COMMANDS = ['backup', 'restore', 'verify'] as const;
export type OpsCommandName = (typeof OPS_COMMANDS)[number];

const REQUEST_FILE = 'backup-request.json';
const FAILURE_FILE = 'backup-failed.txt';

export function isOpsCommand(name: string | undefined): name is OpsCommandName {
  return (OPS_COMMANDS as readonly string[]).includes(name ?? '');
}

export async function runOpsCommand(name: OpsCommandName, args: readonly string[], config: Config, out: (line: string) => void): Promise<number> {
  const target = args[0];
  if (!target || args.length > 1) throw new BackupError(`Usage: npm run sanad -- ${name} <folder>`);
  const dir = path.resolve(target);
  if (name === 'backup') {
    const manifest = config.databaseUrl ? await backupPostgres(config.databaseUrl, config.dataDir, dir) : await backupEmbedded(config, dir);
    out(`backup written to ${dir}: ${Object.keys(manifest.tables).length} tables, ${totalRows(manifest.tables)} rows`);
    return 0;
  }
  if (name === 'restore') {
    const manifest = config.databaseUrl
      ? await restorePostgres(dir, config.databaseUrl, config.dataDir)
      : await restoreEmbedded(dir, config.dataDir);
    out(`restored the backup of ${manifest.createdAt} (${manifest.lastMigration ?? 'no migrations'}); check it with: npm run sanad -- verify ${target}`);
    return 0;
  }
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 1 });
  try {
    const { manifest, problems } = await verifyAgainst(db.pool, dir);
    if (problems.length === 0) {
      out(`identical to the backup of ${manifest.createdAt}: ${Object.keys(manifest.tables).length} tables, ${totalRows(manifest.tables)} rows, same checksums`);
      return 0;
    }
    out(`differs from the backup of ${manifest.createdAt}:`);
    for (const line of problems) out(`  - ${line}`);
    return 1;
  } finally {
    await db.close();
  }
}

function totalRows(tables: Record<string, { rows: number }>): number {
  return Object.values(tables).reduce((sum, table) => sum + table.rows, 0);
}

async function backupEmbedded(config: Config, dir: string): Promise<ReturnType<typeof readManifest>> {
  let db: Database;
  try {
    db = await openDatabase({ dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof DataDirLockedError) return askRunningServer(config.dataDir, error.ownerPid, dir);
    throw error;
  }
  try {
    return await backupPglite(db.pool, db.pglite!, config.dataDir, dir);
  } finally {
    await db.close();
  }
}

/** Asks the server that holds the data directory for the backup, and waits for it (at most 10 minutes). */
async function askRunningServer(dataDir: string, pid: number, dir: string): Promise<ReturnType<typeof readManifest>> {
  fs.writeFileSync(path.join(dataDir, REQUEST_FILE), JSON.stringify({ dir }));
  process.kill(pid, 'SIGUSR2');
  const end = Date.now() + 10 * 60_000;
  while (Date.now() < end) {
    if (fs.existsSync(path.join(dir, MANIFEST))) return readManifest(dir);
    const failure = path.join(dir, FAILURE_FILE);
    if (fs.existsSync(failure)) throw new BackupError(`The running server could not write the backup: ${fs.readFileSync(failure, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new BackupError(`The running server (pid ${pid}) did not write the backup within 10 minutes; see its log.`);
}

async function restoreEmbedded(dir: string, dataDir: string): Promise<ReturnType<typeof readManifest>> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = acquireDirectoryLock(dataDir);
  try {
    return await restorePglite(dir, dataDir, pgliteDirectory(dataDir), (archive) => createPglite(pgliteDirectory(dataDir), archive));
  } finally {
    lock.release();
  }
}

/**
 * In the server on the embedded database: SIGUSR2 writes the backup a `backup` command asked
 * for (see the file's comment). Requests are served meanwhile, after a short wait.
 */
export function answerBackupRequests(db: Database, dataDir: string, log: Logger): () => void {
  if (!db.pglite) return () => undefined;
  const onSignal = () => {
    const requestFile = path.join(dataDir, REQUEST_FILE);
    let dir: string;
    try {
      dir = (JSON.parse(fs.readFileSync(requestFile, 'utf8')) as { dir: string }).dir;
      fs.rmSync(requestFile, { force: true });
    } catch {
      log.warn('SIGUSR2 without a backup request: nothing to do');
      return;
    }
    log.info({ dir }, 'writing a backup');
    backupPglite(db.pool, db.pglite!, dataDir, dir).then(
      (manifest) => log.info({ dir, tables: Object.keys(manifest.tables).length }, 'backup written'),
      (error: unknown) => {
        log.error({ err: error }, 'backup failed');
        fs.mkdirSync(dir, { recursive: true });
        fs.writeFileSync(path.join(dir, FAILURE_FILE), (error as Error).message ?? String(error));
      },
    );
  };
  process.on('SIGUSR2', onSignal);
  return () => process.off('SIGUSR2', onSignal);
}
