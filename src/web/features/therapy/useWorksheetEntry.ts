/**
 * One worksheet entry in the patient's browser: loaded from the server, merged with what this
 * device has not sent yet, and saved field by field through the questionnaires' answer outbox
 * (kept in local storage until the server has it, retried, flushed when back online).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import type { WorksheetCode } from '../../../domain/worksheets';
import { ApiError } from '../../api/client';
import { UNSENT_ANSWERS_PREFIX } from '../../session/unsent-answers';
import { AnswerOutbox, type OutboxState } from '../measurements/outbox';
import { loadEntry, saveDraft, type WorksheetEntry } from './api';

const TYPING_DELAY_MS = 800;

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
  const [values, setValues] = useState<AnswerChanges | null>(null);
  const [stored, setStored] = useState<WorksheetEntry | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveState, setSaveState] = useState<OutboxState>('saved');
  const [rejected, setRejected] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const outbox = useRef<AnswerOutbox | null>(null);
  const current = useRef<AnswerChanges>({});

  useEffect(() => {
    const box = new AnswerOutbox({
      key: worksheetOutboxKey(userId, caseId, code, id),
      storage: localStorage,
      send: (changes) => saveDraft(code, id, caseId, changes),
      onState: setSaveState,
      onRejected: setRejected,
    });
    outbox.current = box;
    let stale = false;
    setValues(null);
    setLoadError(null);
    // Offline at the start: what this device holds is still the patient's work.
    const start = (entry: WorksheetEntry | null) => {
      if (stale) return;
      setStored(entry);
      const merged: AnswerChanges = { ...fieldsOf(entry), ...(entry?.published_at ? {} : box.pending()) };
      current.current = merged;
      setValues(merged);
      if (box.hasPending() && !entry?.published_at) void box.flush();
    };
    loadEntry(code, id).then(start, (error: unknown) => {
      if (stale) return;
      if (box.hasPending()) start(null);
      else setLoadError(error instanceof ApiError ? error : new ApiError(0, 'network', String(error)));
    });
    const online = () => void box.flush();
    window.addEventListener('online', online);
    return () => {
      stale = true;
      window.removeEventListener('online', online);
      box.dispose();
    };
  }, [code, id, caseId, userId, attempt]);

  const change = useCallback((field: string, value: AnswerChanges[string], typing = false) => {
    current.current = { ...current.current, [field]: value };
    setValues(current.current);
    setRejected(null);
    outbox.current?.add({ [field]: value }, typing ? TYPING_DELAY_MS : 0);
  }, []);
  const flush = useCallback(() => outbox.current?.flush() ?? Promise.resolve(true), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { values, stored, loadError, saveState, rejected, change, flush, reload };
}

const META = new Set(['id', 'case_id', 'submitter_id', 'published_at', 'created_at', 'updated_at']);

function fieldsOf(entry: WorksheetEntry | null): AnswerChanges {
  if (!entry) return {};
  return Object.fromEntries(Object.entries(entry).filter(([key]) => !META.has(key))) as AnswerChanges;
}
