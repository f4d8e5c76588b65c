/**
 * One questionnaire record in the browser: loaded from the server, merged with answers this
 * device has not sent yet, and saved answer by answer through the outbox. Coming back online
 * sends what waited at once.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import type { AnswerValue, Answers, InstrumentCode, InstrumentDefinition } from '../../../domain/instruments';
import { INSTRUMENTS } from '../../../domain/instruments';
import type { MeasurementTime } from '../../../domain/measurements';
import { applyAnswer, mergeAnswers, wordingFromTemplates } from '../../../domain/questionnaire-form';
import type { WordingLookup } from '../../../domain/instruments';
import type { Locale } from '../../../domain/locales';
import type { ApiError } from '../../api/client';
import { recordQuery, saveAnswers, wordingQuery } from './api';
import { useOutboxRecord } from '../../lib/useOutboxRecord';
import { outboxKey, type OutboxState } from './outbox';

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

export function useQuestionnaire(code: InstrumentCode, time: MeasurementTime, caseId: string, userId: string, locale: Locale): QuestionnaireState {
  const definition = INSTRUMENTS[code];
  const queryClient = useQueryClient();
  const record = useOutboxRecord<Answers, Answers>({
    key: outboxKey(userId, caseId, time, code),
    load: () => queryClient.fetchQuery(recordQuery(code, caseId, time)),
    send: (changes) => saveAnswers(code, caseId, time, changes),
    merge: (stored, pending) => mergeAnswers(definition, stored, pending),
  });

  const texts = useQuery(wordingQuery(code, locale)).data;
  const wording = useMemo<WordingLookup | undefined>(
    () => (texts && Object.keys(texts).length > 0 ? wordingFromTemplates(definition, locale, texts) : undefined),
    [texts, definition, locale],
  );

  const { update } = record;
  const answer = useCallback(
    (itemId: string, value: AnswerValue | null | undefined, options: { typing?: boolean } = {}) =>
      update((current) => {
        const result = applyAnswer(definition, current, itemId, value);
        return { values: result.answers, changes: result.changes };
      }, options.typing),
    [definition, update],
  );

  const { values: answers, loadError, saveState, rejected, flush, reload } = record;
  return { definition, answers, wording, loadError, saveState, rejected, answer, flush, reload };
}
