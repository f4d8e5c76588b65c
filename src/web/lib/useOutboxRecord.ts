/**
 * One record edited in the browser and saved change by change through the answer outbox
 * (features/measurements/outbox.ts): loaded from the server, merged with what this device has
 * not sent yet, every change kept in local storage until the server has it, sent again when the
 * browser is back online. The questionnaires, the worksheets and the interview reports are
 * this one hook with their own loading, sending and merging.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { AnswerChanges } from '../../domain/questionnaire-form';
import { ApiError } from '../api/client';
import { AnswerOutbox, type OutboxState } from '../features/measurements/outbox';

/** Typing is saved after a short pause, so a sentence is one save rather than one per key. */
export const TYPING_DELAY_MS = 800;

export interface OutboxRecordOptions<S, V> {
  /** Local-storage key of the record's unsent changes; a new key is a new record (reloaded). */
  key: string;
  load(): Promise<S>;
  send(changes: AnswerChanges): Promise<void>;
  /** The values shown: the stored record with the changes still on this device. */
  merge(stored: S, pending: AnswerChanges): V;
  /** Whether the changes waiting on this device still go out once loaded (default: yes). */
  sendPending?(stored: S): boolean;
  /** When loading fails while changes wait here: the record to start from (offline start). */
  startOffline?(): S;
  /** Keep refused changes on this device instead of dropping them (AnswerOutbox.keepRefused). */
  keepRefused?: boolean;
}

export interface OutboxRecord<S, V> {
  stored: S | null;
  values: V | null;
  loadError: ApiError | null;
  saveState: OutboxState;
  rejected: ApiError | null;
  /** Shows the new values at once and queues the changes (after a pause while typing). */
  update(edit: (current: V) => { values: V; changes: AnswerChanges }, typing?: boolean): void;
  /** Sends everything still waiting; true when the server has it all. */
  flush(): Promise<boolean>;
  reload(): void;
}

export function useOutboxRecord<S, V>(options: OutboxRecordOptions<S, V>): OutboxRecord<S, V> {
  const [stored, setStored] = useState<S | null>(null);
  const [values, setValues] = useState<V | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveState, setSaveState] = useState<OutboxState>('saved');
  const [rejected, setRejected] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const outbox = useRef<AnswerOutbox | null>(null);
  const current = useRef<V>({} as V);
  // The latest callbacks, without reloading the record when only their identity changes.
  const latest = useRef(options);
  latest.current = options;
  const { key } = options;

  useEffect(() => {
    const box = new AnswerOutbox({
      key,
      storage: localStorage,
      send: (changes) => latest.current.send(changes),
      onState: setSaveState,
      onRejected: setRejected,
      keepRefused: latest.current.keepRefused ?? false,
    });
    outbox.current = box;
    let stale = false;
    setValues(null);
    setLoadError(null);
    setRejected(null);
    const start = (record: S) => {
      if (stale) return;
      const { merge, sendPending } = latest.current;
      const merged = merge(record, box.pending());
      current.current = merged;
      setStored(record);
      setValues(merged);
      if (box.hasPending() && (sendPending?.(record) ?? true)) void box.flush();
    };
    latest.current.load().then(start, (error: unknown) => {
      if (stale) return;
      const offline = latest.current.startOffline;
      if (offline && box.hasPending()) start(offline());
      else setLoadError(error instanceof ApiError ? error : new ApiError(0, 'network', String(error)));
    });
    const online = () => void box.flush();
    window.addEventListener('online', online);
    return () => {
      stale = true;
      window.removeEventListener('online', online);
      box.dispose();
    };
  }, [key, attempt]);

  const update = useCallback((edit: (current: V) => { values: V; changes: AnswerChanges }, typing = false) => {
    const next = edit(current.current);
    current.current = next.values;
    setValues(next.values);
    setRejected(null);
    outbox.current?.add(next.changes, typing ? TYPING_DELAY_MS : 0);
  }, []);
  const flush = useCallback(() => outbox.current?.flush() ?? Promise.resolve(true), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  return { stored, values, loadError, saveState, rejected, update, flush, reload };
}
