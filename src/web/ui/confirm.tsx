/**
 * Confirmation prompts (spec §8): a modal <dialog>, which browsers make accessible (focus
 * trap, Escape to cancel). `useConfirm` returns a function that resolves true or false.
 */
import { createContext, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel?: string;
  danger?: boolean;
}

type Confirm = (request: ConfirmRequest) => Promise<boolean>;
const ConfirmContext = createContext<Confirm | null>(null);

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const dialog = useRef<HTMLDialogElement>(null);
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const resolver = useRef<((answer: boolean) => void) | null>(null);

  const confirm = useCallback<Confirm>((next) => {
    setRequest(next);
    queueMicrotask(() => dialog.current?.showModal());
    return new Promise<boolean>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  const answer = (value: boolean) => {
    dialog.current?.close();
    resolver.current?.(value);
    resolver.current = null;
    setRequest(null);
  };

  return (
    <ConfirmContext.Provider value={confirm}>
      {children}
      <dialog ref={dialog} className="confirm" aria-labelledby="confirm-title" onCancel={() => answer(false)}>
        {request ? (
          <>
            <h2 id="confirm-title">{request.title}</h2>
            <p>{request.message}</p>
            <div className="button-row">
              <button type="button" className={request.danger ? 'button button--danger' : 'button'} onClick={() => answer(true)}>
                {request.confirmLabel ?? t('common.confirm')}
              </button>
              <button type="button" className="button button--secondary" onClick={() => answer(false)} autoFocus>
                {t('common.cancel')}
              </button>
            </div>
          </>
        ) : null}
      </dialog>
    </ConfirmContext.Provider>
  );
}

export function useConfirm(): Confirm {
  const confirm = useContext(ConfirmContext);
  if (!confirm) throw new Error('useConfirm outside ConfirmProvider');
  return confirm;
}
