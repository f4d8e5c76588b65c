/**
 * Loading state for the interview screens: one loader per kind of data (offers, available
 * dates, bookings), reloaded after an action as spec §4 says (REFETCH_AFTER), and the offers
 * "watched": fetched fresh on mount and again every 30 s while the screen is open, so slots
 * booked or cancelled elsewhere appear without a reload. Signing out unmounts the screens,
 * which drops the watch, the offers and the offer being edited (spec §4 Session).
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { REFETCH_AFTER, type InterviewAction, type InterviewData } from '../../../domain/interviews';
import { ApiError } from '../../api/client';

export const WATCH_INTERVAL_MS = 30_000;

export interface Loaded<T> {
  data: T | null;
  error: ApiError | null;
  loading: boolean;
  reload(): Promise<void>;
}

/** Loads `load` now, whenever `key` changes, and every `watchMs` if given. */
export function useReloadable<T>(load: () => Promise<T>, key: string, watchMs = 0): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;

  const reload = useCallback(async () => {
    const ticket = ++latest.current;
    try {
      const loaded = await loader.current();
      if (ticket !== latest.current) return;
      setData(loaded);
      setError(null);
    } catch (caught) {
      if (ticket !== latest.current) return;
      // Spec §8: a failed offers watch is logged (and the screen says so).
      console.warn('interview data load failed', caught);
      setError(caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught)));
    } finally {
      if (ticket === latest.current) setLoading(false);
    }
  }, []);

  useEffect(() => {
    setLoading(true);
    void reload();
    if (!watchMs) return undefined;
    const timer = setInterval(() => void reload(), watchMs);
    return () => {
      clearInterval(timer);
      latest.current += 1;
    };
  }, [key, watchMs, reload]);

  return { data, error, loading, reload };
}

/** Reloads, after an action, the data the spec names for it that this screen shows. */
export async function refetchAfter(action: InterviewAction, loaded: Partial<Record<InterviewData, { reload(): Promise<void> }>>): Promise<void> {
  await Promise.all(REFETCH_AFTER[action].map((kind) => loaded[kind]?.reload()));
}
