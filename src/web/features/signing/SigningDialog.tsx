/**
 * The one signing dialog (issue 30 item 3): every signed act (signing or amending a report,
 * randomizing, excluding, closing a safety task, withdrawing a participant, a legal hold) asks
 * the server first; its refusal "signature needed" opens this dialog through the data layer
 * (api/client.ts sendSigned). The person reads what their signature means and what it does,
 * re-enters their password (and the code of their second factor when they use one), gets a
 * signing token for this act and record, and the data layer repeats the act with it.
 * Cancelling leaves the act undone; the screen shows the refusal in the person's language.
 */
import './signing.css';
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { MEANING_OF_ACT, isSignedAct } from '../../../domain/signatures';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, onSigned, setSigner, type SignatureAsk } from '../../api/client';
import { errorText } from '../../ui/ErrorAlert';
import { issueSigningToken, loadMfaState } from './api';

interface Open {
  ask: SignatureAsk;
  resolve: (token: string | null) => void;
}

export function SigningProvider({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState<Open | null>(null);
  const client = useQueryClient();
  useEffect(() => onSigned(() => void client.invalidateQueries({ queryKey: ['signatures'] })), [client]);
  useEffect(() => {
    setSigner((ask) => new Promise<string | null>((resolve) => setOpen({ ask, resolve })));
    return () => setSigner(null);
  }, []);
  const done = useCallback(
    (token: string | null) => {
      open?.resolve(token);
      setOpen(null);
    },
    [open],
  );
  return (
    <>
      {children}
      {open ? <SigningDialog ask={open.ask} onDone={done} /> : null}
    </>
  );
}

function SigningDialog({ ask, onDone }: { ask: SignatureAsk; onDone: (token: string | null) => void }) {
  const { t } = useTranslation();
  const ids = useId();
  const dialog = useRef<HTMLDialogElement>(null);
  const passwordField = useRef<HTMLInputElement>(null);
  const returnFocus = useRef<HTMLElement | null>(document.activeElement instanceof HTMLElement ? document.activeElement : null);
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [withCode, setWithCode] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!dialog.current?.open) dialog.current?.showModal();
    passwordField.current?.focus();
    // The code field shows when the person uses a second factor (or the server asks for it).
    loadMfaState()
      .then((state) => setWithCode(state.enrolled))
      .catch(() => undefined);
  }, []);

  const finish = (token: string | null) => {
    dialog.current?.close();
    const back = returnFocus.current;
    onDone(token);
    if (back?.isConnected) requestAnimationFrame(() => back.focus());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const answer = await issueSigningToken({ act: ask.act, recordId: ask.recordId, password, ...(withCode && code.trim() ? { code: code.trim() } : {}) });
      finish(answer.token);
    } catch (thrown) {
      const failure = thrown instanceof ApiError ? thrown : new ApiError(0, 'unknown', '');
      if (failure.code === 'mfa_code_required') setWithCode(true);
      setError(failure);
      setBusy(false);
    }
  };

  const meaning = isSignedAct(ask.act) ? MEANING_OF_ACT[ask.act] : undefined;
  return (
    <dialog ref={dialog} className="confirm signing" aria-labelledby={`${ids}-title`} aria-describedby={`${ids}-meaning ${ids}-consequence`} onCancel={() => finish(null)}>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <h2 id={`${ids}-title`}>{t('signing.title')}</h2>
        <p id={`${ids}-meaning`} className="signing__meaning">
          <span>{t('signing.meaningLabel')}</span> <strong>{meaning ? t(`signing.meanings.${meaning}`) : t('signing.meanings.unknown')}</strong>
        </p>
        <p id={`${ids}-consequence`}>{t(`signing.consequences.${ask.act}`, { defaultValue: t('signing.consequences.unknown') })}</p>
        <p className="field__hint">{t('signing.statement')}</p>
        <div className="field">
          <label htmlFor={`${ids}-password`}>{t('signing.password')}</label>
          <input
            ref={passwordField}
            id={`${ids}-password`}
            className="input"
            type="password"
            autoComplete="current-password"
            value={password}
            required
            onChange={(e) => setPassword(e.target.value)}
          />
        </div>
        {withCode ? (
          <div className="field">
            <label htmlFor={`${ids}-code`}>{t('signing.code')}</label>
            <span id={`${ids}-code-hint`} className="field__hint">
              {t('signing.codeHint')}
            </span>
            <input
              id={`${ids}-code`}
              className="input"
              inputMode="numeric"
              autoComplete="one-time-code"
              aria-describedby={`${ids}-code-hint`}
              dir="ltr"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </div>
        ) : null}
        {error ? (
          <p className="field__error" role="alert">
            {errorText(t, error)}
            {error.code === 'mfa_enrolment_required' ? (
              <>
                {' '}
                <Link to="/profile/second-factor" onClick={() => finish(null)}>
                  {t('mfa.setUpLink')}
                </Link>
              </>
            ) : null}
          </p>
        ) : null}
        <div className="button-row">
          <button type="submit" className="button" disabled={busy}>
            {t('signing.sign')}
          </button>
          <button type="button" className="button button--secondary" onClick={() => finish(null)}>
            {t('common.cancel')}
          </button>
        </div>
      </form>
    </dialog>
  );
}
