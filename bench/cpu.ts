/**
 * CPU time spent on a piece of work, by this Node process and by the PostgreSQL backends of the
 * bench database: the figure to judge a change by on a shared machine, where latency at high
 * concurrency mostly measures the neighbours. The backends' CPU is read from /proc, so it is
 * only counted when the server runs on this machine (reported as unknown otherwise).
 */
import fs from 'node:fs';
import type pg from 'pg';

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

export interface CpuSpent {
  nodeMs: number;
  /** null when the backends' /proc entries cannot be read (a remote server). */
  postgresMs: number | null;
}

async function backendPids(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database()');
  return rows.map((r) => r.pid);
}

function processTicks(pid: number): number | null {
  try {
    // Fields after the command name (which is in parentheses and may hold spaces): utime is the 14th, stime the 15th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** Starts counting; the returned function gives the CPU spent since. */
export async function startCpu(pool: pg.Pool): Promise<() => Promise<CpuSpent>> {
  const before = new Map<number, number | null>();
  for (const pid of await backendPids(pool)) before.set(pid, processTicks(pid));
  const node = process.cpuUsage();
  return async () => {
    const used = process.cpuUsage(node);
    let ticks = 0;
    let readable = true;
    for (const pid of await backendPids(pool)) {
      const now = processTicks(pid);
      if (now === null) {
        readable = false;
        continue;
      }
      ticks += now - (before.get(pid) ?? 0);
    }
    return { nodeMs: (used.user + used.system) / 1000, postgresMs: readable ? (ticks * 1000) / TICKS_PER_SECOND : null };
  };
}

export function describeCpu(spent: CpuSpent, count: number): string {
  const node = (spent.nodeMs / count).toFixed(1);
  const postgres = spent.postgresMs === null ? 'unknown' : (spent.postgresMs / count).toFixed(1);
  return `${node} ms Node + ${postgres} ms PostgreSQL CPU each`;
}
