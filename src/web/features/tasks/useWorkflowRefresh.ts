/**
 * "Workflow data is refetched" (spec §4): screens that show tasks or processes reload when a
 * task was completed in this tab, and when the person comes back to the tab (a task may have
 * been done elsewhere, e.g. by booking an interview or by a colleague).
 */
import { useEffect, useState } from 'react';

const listeners = new Set<() => void>();

/** Tells every workflow screen that tasks or processes changed. */
export function workflowChanged(): void {
  listeners.forEach((listener) => listener());
}

/** A number that grows each time the workflow data should be fetched again; use it in a load key. */
export function useWorkflowRefresh(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const onVisible = () => {
      if (document.visibilityState === 'visible') bump();
    };
    listeners.add(bump);
    document.addEventListener('visibilitychange', onVisible);
    window.addEventListener('focus', bump);
    return () => {
      listeners.delete(bump);
      document.removeEventListener('visibilitychange', onVisible);
      window.removeEventListener('focus', bump);
    };
  }, []);
  return version;
}
