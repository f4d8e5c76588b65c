import { useSyncExternalStore } from 'react';

/** Tables need room; below this width (phones) lists are shown as cards. */
const WIDE = '(min-width: 48rem)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(WIDE);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the screen is wide enough for a table, following rotation and window resizing. */
export function useWideScreen(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(WIDE).matches);
}
