/**
 * A report (or feedback report) in the browser: loaded from the server, merged with changes
 * this device has not sent yet, and saved field by field through the questionnaires' answer
 * outbox (lib/useOutboxRecord.ts): every change is kept in local storage first and
 * leaves it only once the server stored it, so a dropped connection loses nothing.
 */
import { useCallback } from 'react';
import type { AnswerChanges } from '../../../domain/questionnaire-form';
import type { ReportValue } from '../../../domain/interview-report';
import type { ApiError } from '../../api/client';
import { useOutboxRecord } from '../../lib/useOutboxRecord';
import { UNSENT_ANSWERS_PREFIX } from '../../session/unsent-answers';
import type { OutboxState } from '../measurements/outbox';

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
  const record = useOutboxRecord<R | null, Values>({
    key: autosaveKey(userId, kind, bookingId),
    load: () => load(bookingId),
    send: (changes) => save(bookingId, changes),
    merge: (stored, pending) => ({ ...(stored ?? {}), ...(pending as Values) }),
    // A refused save keeps what was typed on this device (issue 26: nothing typed is lost).
    keepRefused: true,
  });
  const { update } = record;
  const set = useCallback(
    (field: string, value: ReportValue, options: { typing?: boolean } = {}) =>
      update((current) => ({ values: { ...current, [field]: value }, changes: { [field]: value } as AnswerChanges }), options.typing),
    [update],
  );
  const { stored: row, values, loadError, saveState, rejected, flush, reload } = record;
  return { row, values, loadError, saveState, rejected, set, flush, reload };
}
