import { describe, expect, it } from 'vitest';
import { currentTrial, latestKnownEnd, mergeTaskLog, taskLogQuery, TASK_LOG_LIMIT, type TaskLogEntry } from './workflow-reads';

const entry = (id: string, end: string | null, created = '2027-01-01T00:00:00Z'): TaskLogEntry => ({ id, process_instance_id: 'p1', end_time: end, created });

describe('incremental task log loading (spec §7)', () => {
  it('the first load asks for everything, open first, newest end first, limit 2000', () => {
    const query = new URLSearchParams(taskLogQuery(null));
    expect(query.get('or')).toBeNull();
    expect(query.get('order')).toBe('end_time.desc.nullsfirst');
    expect(query.get('limit')).toBe(String(TASK_LOG_LIMIT));
    expect(TASK_LOG_LIMIT).toBe(2000);
  });
  it('later loads ask for open tasks or those ended at or after the latest known end', () => {
    const known = [entry('a', null), entry('b', '2027-03-01T10:00:00.000Z'), entry('c', '2027-03-02T08:30:00.123Z'), entry('d', '2027-02-01T00:00:00Z')];
    expect(latestKnownEnd(known)).toBe('2027-03-02T08:30:00.123Z');
    const query = new URLSearchParams(taskLogQuery(known));
    expect(query.get('or')).toBe('(end_time.is.null,end_time.gte.2027-03-02T08:30:00.123Z)');
    expect(query.get('order')).toBe('end_time.desc.nullsfirst');
    expect(query.get('limit')).toBe('2000');
  });
  it('with nothing ended yet a later load is a first load', () => {
    expect(taskLogQuery([entry('a', null)])).toBe(taskLogQuery(null));
  });
  it('merges: the server wins, old finished entries stay, vanished open entries go', () => {
    const known = [entry('open-still', null), entry('open-ended', null), entry('open-gone', null), entry('old', '2027-03-01T00:00:00Z'), entry('latest', '2027-03-02T00:00:00Z')];
    const fetched = [entry('open-still', null), entry('new-open', null, '2027-03-03T00:00:00Z'), entry('open-ended', '2027-03-02T12:00:00Z'), entry('latest', '2027-03-02T00:00:00Z')];
    const merged = mergeTaskLog(known, fetched);
    expect(merged.map((e) => e.id)).toEqual(['new-open', 'open-still', 'open-ended', 'latest', 'old']);
    expect(merged.find((e) => e.id === 'open-ended')?.end_time).toBe('2027-03-02T12:00:00Z');
  });
  it('the first merge is the fetched list, sorted', () => {
    expect(mergeTaskLog(null, [entry('x', '2027-01-01T00:00:00Z'), entry('y', null)]).map((e) => e.id)).toEqual(['y', 'x']);
  });
});

describe('the current trial (spec §4)', () => {
  const process = (id: string, key: string | null, start: string) => ({ id, business_key: key, start_time: start, end_time: null, state: 'ACTIVE', pending_timers: 0 });
  it('is the newest process with business key "trial"', () => {
    const processes = [process('old', 'trial', '2026-01-01T00:00:00Z'), process('other', 'survey', '2027-06-01T00:00:00Z'), process('new', 'trial', '2027-01-01T00:00:00Z')];
    expect(currentTrial(processes)?.id).toBe('new');
  });
  it('is none without a trial', () => {
    expect(currentTrial([process('x', null, '2027-01-01T00:00:00Z')])).toBeNull();
  });
});
