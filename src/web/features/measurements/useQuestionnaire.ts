/**
 * One questionnaire record in the browser: loaded from the server, merged with answers this
 * device has not sent yet, and saved answer by answer through the outbox. Coming back online
 * sends what waited at once.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { AnswerValue, Answers, InstrumentCode, InstrumentDefinition } from '../../../domain/instruments';
import { INSTRUMENTS } from '../../../domain/instruments';
import type { MeasurementTime } from '../../../domain/measurements';
import { applyAnswer, mergeAnswers, wordingFromTemplates } from '../../../domain/questionnaire-form';
import type { WordingLookup } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import { ApiError } from '../../api/client';
import { recordQuery, saveAnswers, wordingQuery } from './api';
import { AnswerOutbox, outboxKey, type OutboxState } from './outbox';

export interface QuestionnaireState {
  definition: InstrumentDefinition;
  answers: Answers | null;
  wording: WordingLookup | undefined;
  loadError: ApiError | null;
  saveState: OutboxState;
  rejected: ApiError | null;
  /** Gives one answer: shown at once, kept on the device, then sent. */
  answer(itemId: string, value: AnswerValue | null | undefined, options?: { typing?: boolean }): void;
  /** Sends everything still waiting; true when the server has it all. */
  flush(): Promise<boolean>;
  reload(): void;
}

/** Typing is saved after a short pause, so a sentence is one save rather than one per key. */
const TYPING_DELAY_MS = 800;

export function useQuestionnaire(code: InstrumentCode, time: MeasurementTime, caseId: string, userId: string, locale: Locale): QuestionnaireState {
  const definition = INSTRUMENTS[code];
  const [answers, setAnswers] = useState<Answers | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [saveState, setSaveState] = useState<OutboxState>('saved');
  const [rejected, setRejected] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const outbox = useRef<AnswerOutbox | null>(null);
  const current = useRef<Answers>({});
  const queryClient = useQueryClient();

  useEffect(() => {
    const box = new AnswerOutbox({
      key: outboxKey(userId, caseId, time, code),
      storage: localStorage,
      send: (changes) => saveAnswers(code, caseId, time, changes),
      onState: setSaveState,
      onRejected: setRejected,
    });
    outbox.current = box;
    let stale = false;
    setAnswers(null);
    setLoadError(null);
    setRejected(null);
    queryClient.fetchQuery(recordQuery(code, caseId, time)).then(
      (record) => {
        if (stale) return;
        const merged = mergeAnswers(definition, record, box.pending());
        current.current = merged;
        setAnswers(merged);
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
  }, [code, caseId, time, userId, definition, attempt, queryClient]);

  const texts = useQuery(wordingQuery(code, locale)).data;
  const wording = useMemo<WordingLookup | undefined>(
    () => (texts && Object.keys(texts).length > 0 ? wordingFromTemplates(definition, locale, texts) : undefined),
    [texts, definition, locale],
  );

  const answer = useCallback(
    (itemId: string, value: AnswerValue | null | undefined, options: { typing?: boolean } = {}) => {
      const result = applyAnswer(definition, current.current, itemId, value);
      current.current = result.answers;
      setAnswers(result.answers);
      setRejected(null);
      outbox.current?.add(result.changes, options.typing ? TYPING_DELAY_MS : 0);
    },
    [definition],
  );

  const flush = useCallback(() => outbox.current?.flush() ?? Promise.resolve(true), []);
  const reload = useCallback(() => setAttempt((n) => n + 1), []);

  return { definition, answers, wording, loadError, saveState, rejected, answer, flush, reload };
}
