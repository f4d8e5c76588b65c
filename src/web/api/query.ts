/**
 * Server state through TanStack Query: one QueryClient for the app, its defaults, and the
 * small helpers every feature uses. How a feature declares its queries, mutations with their
 * invalidations, polling and REST calls: src/web/api/README.md.
 */
import { focusManager, QueryCache, QueryClient, type Query } from '@tanstack/react-query';
import { ApiError } from './client';

/** Spec §7/§9: my messages (and unread counts) are polled every 60 s. */
export const POLL_MS = 60_000;

/** Any thrown value as the ApiError screens know how to explain. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'unknown', error instanceof Error ? error.message : String(error));
}

export interface QueryMeta extends Record<string, unknown> {
  /** Spec §8: a failed offers watch is logged and rethrown (the screen shows the error). */
  logFailure?: string;
}

/**
 * A query client with the app's defaults: data is refetched when a screen mounts (screens show
 * the kept answer meanwhile), never on window focus (polls say when), and a request is retried
 * once only when the server could not be reached; a refusal is an answer, not a hiccup.
 */
export function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query: Query<unknown, unknown, unknown, readonly unknown[]>) => {
        const label = (query.meta as QueryMeta | undefined)?.logFailure;
        if (label) console.warn(label, error);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 0,
        refetchOnWindowFocus: false,
        // Polls pause while the tab is hidden (TanStack's default, stated here on purpose).
        refetchIntervalInBackground: false,
        retry: (failures, error) => failures < 1 && asApiError(error).code === 'network',
      },
      mutations: { retry: false },
    },
  });
}

/**
 * "Coming back" is a tab made visible again or a window focused again (a phone switching
 * apps fires either); queries that opt in (refetchOnWindowFocus) are fetched again then.
 */
if (typeof window !== 'undefined') {
  focusManager.setEventListener((handleFocus) => {
    const onVisibility = () => handleFocus(document.visibilityState === 'visible');
    // Every focus counts as coming back, even without a blur seen before it (a phone may not
    // send one): the manager only acts on a change, so it is told "away" and then "back".
    const onFocus = () => {
      handleFocus(false);
      handleFocus(true);
    };
    document.addEventListener('visibilitychange', onVisibility);
    window.addEventListener('focus', onFocus);
    return () => {
      document.removeEventListener('visibilitychange', onVisibility);
      window.removeEventListener('focus', onFocus);
    };
  });
}

/** The one app-wide client; sign-out clears it (spec §4 Session: "resets all stored data"). */
export const queryClient = createQueryClient();

declare module '@tanstack/react-query' {
  interface Register {
    // Every request of the app fails with an ApiError (client.ts, graphql.ts normalise).
    defaultError: ApiError;
    queryMeta: QueryMeta;
  }
}
