/**
 * PGlite does not lock its data directory, and two processes writing it silently lose data.
 * This lock file (created with O_EXCL, holding the owner's pid) makes a second process refuse.
 * A lock left by a process that no longer runs (a crash, kill -9) is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `The data directory ${dataDir} is already in use by another Sanad process (pid ${ownerPid}). ` +
        'Only one process may open the embedded database: stop the other process first, ' +
        'or use a different DATA_DIR, or set DATABASE_URL to share a PostgreSQL server.',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DirectoryLock {
  path: string;
  release(): void;
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM means the process exists but belongs to someone else: still running.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockPath: string): { pid: number; host: string } | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, 'utf8')) as { pid?: unknown; host?: unknown };
    return { pid: Number(parsed.pid), host: String(parsed.host ?? '') };
  } catch {
    return undefined;
  }
}

export function acquireDirectoryLock(dataDir: string): DirectoryLock {
  const lockPath = path.join(dataDir, 'sanad.lock');
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }));
      fs.closeSync(fd);
      let released = false;
      return {
        path: lockPath,
        release() {
          if (released) return;
          released = true;
          const owner = readOwner(lockPath);
          if (owner?.pid === process.pid) fs.rmSync(lockPath, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = readOwner(lockPath);
      // A lock from another host cannot be checked for liveness: treat it as held.
      if (owner && (owner.host !== os.hostname() || isRunning(owner.pid)) && owner.pid !== process.pid) {
        throw new DataDirLockedError(dataDir, owner.pid);
      }
      if (owner && owner.pid === process.pid) {
        throw new DataDirLockedError(dataDir, owner.pid);
      }
      // Stale (owner gone) or unreadable half-written file: remove it and try again.
      fs.rmSync(lockPath, { force: true });
    }
  }
  throw new Error(`Could not lock the data directory ${dataDir}`);
}
