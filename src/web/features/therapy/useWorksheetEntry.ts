/**
 * One worksheet entry in the patient's browser: loaded from the server, merged with what this
 * device has not sent yet, and saved field by field through the questionnaires' answer outbox
 * (kept in local storage until the server has it, retried, flushed when back online).
 */
import { useCallback } from 'react';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import type { WorksheetCode } from '../../../domain/worksheets';
import type { ApiError } from '../../api/client';
import { useOutboxRecord } from '../../lib/useOutboxRecord';
import { UNSENT_ANSWERS_PREFIX } from '../../session/unsent-answers';
import type { OutboxState } from '../measurements/outbox';
import { loadEntry, saveDraft, type WorksheetEntry } from './api';

/** Local-storage key of one entry's unsent fields; cleared with the questionnaires' at sign-out. */
export function worksheetOutboxKey(userId: string, caseId: string, code: WorksheetCode, id: string): string {
  return [UNSENT_ANSWERS_PREFIX, userId, caseId, 'worksheet', code, id].join('.');
}

export interface WorksheetEntryState {
  values: AnswerChanges | null;
  stored: WorksheetEntry | null;
  loadError: ApiError | null;
  saveState: OutboxState;
  rejected: ApiError | null;
  change(field: string, value: AnswerChanges[string], typing?: boolean): void;
  flush(): Promise<boolean>;
  reload(): void;
}

export function useWorksheetEntry(code: WorksheetCode, id: string, caseId: string, userId: string): WorksheetEntryState {
  const record = useOutboxRecord<WorksheetEntry | null, AnswerChanges>({
    key: worksheetOutboxKey(userId, caseId, code, id),
    load: () => loadEntry(code, id),
    send: (changes) => saveDraft(code, id, caseId, changes),
    // A published entry is final: what this device still holds of it is not shown or sent.
    merge: (entry, pending) => ({ ...fieldsOf(entry), ...(entry?.published_at ? {} : pending) }),
    sendPending: (entry) => !entry?.published_at,
    // Offline at the start: what this device holds is still the patient's work.
    startOffline: () => null,
  });
  const { update } = record;
  const change = useCallback(
    (field: string, value: AnswerChanges[string], typing = false) =>
      update((current) => ({ values: { ...current, [field]: value }, changes: { [field]: value } }), typing),
    [update],
  );
  const { values, stored, loadError, saveState, rejected, flush, reload } = record;
  return { values, stored, loadError, saveState, rejected, change, flush, reload };
}

const META = new Set(['id', 'case_id', 'submitter_id', 'published_at', 'created_at', 'updated_at']);

function fieldsOf(entry: WorksheetEntry | null): AnswerChanges {
  if (!entry) return {};
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !META.has(key))) as AnswerChanges;
}
