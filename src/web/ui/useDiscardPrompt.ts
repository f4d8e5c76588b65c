import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker } from 'react-router';
import { useConfirm } from './confirm';

/**
 * Asks before leaving a page with unsaved input (spec §8 "discard changes"): in-app navigation
 * gets the confirmation dialog, closing or reloading the tab the browser's own prompt.
 */
export function useDiscardPrompt(dirty: boolean): void {
  const { t } = useTranslation();
  const confirm = useConfirm();
  const blocker = useBlocker(({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname);
  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    void confirm({ title: t('confirmPrompts.discardTitle'), message: t('confirmPrompts.discardMessage'), confirmLabel: t('confirmPrompts.discard'), danger: true }).then(
      (discard) => (discard ? blocker.proceed() : blocker.reset()),
    );
  }, [blocker, confirm, t]);
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);
}
