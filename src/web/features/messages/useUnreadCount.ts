/**
 * The unread-message count for the "Messages" badge. Spec §7/§9: GET /api/my_messages is
 * polled every 60 seconds without a loading indicator; a failed poll changes nothing on screen
 * and logs nothing (the badge is a convenience, the conversation screen shows the truth).
 */
import { useEffect, useState } from 'react';
import { api } from '../../api/client';

export const UNREAD_POLL_MS = 60_000;
const UNREAD_PATH = '/api/my_messages?select=id,case_id,is_unread&is_unread=is.true';

/**
 * The last count per person, shared by every mount: each route renders its own layout, and a
 * new page should neither flash an empty badge nor ask the server again within the interval.
 */
let cache: { userId: string; count: number; at: number } | null = null;
const refreshers = new Set<() => Promise<void>>();

/** Asks for the count now (after marking messages read), instead of at the next poll. */
export function refreshUnreadCount(): Promise<void> {
  return Promise.all([...refreshers].map((refresh) => refresh())).then(() => undefined);
}

async function fetchUnreadCount(signal: AbortSignal): Promise<number> {
  const rows = await api<unknown>('GET', UNREAD_PATH, { signal });
  return Array.isArray(rows) ? rows.length : 0;
}

export function useUnreadCount(userId: string | null): number {
  const [count, setCount] = useState(() => (cache && cache.userId === userId ? cache.count : 0));

  useEffect(() => {
    if (!userId) return;
    const controller = new AbortController();
    const poll = async () => {
      try {
        const next = await fetchUnreadCount(controller.signal);
        cache = { userId, count: next, at: Date.now() };
        setCount(next);
      } catch {
        // Silent by design (see above): offline, signed out meanwhile, or aborted on unmount.
      }
    };
    if (cache && cache.userId === userId && Date.now() - cache.at < UNREAD_POLL_MS) setCount(cache.count);
    else void poll();
    // A hidden tab does not poll: phones keep their battery, the server its capacity.
    const timer = setInterval(() => {
      if (!document.hidden) void poll();
    }, UNREAD_POLL_MS);
    refreshers.add(poll);
    return () => {
      controller.abort();
      clearInterval(timer);
      refreshers.delete(poll);
    };
  }, [userId]);

  return userId && cache?.userId === userId ? count : 0;
}
