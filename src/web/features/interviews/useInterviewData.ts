/**
 * The interview screens' view of the data layer: a query as { data, error, loading } (what
 * the screens were written against) and the spec §4 refetch rules for an action
 * (refetchInterviewsAfter in api.ts). Signing out clears the query cache, which drops the
 * watch, the offers and the offer being edited (spec §4 Session).
 */
import { useQuery, useQueryClient, type UseQueryOptions } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { InterviewAction } from '../../../domain/interviews';
import type { ApiError } from '../../api/client';
import { refetchInterviewsAfter, WATCH_INTERVAL_MS } from './api';

export { WATCH_INTERVAL_MS };

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
}

export function useLoaded<T, K extends readonly unknown[]>(options: UseQueryOptions<T, ApiError, T, K>): Loaded<T> {
  const query = useQuery(options);
  return { data: query.data ?? null, error: query.error, loading: query.isPending && query.fetchStatus !== 'idle' };
}

/** Refetches, after an action, the data spec §4 names for it, on every screen showing it. */
export function useRefetchAfter(): (action: InterviewAction) => Promise<void> {
  const client = useQueryClient();
  return useCallback((action: InterviewAction) => refetchInterviewsAfter(client, action), [client]);
}
