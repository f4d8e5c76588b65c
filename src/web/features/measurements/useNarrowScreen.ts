import { useSyncExternalStore } from 'react';

/** Phones: up to 600 px wide, where the form asks one item per screen. */
const NARROW = '(max-width: 600px)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** Whether the screen is phone-sized, following rotation and window resizing. */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(NARROW).matches);
}
