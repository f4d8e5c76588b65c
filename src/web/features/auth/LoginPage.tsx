import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useClock } from '../../ui/useClock';
import { safeReturnTo } from '../../../domain/routes';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { Alert, Page, TextField } from '../../ui/ui';
import { referenceText } from '../../ui/ErrorAlert';

/** Why the last sign-in failed, in words a person can act on (issue: wrong, locked, unconfirmed). */
function FailedLogin() {
  const clock = useClock();
  const { t } = useTranslation();
  const { failedLogin } = useSession();
  if (!failedLogin) return null;
  switch (failedLogin.code) {
    case 'invalid_credentials':
      return <Alert kind="error">{t('login.invalidCredentials')}</Alert>;
    case 'account_locked': {
      const until = typeof failedLogin.body.lockedUntil === 'string' ? new Date(failedLogin.body.lockedUntil) : null;
      return (
        <Alert kind="error">
          {until
            ? t('login.lockedUntil', {
                time: clock.dateTime(until),
                minutes: t('time.minutes', { count: Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000)) }),
              })
            : t('login.locked')}
        </Alert>
      );
    }
    // Issue 16: sign-in slows down after failures (never a lock); the server says how long to wait.
    // The page's own "forgot password" link stays right below the form.
    case 'too_many_attempts':
    case 'rate_limited': {
      const seconds = typeof failedLogin.body.retryAfterSeconds === 'number' ? failedLogin.body.retryAfterSeconds : 60;
      const wait = t('hardening.seconds', { count: seconds });
      return (
        <Alert kind="error">{t(failedLogin.code === 'too_many_attempts' ? 'hardening.tooManyAttempts' : 'hardening.rateLimited', { wait })}</Alert>
      );
    }
    // Issue 30: the second step for a person with a second factor (the form shows the code field).
    case 'mfa_code_required':
      return <Alert kind="info">{t('mfa.signInCodeAsked')}</Alert>;
    case 'mfa_code_invalid':
      return <Alert kind="error">{t('mfa.signInCodeWrong')}</Alert>;
    case 'email_unconfirmed':
      return (
        <Alert kind="warning">
          <p>{t('login.unconfirmed')}</p>
          <Link to="/resend-confirmation">{t('login.resendLink')}</Link>
        </Alert>
      );
    default:
      return <Alert kind="error">{t(`errorCodes.${failedLogin.code}`, { defaultValue: t('errorCodes.unknown') }) + referenceText(t, failedLogin)}</Alert>;
  }
}

export function LoginPage() {
  const { t } = useTranslation();
  const session = useSession();
  const navigate = useNavigate();
  const location = useLocation();
  const [params] = useSearchParams();
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  // Issue 30: asked after the password when the person uses a second factor.
  const [code, setCode] = useState('');
  const [codeStep, setCodeStep] = useState(false);
  const [busy, setBusy] = useState(false);
  const denied = (location.state as { denied?: boolean } | null)?.denied === true;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await session.signIn(login.trim(), password, codeStep ? code.trim() : undefined);
      void navigate(safeReturnTo(params.get('returnTo')), { replace: true });
    } catch (error) {
      // The failed-login flag in the session explains it; keep the form as typed. The password
      // stays for the code step (the code is sent with it).
      const mfa = error instanceof ApiError && (error.code === 'mfa_code_required' || error.code === 'mfa_code_invalid');
      if (mfa) {
        setCodeStep(true);
        setCode('');
      } else {
        setPassword('');
        setCodeStep(false);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title={t('login.title')} width="narrow">
      {denied ? <Alert kind="warning">{t('login.denied')}</Alert> : null}
      {session.user && !denied ? (
        <Alert kind="info">
          <p>{t('login.alreadySignedIn', { name: session.user.alias ?? session.user.username })}</p>
          <Link to="/">{t('nav.home')}</Link>
        </Alert>
      ) : null}
      <div className="card">
        <FailedLogin />
        <form className="form" onSubmit={(e) => void onSubmit(e)} noValidate>
          <TextField
            label={t('login.username')}
            hint={t('login.usernameHint')}
            name="username"
            autoComplete="username"
            data-ltr=""
            required
            value={login}
            onChange={(e) => setLogin(e.target.value)}
          />
          <TextField
            label={t('login.password')}
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          {codeStep ? (
            <TextField
              label={t('mfa.signInCode')}
              hint={t('mfa.signInCodeHint')}
              name="code"
              autoComplete="one-time-code"
              inputMode="numeric"
              data-ltr=""
              autoFocus
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          ) : null}
          <div className="button-row">
            <button type="submit" className="button" disabled={busy || !login || !password || (codeStep && !code.trim())}>
              {busy ? t('login.submitting') : t('login.submit')}
            </button>
          </div>
        </form>
        <ul className="link-list">
          <li>
            <Link to="/reset-password">{t('login.forgotPassword')}</Link>
          </li>
          <li>
            <Link to="/register">{t('login.register')}</Link>
          </li>
          <li>
            <Link to="/resend-confirmation">{t('login.resendLink')}</Link>
          </li>
        </ul>
      </div>
    </Page>
  );
}
