/**
 * The staff second factor (issue 30 item 4): set up an authenticator app (TOTP), see the ten
 * recovery codes once, and, for coordinators, reset another person's lost device with a
 * reason (logged as mfa_reset). No QR library is installed, so the key and the otpauth:// link
 * are shown as text: authenticator apps accept the key typed in or the link opened on the phone.
 */
import './signing.css';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import { useSession } from '../../session/session';
import { useConfirmWithReason } from '../../ui/confirm';
import { ErrorAlert } from '../../ui/ErrorAlert';
import { Alert, Page, SelectField, Spinner, TextField } from '../../ui/ui';
import { MFA_STATE_KEY, beginEnrolment, confirmEnrolment, loadMfaState, loadStaffAccounts, resetSecondFactor } from './api';

/** The key in groups of four, easier to type into an app. */
function grouped(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

function Enrolment() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [code, setCode] = useState('');
  const begin = useMutation({ mutationFn: beginEnrolment });
  const navigate = useNavigate();
  // The state is refreshed only on "continue": the recovery codes stay on screen until then.
  const confirm = useMutation({ mutationFn: confirmEnrolment });
  const carryOn = async () => {
    await client.invalidateQueries({ queryKey: MFA_STATE_KEY });
    void navigate('/');
  };

  if (confirm.data) {
    return (
      <section className="card" aria-labelledby="mfa-codes-title">
        <h2 id="mfa-codes-title">{t('mfa.recoveryTitle')}</h2>
        <Alert kind="success">{t('mfa.enrolled')}</Alert>
        <p>{t('mfa.recoveryIntro')}</p>
        <ul className="mfa-codes" dir="ltr">
          {confirm.data.recoveryCodes.map((recovery) => (
            <li key={recovery}>
              <code>{recovery}</code>
            </li>
          ))}
        </ul>
        <button type="button" className="button" onClick={() => void carryOn()}>
          {t('mfa.continue')}
        </button>
      </section>
    );
  }

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (code.trim()) confirm.mutate(code.trim());
  };

  return (
    <section className="card" aria-labelledby="mfa-enrol-title">
      <h2 id="mfa-enrol-title">{t('mfa.enrolTitle')}</h2>
      <p>{t('mfa.enrolIntro')}</p>
      {!begin.data ? (
        <>
          <ErrorAlert error={begin.error as ApiError | null} focusOnShow />
          <button type="button" className="button" disabled={begin.isPending} onClick={() => begin.mutate()}>
            {t('mfa.begin')}
          </button>
        </>
      ) : (
        <form className="form" onSubmit={submit} noValidate>
          <ol className="mfa-steps">
            <li>
              <p>{t('mfa.stepKey')}</p>
              <p className="mfa-key" dir="ltr">
                <code>{grouped(begin.data.secret)}</code>
              </p>
            </li>
            <li>
              <p>{t('mfa.stepLink')}</p>
              <p className="mfa-uri" dir="ltr">
                <a href={begin.data.otpauthUri}>{begin.data.otpauthUri}</a>
              </p>
            </li>
            <li>
              <p>{t('mfa.stepCode')}</p>
            </li>
          </ol>
          <ErrorAlert error={confirm.error as ApiError | null} focusOnShow />
          <TextField label={t('mfa.code')} name="code" inputMode="numeric" autoComplete="one-time-code" data-ltr="" value={code} onChange={(e) => setCode(e.target.value)} />
          <div className="button-row">
            <button type="submit" className="button" disabled={confirm.isPending || !code.trim()}>
              {t('mfa.confirm')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** Coordinators: reset another person's second factor (a lost device), with a reason. */
function ResetOther() {
  const { t } = useTranslation();
  const session = useSession();
  const askReason = useConfirmWithReason();
  const staff = useQuery({ queryKey: ['staff-accounts'], queryFn: loadStaffAccounts });
  const [person, setPerson] = useState('');
  const reset = useMutation({ mutationFn: ({ userId, reason }: { userId: string; reason: string }) => resetSecondFactor(userId, reason) });
  const others = (staff.data?.accounts ?? []).filter((a) => a.id !== session.user?.id && !a.disabled);
  const chosen = others.find((a) => a.id === person);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    const name = chosen.alias ?? chosen.username;
    const reason = await askReason({ title: t('mfa.resetTitle'), message: t('mfa.resetConfirm', { name }), reasonLabel: t('mfa.resetReason'), confirmLabel: t('mfa.reset'), danger: true });
    if (reason === null) return;
    reset.mutate({ userId: chosen.id, reason });
  };

  return (
    <section className="card" aria-labelledby="mfa-reset-title">
      <h2 id="mfa-reset-title">{t('mfa.resetTitle')}</h2>
      <p>{t('mfa.resetIntro')}</p>
      {staff.isPending ? <Spinner /> : null}
      {reset.isSuccess ? <Alert kind="success">{t('mfa.resetDone')}</Alert> : null}
      <ErrorAlert error={(reset.error ?? staff.error) as ApiError | null} focusOnShow />
      <form className="form" onSubmit={(e) => void submit(e)} noValidate>
        <SelectField
          label={t('mfa.resetPerson')}
          value={person}
          onChange={(e) => {
            setPerson(e.target.value);
            reset.reset();
          }}
          options={[{ value: '', label: t('mfa.resetChoose') }, ...others.map((a) => ({ value: a.id, label: a.alias ? `${a.alias} (${a.username})` : a.username }))]}
        />
        <div className="button-row">
          <button type="submit" className="button button--danger" disabled={!chosen || reset.isPending}>
            {t('mfa.reset')}
          </button>
        </div>
      </form>
    </section>
  );
}

export function SecondFactorPage() {
  const { t } = useTranslation();
  const session = useSession();
  const state = useQuery({ queryKey: MFA_STATE_KEY, queryFn: loadMfaState });
  return (
    <Page title={t('mfa.title')} width="narrow">
      {state.isPending ? <Spinner /> : null}
      <ErrorAlert error={state.error as ApiError | null} />
      {state.data?.required && !state.data.enrolled ? <Alert kind="warning">{t('mfa.requiredNotice')}</Alert> : null}
      {state.data?.enrolled ? (
        <section className="card" aria-labelledby="mfa-state-title">
          <h2 id="mfa-state-title">{t('mfa.activeTitle')}</h2>
          <p>{t('mfa.active', { left: state.data.recoveryCodesLeft })}</p>
          <p>{t('mfa.lostDevice')}</p>
        </section>
      ) : state.data ? (
        <Enrolment />
      ) : null}
      {session.user?.is_coordinator_account ? <ResetOther /> : null}
    </Page>
  );
}
