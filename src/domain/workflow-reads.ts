/**
 * The workflow reads of spec §7 as the /workflows screen makes them, pure so they are tested:
 * the task log loads incrementally — the first load asks for the open tasks (end_time null)
 * and the finished ones newest first, limit 2000; later loads ask only for the open tasks and
 * those that ended at or after the latest end already known — and the current trial is the
 * newest process whose business key is "trial" (spec §4).
 */

export const TASK_LOG_LIMIT = 2000;

export interface TaskLogEntry {
  id: string;
  process_instance_id: string;
  end_time: string | null;
  created?: string;
  [column: string]: unknown;
}

export interface RunningProcess {
  id: string;
  business_key: string | null;
  start_time: string;
  end_time: string | null;
  state: string;
  pending_timers: number;
  [column: string]: unknown;
}

/** The latest end among the known entries, or null when none has ended (or none is known). */
export function latestKnownEnd(known: readonly TaskLogEntry[]): string | null {
  let latest: string | null = null;
  let latestMs = -Infinity;
  for (const entry of known) {
    if (!entry.end_time) continue;
    const ms = Date.parse(entry.end_time);
    if (ms > latestMs) {
      latestMs = ms;
      latest = entry.end_time;
    }
  }
  return latest;
}

/**
 * The query string of the next /api/my_task_log call. Without a known end (first load, or
 * nothing has ended yet) it asks for everything, open first, then finished newest first.
 */
export function taskLogQuery(known: readonly TaskLogEntry[] | null): string {
  const params = new URLSearchParams();
  const latest = known ? latestKnownEnd(known) : null;
  if (latest) params.set('or', `(end_time.is.null,end_time.gte.${new Date(latest).toISOString()})`);
  params.set('order', 'end_time.desc.nullsfirst');
  params.set('limit', String(TASK_LOG_LIMIT));
  return params.toString();
}

function compareEntries(a: TaskLogEntry, b: TaskLogEntry): number {
  if (!a.end_time !== !b.end_time) return a.end_time ? 1 : -1; // open first
  const byEnd = (b.end_time ? Date.parse(b.end_time) : 0) - (a.end_time ? Date.parse(a.end_time) : 0);
  if (byEnd) return byEnd;
  const byCreated = (b.created ? Date.parse(b.created) : 0) - (a.created ? Date.parse(a.created) : 0);
  return byCreated || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Merges a later load into what is known. What the server sent wins. A finished entry that was
 * not sent again stays (it ended before the latest known end, so it was not asked for). An entry
 * known as open that was not sent again is dropped: it is neither open any more nor among the
 * recent ends, so what it became is unknown — better gone than shown as still open.
 */
export function mergeTaskLog(known: readonly TaskLogEntry[] | null, fetched: readonly TaskLogEntry[]): TaskLogEntry[] {
  const byId = new Map<string, TaskLogEntry>();
  for (const entry of known ?? []) if (entry.end_time) byId.set(entry.id, entry);
  for (const entry of fetched) byId.set(entry.id, entry);
  return [...byId.values()].sort(compareEntries);
}

/** Spec §4: the current trial is the newest process whose business key is "trial". */
export function currentTrial<P extends RunningProcess>(processes: readonly P[]): P | null {
  let newest: P | null = null;
  for (const process of processes) {
    if (process.business_key !== 'trial') continue;
    if (!newest || Date.parse(process.start_time) > Date.parse(newest.start_time)) newest = process;
  }
  return newest;
}
