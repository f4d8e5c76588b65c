import { useEffect, useState } from 'react';
import { ApiError } from './client';

/**
 * Loads data for a screen and reloads when `key` changes. An answer that arrives after the
 * key moved on is dropped, so a slow response never overwrites a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, key: string): { data: T | null; error: ApiError | null; loading: boolean } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [loading, setLoading] = useState(true);
  useEffect(() => {
    let stale = false;
    setLoading(true);
    load().then(
      (loaded) => {
        if (stale) return;
        setData(loaded);
        setError(null);
        setLoading(false);
      },
      (caught: unknown) => {
        if (stale) return;
        setError(caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught)));
        setLoading(false);
      },
    );
    return () => {
      stale = true;
    };
    // `load` is a fresh closure each render; `key` says when the request really changes.
  }, [key]);
  return { data, error, loading };
}
