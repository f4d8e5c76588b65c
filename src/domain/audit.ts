/**
 * What an audit-log row changed (spec §3 audit log, docs/decisions/0005-visibility-and-audit.md), as a list
 * of fields with their value before and after. Pure, so the case-log screen stays thin and the
 * rules are unit-tested.
 */

export type AuditOperation = 'INSERT' | 'UPDATE' | 'DELETE';

export interface AuditChange {
  key: string;
  before: unknown;
  after: unknown;
}

/** Bookkeeping columns that say nothing to a reader of the log. */
const HIDDEN_KEYS = new Set(['id', 'updated_at', 'created_at', 'search_text']);

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Whether a value is worth listing for a created or deleted row (empty and false are not). */
function meaningful(value: unknown): boolean {
  return value !== null && value !== undefined && value !== false && value !== '' && value !== '-infinity';
}

/**
 * UPDATE: the keys whose values differ, with before → after. INSERT: the meaningful values of
 * the new row. DELETE: the meaningful values of the old row. Keys keep the log's column order.
 */
export function auditChanges(operation: string, oldData: Record<string, unknown> | null, newData: Record<string, unknown> | null): AuditChange[] {
  const before = oldData ?? {};
  const after = newData ?? {};
  if (operation === 'UPDATE') {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.filter((key) => !HIDDEN_KEYS.has(key) && !same(before[key], after[key])).map((key) => ({ key, before: before[key] ?? null, after: after[key] ?? null }));
  }
  if (operation === 'INSERT') {
    return Object.entries(after)
      .filter(([key, value]) => !HIDDEN_KEYS.has(key) && meaningful(value))
      .map(([key, value]) => ({ key, before: null, after: value }));
  }
  return Object.entries(before)
    .filter(([key, value]) => !HIDDEN_KEYS.has(key) && meaningful(value))
    .map(([key, value]) => ({ key, before: value, after: null }));
}

/** Columns holding a person's id, which the log screen shows as that person's name. */
export const PERSON_KEYS = new Set(['user_id', 'sender_id', 'editor_id']);

/** The ids of people an audit row mentions (its actor aside), to resolve to names in one query. */
export function mentionedPeople(oldData: Record<string, unknown> | null, newData: Record<string, unknown> | null): string[] {
  const ids = new Set<string>();
  for (const data of [oldData, newData]) {
    for (const key of PERSON_KEYS) {
      const value = data?.[key];
      if (typeof value === 'string') ids.add(value);
    }
  }
  return [...ids];
}

/** Which sentence tells a log entry, and what it names (ids of people, role and stage codes). */
export type AuditSentence =
  | { kind: 'memberAdded'; member: string | null; roles: string[] }
  | { kind: 'memberRemoved'; member: string | null }
  | { kind: 'memberRoles'; member: string | null; roles: string[] }
  | { kind: 'stage'; from: string; to: string }
  | { kind: 'caseFields'; fields: string[] }
  | { kind: 'caseCreated' }
  | { kind: 'messageSent' }
  | { kind: 'draftSaved' }
  | { kind: 'messageDeleted' }
  | { kind: 'messageRead' }
  | { kind: 'other'; table: string; operation: string };

const ROLE_FLAGS: [string, string][] = [
  ['acts_as_therapist', 'therapist'],
  ['acts_as_supervisor', 'supervisor'],
  ['acts_as_interviewer', 'interviewer'],
  ['acts_as_supporter', 'supporter'],
  ['acts_as_counselor', 'counselor'],
  ['acts_as_patient', 'patient'],
];

function rolesIn(data: Record<string, unknown> | null): string[] {
  return ROLE_FLAGS.filter(([flag]) => data?.[flag] === true).map(([, role]) => role);
}

/**
 * A log entry as a sentence people read ("Dr. X added Y as therapist", "Stage: screening →
 * interview"); the raw change stays available beside it. Unknown kinds fall back to
 * "changed <kind of record>".
 */
export function auditSentence(row: { tableName: string; operation: string; oldData: Record<string, unknown> | null; newData: Record<string, unknown> | null }): AuditSentence {
  const { tableName: table, operation, oldData, newData } = row;
  const changes = auditChanges(operation, oldData, newData).map((c) => c.key);
  if (table === 'case_members') {
    const member = (newData?.user_id ?? oldData?.user_id ?? null) as string | null;
    if (operation === 'INSERT') return { kind: 'memberAdded', member, roles: rolesIn(newData) };
    if (operation === 'DELETE') return { kind: 'memberRemoved', member };
    if (changes.some((key) => key.startsWith('acts_as_'))) return { kind: 'memberRoles', member, roles: rolesIn(newData) };
    if (changes.includes('new_messages_after')) return { kind: 'messageRead' };
  }
  if (table === 'cases') {
    if (operation === 'INSERT') return { kind: 'caseCreated' };
    if (operation === 'UPDATE' && changes.includes('stage')) return { kind: 'stage', from: String(oldData?.stage ?? ''), to: String(newData?.stage ?? '') };
    if (operation === 'UPDATE') return { kind: 'caseFields', fields: changes.filter((key) => !['updated_at', 'case_id'].includes(key)) };
  }
  if (table === 'case_messages') {
    if (operation === 'DELETE') return { kind: 'messageDeleted' };
    if (newData?.sent_at && !oldData?.sent_at) return { kind: 'messageSent' };
    return { kind: 'draftSaved' };
  }
  return { kind: 'other', table, operation };
}
