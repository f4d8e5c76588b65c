/**
 * A report (or feedback report) in the browser: loaded from the server, merged with changes
 * this device has not sent yet, and saved field by field through the questionnaires' answer
 * outbox (features/measurements/outbox.ts): every change is kept in local storage first and
 * leaves it only once the server stored it, so a dropped connection loses nothing.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import type { ReportValue } from '../../../domain/interview-report';
import { ApiError } from '../../api/client';
import { UNSENT_ANSWERS_PREFIX } from '../../session/unsent-answers';
import { AnswerOutbox, type OutboxState } from '../measurements/outbox';

export type Values = Record<string, ReportValue | undefined>;

export interface Autosave<R> {
  row: R | null;
  values: Values | null;
  loadError: ApiError | null;
  saveState: OutboxState;
  rejected: ApiError | null;
  set(field: string, value: ReportValue, options?: { typing?: boolean }): void;
  flush(): Promise<boolean>;
  reload(): void;
}

const TYPING_DELAY_MS = 800;

export function autosaveKey(userId: string, kind: 'report' | 'feedback', bookingId: string): string {
  return [UNSENT_ANSWERS_PREFIX, userId, kind, bookingId].join('.');
}

export function useAutosave<R extends Values>(
  kind: 'report' | 'feedback',
  bookingId: string,
  userId: string,
  load: (bookingId: string) => Promise<R | null>,
  save: (bookingId: string, changes: Record<string, unknown>) => Promise<void>,
): Autosave<R> {
  const [row, setRow] = useState<R | null>(null);
  const [values, setValues] = useState<Values | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveState, setSaveState] = useState<OutboxState>('saved');
  const [rejected, setRejected] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const outbox = useRef<AnswerOutbox | null>(null);
  const current = useRef<Values>({});

  useEffect(() => {
    const box = new AnswerOutbox({
      key: autosaveKey(userId, kind, bookingId),
      storage: localStorage,
      send: (changes) => save(bookingId, changes),
      onState: setSaveState,
      onRejected: setRejected,
    });
    outbox.current = box;
    let stale = false;
    setValues(null);
    setLoadError(null);
    load(bookingId).then(
      (stored) => {
        if (stale) return;
        const merged: Values = { ...(stored ?? {}), ...(box.pending() as Values) };
        current.current = merged;
        setRow(stored);
        setValues(merged);
        if (box.hasPending()) void box.flush();
      },
      (error: unknown) => {
        if (!stale) setLoadError(error instanceof ApiError ? error : new ApiError(0, 'network', String(error)));
      },
    );
    const online = () => void box.flush();
    window.addEventListener('online', online);
    return () => {
      stale = true;
      window.removeEventListener('online', online);
      box.dispose();
    };
  }, [kind, bookingId, userId, load, save, attempt]);

  const set = useCallback((field: string, value: ReportValue, options: { typing?: boolean } = {}) => {
    current.current = { ...current.current, [field]: value };
    setValues(current.current);
    setRejected(null);
    outbox.current?.add({ [field]: value } as AnswerChanges, options.typing ? TYPING_DELAY_MS : 0);
  }, []);
  const flush = useCallback(() => outbox.current?.flush() ?? Promise.resolve(true), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);
  return { row, values, loadError, saveState, rejected, set, flush, reload };
}
