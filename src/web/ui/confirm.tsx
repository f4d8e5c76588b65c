/**
 * Confirmation prompts (spec §8): a modal <dialog>, which browsers make accessible (focus
 * trap, Escape to cancel). `useConfirm` returns a function that resolves true or false;
 * `useConfirmWithReason` asks for a written reason as well and resolves it (or null when
 * cancelled). Irreversible acts name their consequence in `message` and may list what is
 * left undone in `items` (e.g. the empty sections of a report about to be signed).
 * Focus starts on "cancel" (the safe answer) and returns to where it was when the dialog closes.
 */
import { createContext, useCallback, useContext, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

export interface ConfirmRequest {
  title: string;
  message: string;
  confirmLabel?: string;
  danger?: boolean;
  /** What the person should know before confirming, one line each (shown as a list). */
  items?: readonly string[];
  /** Asks for a reason: its label; confirming needs a non-empty text. */
  reasonLabel?: string;
}

type Answer = { confirmed: false } | { confirmed: true; reason: string };
type Ask = (request: ConfirmRequest) => Promise<Answer>;
type Confirm = (request: ConfirmRequest) => Promise<boolean>;
type ConfirmWithReason = (request: ConfirmRequest & { reasonLabel: string }) => Promise<string | null>;

const ConfirmContext = createContext<Ask | null>(null);

export function ConfirmProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const ids = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const [request, setRequest] = useState<ConfirmRequest | null>(null);
  const [reason, setReason] = useState('');
  const [reasonMissing, setReasonMissing] = useState(false);
  const resolver = useRef<((answer: Answer) => void) | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);

  const ask = useCallback<Ask>((next) => {
    returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setReason('');
    setReasonMissing(false);
    setRequest(next);
    return new Promise<Answer>((resolve) => {
      resolver.current = resolve;
    });
  }, []);

  // Opened once its content is on the page, so focus lands on "cancel", the safe answer
  // (React's autoFocus sets no attribute the dialog's own focusing would find).
  const cancelButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!request || dialog.current?.open) return;
    dialog.current?.showModal();
    cancelButton.current?.focus();
  }, [request]);

  const answer = (value: Answer) => {
    dialog.current?.close();
    resolver.current?.(value);
    resolver.current = null;
    setRequest(null);
    const back = returnFocus.current;
    returnFocus.current = null;
    // Back to the button that opened it, if it is still on the page.
    if (back?.isConnected) requestAnimationFrame(() => back.focus());
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const text = reason.trim();
    if (request?.reasonLabel && !text) {
      setReasonMissing(true);
      return;
    }
    answer({ confirmed: true, reason: text });
  };

  return (
    <ConfirmContext.Provider value={ask}>
      {children}
      <dialog ref={dialog} className="confirm" aria-labelledby={`${ids}-title`} aria-describedby={`${ids}-message`} onCancel={() => answer({ confirmed: false })}>
        {request ? (
          <form onSubmit={submit} noValidate>
            <h2 id={`${ids}-title`}>{request.title}</h2>
            <p id={`${ids}-message`}>{request.message}</p>
            {request.items && request.items.length > 0 ? (
              <ul className="confirm__items">
                {request.items.map((item) => (
                  <li key={item}>{item}</li>
                ))}
              </ul>
            ) : null}
            {request.reasonLabel ? (
              <div className="field">
                <label htmlFor={`${ids}-reason`}>{request.reasonLabel}</label>
                <textarea
                  id={`${ids}-reason`}
                  dir="auto"
                  rows={3}
                  value={reason}
                  aria-invalid={reasonMissing || undefined}
                  aria-describedby={reasonMissing ? `${ids}-reason-error` : undefined}
                  onChange={(e) => {
                    setReason(e.target.value);
                    setReasonMissing(false);
                  }}
                />
                {reasonMissing ? (
                  <p id={`${ids}-reason-error`} className="field__error" role="alert">
                    {t('careTeam.confirm.reasonRequired')}
                  </p>
                ) : null}
              </div>
            ) : null}
            <div className="button-row">
              <button type="submit" className={request.danger ? 'button button--danger' : 'button'}>
                {request.confirmLabel ?? t('common.confirm')}
              </button>
              <button ref={cancelButton} type="button" className="button button--secondary" onClick={() => answer({ confirmed: false })}>
                {t('common.cancel')}
              </button>
            </div>
          </form>
        ) : null}
      </dialog>
    </ConfirmContext.Provider>
  );
}

function useAsk(): Ask {
  const ask = useContext(ConfirmContext);
  if (!ask) throw new Error('useConfirm outside ConfirmProvider');
  return ask;
}

/** Asks a yes/no question; true when confirmed. */
export function useConfirm(): Confirm {
  const ask = useAsk();
  return useCallback<Confirm>(async (request) => (await ask(request)).confirmed, [ask]);
}

/** Asks to confirm with a written reason; the reason when confirmed, null when cancelled. */
export function useConfirmWithReason(): ConfirmWithReason {
  const ask = useAsk();
  return useCallback<ConfirmWithReason>(async (request) => {
    const result = await ask(request);
    return result.confirmed ? result.reason : null;
  }, [ask]);
}
