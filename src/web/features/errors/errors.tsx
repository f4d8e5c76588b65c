/**
 * Uncaught errors (spec §8): listed on screen and cleared one by one. Window errors, unhandled
 * promise rejections and errors thrown by mutation handlers all land here.
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';

export interface UncaughtError {
  id: number;
  message: string;
  code?: string;
}

interface ErrorsApi {
  errors: UncaughtError[];
  report(error: unknown): void;
  dismiss(id: number): void;
  clearAll(): void;
}

const ErrorsContext = createContext<ErrorsApi | null>(null);
let nextId = 1;

export function toUncaught(error: unknown): UncaughtError {
  const e = error as { message?: unknown; code?: unknown };
  return {
    id: nextId++,
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}

export function ErrorsProvider({ children }: { children: ReactNode }) {
  const [errors, setErrors] = useState<UncaughtError[]>([]);
  const report = useCallback((error: unknown) => setErrors((list) => [...list, toUncaught(error)]), []);
  const dismiss = useCallback((id: number) => setErrors((list) => list.filter((e) => e.id !== id)), []);
  const clearAll = useCallback(() => setErrors([]), []);

  useEffect(() => {
    const onError = (event: ErrorEvent) => report(event.error ?? event.message);
    const onRejection = (event: PromiseRejectionEvent) => report(event.reason);
    window.addEventListener('error', onError);
    window.addEventListener('unhandledrejection', onRejection);
    return () => {
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
    };
  }, [report]);

  const value = useMemo(() => ({ errors, report, dismiss, clearAll }), [errors, report, dismiss, clearAll]);
  return <ErrorsContext.Provider value={value}>{children}</ErrorsContext.Provider>;
}

export function useErrors(): ErrorsApi {
  const value = useContext(ErrorsContext);
  if (!value) throw new Error('useErrors outside ErrorsProvider');
  return value;
}
