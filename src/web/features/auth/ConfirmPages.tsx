import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { addFieldErrors, passwordProblems, type FieldErrors } from '../../../domain/accounts';
import { Alert, Page, Spinner, TextField } from '../../ui/ui';
import { ErrorMessage } from './ErrorMessage';
import { confirmPasswordReset, confirmToken, requestByEmail, type EmailRequestPath, type TokenPath } from './api';
import { useSubmit } from './useSubmit';

/**
 * A mailed link's landing page: sends the token once (in JavaScript, so mail scanners that
 * fetch links do not use it up) and says what happened.
 */
function TokenConfirmation({ title, path, success, retry }: { title: string; path: TokenPath; success: string; retry: { to: string; label: string } }) {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const send = useCallback(() => confirmToken(path, token), [path, token]);
  const { busy, error, result, submit } = useSubmit(send);
  const sent = useRef(false);
  useEffect(() => {
    if (token && !sent.current) {
      sent.current = true;
      void submit();
    }
  }, [token, submit]);

  return (
    <Page title={title} width="narrow">
      {!token ? <Alert kind="error">{t('errorCodes.token_invalid')}</Alert> : null}
      {busy ? <Spinner /> : null}
      {result ? (
        <Alert kind="success">
          <p>{success}</p>
          <Link to="/login">{t('confirm.toLogin')}</Link>
        </Alert>
      ) : null}
      <ErrorMessage error={error} />
      {error ? <Link to={retry.to}>{retry.label}</Link> : null}
    </Page>
  );
}

export function ConfirmRegistrationPage() {
  const { t } = useTranslation();
  return (
    <TokenConfirmation
      title={t('confirm.registrationTitle')}
      path="/api/auth/users/confirm"
      success={t('confirm.registrationDone')}
      retry={{ to: '/resend-confirmation', label: t('login.resendLink') }}
    />
  );
}

export function ConfirmEmailChangePage() {
  const { t } = useTranslation();
  return (
    <TokenConfirmation
      title={t('confirm.emailTitle')}
      path="/api/auth/email-change/confirm"
      success={t('confirm.emailDone')}
      retry={{ to: '/profile', label: t('confirm.toProfile') }}
    />
  );
}

/** The page a reset link opens: choose a new password. */
export function ConfirmResetPage() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const send = useCallback(() => confirmPasswordReset(token, password), [token, password]);
  const { busy, error, fields, result, submit } = useSubmit(send);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const problems: FieldErrors = {};
    addFieldErrors(problems, 'password', passwordProblems(password));
    if (password !== repeat) addFieldErrors(problems, 'passwordRepeat', [{ code: 'password_mismatch', message: '' }]);
    void submit(problems);
  };

  return (
    <Page title={t('confirm.resetTitle')} width="narrow">
      {result ? (
        <Alert kind="success">
          <p>{t('confirm.resetDone')}</p>
          <Link to="/login">{t('confirm.toLogin')}</Link>
        </Alert>
      ) : (
        <div className="card">
          {!token ? <Alert kind="error">{t('errorCodes.token_invalid')}</Alert> : null}
          <ErrorMessage error={error && !fields.password ? error : null} />
          {error && ['token_invalid', 'token_used', 'token_expired'].includes(error.code) ? <Link to="/reset-password">{t('confirm.requestNewLink')}</Link> : null}
          <form className="form" onSubmit={onSubmit} noValidate>
            <TextField label={t('confirm.newPassword')} hint={t('register.passwordHint')} type="password" autoComplete="new-password" required value={password} errors={fields.password} onChange={(e) => setPassword(e.target.value)} />
            <TextField label={t('register.passwordRepeat')} type="password" autoComplete="new-password" required value={repeat} errors={fields.passwordRepeat} onChange={(e) => setRepeat(e.target.value)} />
            <div className="button-row">
              <button type="submit" className="button" disabled={busy || !token}>
                {t('confirm.setPassword')}
              </button>
            </div>
          </form>
        </div>
      )}
    </Page>
  );
}

/** Shared by "resend confirmation" and "forgot password": one address, one neutral answer. */
function EmailRequestPage({ title, intro, path, done }: { title: string; intro: string; path: EmailRequestPath; done: string }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const send = useCallback(() => requestByEmail(path, email.trim()), [path, email]);
  const { busy, error, fields, result, submit } = useSubmit(send);
  return (
    <Page title={title} width="narrow">
      <p>{intro}</p>
      {result ? (
        <Alert kind="success">{done}</Alert>
      ) : (
        <div className="card">
          <ErrorMessage error={error && !fields.email ? error : null} />
          <form
            className="form"
            onSubmit={(e) => {
              e.preventDefault();
              void submit();
            }}
            noValidate
          >
            <TextField label={t('register.email')} type="email" autoComplete="email" required value={email} errors={fields.email} onChange={(e) => setEmail(e.target.value)} />
            <div className="button-row">
              <button type="submit" className="button" disabled={busy || !email}>
                {t('common.send')}
              </button>
            </div>
          </form>
        </div>
      )}
      <p>
        <Link to="/login">{t('confirm.toLogin')}</Link>
      </p>
    </Page>
  );
}

export function ResendConfirmationPage() {
  const { t } = useTranslation();
  return <EmailRequestPage title={t('resend.title')} intro={t('resend.intro')} path="/api/auth/users/resend-confirmation" done={t('resend.done')} />;
}

export function ResetPasswordPage() {
  const { t } = useTranslation();
  return <EmailRequestPage title={t('reset.title')} intro={t('reset.intro')} path="/api/auth/password-reset" done={t('reset.done')} />;
}
