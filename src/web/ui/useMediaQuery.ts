import { useSyncExternalStore } from 'react';

/** Phones: up to 600 px wide, where a questionnaire asks one item per screen. */
export const NARROW_SCREEN = '(max-width: 600px)';
/** Tables need room; below this width (phones) lists are shown as cards. */
export const WIDE_SCREEN = '(min-width: 48rem)';

/** Whether a CSS media query matches, following rotation and window resizing. */
export function useMediaQuery(media: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const query = window.matchMedia(media);
      query.addEventListener('change', onChange);
      return () => query.removeEventListener('change', onChange);
    },
    () => window.matchMedia(media).matches,
  );
}
