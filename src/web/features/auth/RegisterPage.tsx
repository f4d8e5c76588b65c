import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { addFieldErrors, emailProblems, passwordProblems, usernameProblems, type FieldErrors } from '../../../domain/accounts';
import { currentLocale } from '../../i18n/i18n';
import { Alert, Checkbox, Page, SelectField, TextField } from '../../ui/ui';
import { ErrorMessage } from './ErrorMessage';
import { browserTimeZone, timeZoneOptions } from './timezones';
import { register } from './api';
import { useSubmit } from './useSubmit';
import { RegistrationConsent, useRegistrationConsentLanguage } from '../consent/PatientConsent';

interface Draft {
  username: string;
  email: string;
  password: string;
  passwordRepeat: string;
  alias: string;
  gender: string;
  phone: string;
  timeZone: string;
  agreedToTerms: boolean;
  agreedToPrivacyPolicy: boolean;
  confirmedAdult: boolean;
  agreedToResearchUse: boolean;
  agreedToBeContacted: boolean;
  /** The consent version agreed to (issue 31), when one is published. */
  consentVersionId: string | null;
}

const EMPTY: Draft = {
  username: '',
  email: '',
  password: '',
  passwordRepeat: '',
  alias: '',
  gender: '',
  phone: '',
  timeZone: browserTimeZone(),
  agreedToTerms: false,
  agreedToPrivacyPolicy: false,
  confirmedAdult: false,
  agreedToResearchUse: false,
  agreedToBeContacted: false,
  consentVersionId: null,
};

/** The same rules the server enforces, checked first so people see problems at once. */
function draftProblems(draft: Draft): FieldErrors {
  const errors: FieldErrors = {};
  addFieldErrors(errors, 'username', usernameProblems(draft.username));
  addFieldErrors(errors, 'email', emailProblems(draft.email));
  addFieldErrors(errors, 'password', passwordProblems(draft.password, draft));
  if (draft.password !== draft.passwordRepeat) {
    addFieldErrors(errors, 'passwordRepeat', [{ code: 'password_mismatch', message: 'The passwords do not match.' }]);
  }
  if (!draft.agreedToTerms) addFieldErrors(errors, 'agreedToTerms', [{ code: 'terms_required', message: '' }]);
  if (!draft.agreedToPrivacyPolicy) addFieldErrors(errors, 'agreedToPrivacyPolicy', [{ code: 'privacy_required', message: '' }]);
  if (!draft.confirmedAdult) addFieldErrors(errors, 'confirmedAdult', [{ code: 'adult_required', message: '' }]);
  return errors;
}

/** Patient registration; the counseling variant (/register-counseling) sets the counseling flags. */
export function RegisterPage({ counseling = false }: { counseling?: boolean }) {
  const { t } = useTranslation();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const set = <K extends keyof Draft>(key: K, value: Draft[K]) => setDraft((d) => ({ ...d, [key]: value }));
  const consentLanguage = useRegistrationConsentLanguage();

  const send = useCallback(
    () =>
      register({
        username: draft.username.trim(),
        email: draft.email.trim(),
        password: draft.password,
        ...(draft.alias.trim() ? { alias: draft.alias.trim() } : {}),
        ...(draft.gender ? { gender: draft.gender } : {}),
        ...(draft.phone.trim() ? { phone: draft.phone.trim() } : {}),
        locale: currentLocale(),
        timeZone: draft.timeZone,
        agreedToTerms: draft.agreedToTerms,
        agreedToPrivacyPolicy: draft.agreedToPrivacyPolicy,
        confirmedAdult: draft.confirmedAdult,
        agreedToResearchUse: draft.agreedToResearchUse,
        agreedToBeContacted: draft.agreedToBeContacted,
        counseling,
        ...(draft.consentVersionId ? { consentVersionId: draft.consentVersionId, ...(consentLanguage ? { consentLanguage } : {}) } : {}),
      }),
    [draft, counseling, consentLanguage],
  );
  const { busy, error, fields, result, submit } = useSubmit(send);
  const title = counseling ? t('register.titleCounseling') : t('register.title');

  if (result) {
    return (
      <Page title={title} width="narrow">
        <Alert kind="success">
          <p>{t('register.sent', { email: draft.email })}</p>
        </Alert>
        <p>{t('register.sentHint')}</p>
        <Link to="/resend-confirmation">{t('login.resendLink')}</Link>
      </Page>
    );
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit(draftProblems(draft));
  };
  const conditions = counseling ? '/conditionsCounseling' : '/conditionsTherapy';

  return (
    <Page title={title} width="narrow">
      <p>{counseling ? t('register.introCounseling') : t('register.intro')}</p>
      <div className="card">
        <ErrorMessage error={error && Object.keys(fields).length === 0 ? error : null} />
        {Object.keys(fields).length > 0 ? <Alert kind="error">{t('register.fixFields')}</Alert> : null}
        <form className="form" onSubmit={onSubmit} noValidate>
          <TextField label={t('register.username')} hint={t('register.usernameHint')} name="username" autoComplete="username" data-ltr="" required value={draft.username} errors={fields.username} onChange={(e) => set('username', e.target.value)} />
          <TextField label={t('register.email')} hint={t('register.emailHint')} type="email" name="email" autoComplete="email" required value={draft.email} errors={fields.email} onChange={(e) => set('email', e.target.value)} />
          <TextField label={t('register.password')} hint={t('register.passwordHint')} type="password" name="password" autoComplete="new-password" required value={draft.password} errors={fields.password} onChange={(e) => set('password', e.target.value)} />
          <TextField label={t('register.passwordRepeat')} type="password" name="passwordRepeat" autoComplete="new-password" required value={draft.passwordRepeat} errors={fields.passwordRepeat} onChange={(e) => set('passwordRepeat', e.target.value)} />
          <TextField label={t('register.alias')} hint={t('register.aliasHint')} name="alias" autoComplete="nickname" value={draft.alias} errors={fields.alias} onChange={(e) => set('alias', e.target.value)} />
          <SelectField
            label={t('register.gender')}
            name="gender"
            value={draft.gender}
            onChange={(e) => set('gender', e.target.value)}
            options={[
              { value: '', label: t('register.genderNone') },
              { value: 'FEMALE', label: t('gender.FEMALE') },
              { value: 'MALE', label: t('gender.MALE') },
              { value: 'DIVERSE', label: t('gender.DIVERSE') },
            ]}
          />
          <TextField label={t('register.phone')} hint={t('register.phoneHint')} type="tel" name="phone" autoComplete="tel" data-ltr="" value={draft.phone} errors={fields.phone} onChange={(e) => set('phone', e.target.value)} />
          <SelectField label={t('register.timeZone')} name="timeZone" value={draft.timeZone} errors={fields.timeZone} onChange={(e) => set('timeZone', e.target.value)} options={timeZoneOptions(draft.timeZone)} />
          <fieldset className="form">
            <legend>{t('register.consents')}</legend>
            <Checkbox
              name="agreedToTerms"
              checked={draft.agreedToTerms}
              errors={fields.agreedToTerms}
              onChange={(e) => set('agreedToTerms', e.target.checked)}
              label={
                <>
                  {t('register.agreeTerms')} (<Link to={conditions}>{t('register.readConditions')}</Link>)
                </>
              }
            />
            <Checkbox
              name="agreedToPrivacyPolicy"
              checked={draft.agreedToPrivacyPolicy}
              errors={fields.agreedToPrivacyPolicy}
              onChange={(e) => set('agreedToPrivacyPolicy', e.target.checked)}
              label={
                <>
                  {t('register.agreePrivacy')} (<Link to="/privacy">{t('register.readPrivacy')}</Link>)
                </>
              }
            />
            <Checkbox name="confirmedAdult" checked={draft.confirmedAdult} errors={fields.confirmedAdult} onChange={(e) => set('confirmedAdult', e.target.checked)} label={t('register.confirmAdult')} />
            <Checkbox name="agreedToResearchUse" checked={draft.agreedToResearchUse} onChange={(e) => set('agreedToResearchUse', e.target.checked)} label={t('register.agreeResearch')} />
            <Checkbox name="agreedToBeContacted" checked={draft.agreedToBeContacted} onChange={(e) => set('agreedToBeContacted', e.target.checked)} label={t('register.agreeContact')} />
          </fieldset>
          <RegistrationConsent agreed={draft.consentVersionId} onChange={(id) => set('consentVersionId', id)} errors={fields.consentVersionId} />
          <div className="button-row">
            <button type="submit" className="button" disabled={busy}>
              {busy ? t('common.sending') : t('register.submit')}
            </button>
          </div>
        </form>
        <ul className="link-list">
          <li>
            <Link to="/login">{t('register.haveAccount')}</Link>
          </li>
          <li>
            <Link to={counseling ? '/register' : '/register-counseling'}>{counseling ? t('register.toTherapy') : t('register.toCounseling')}</Link>
          </li>
        </ul>
      </div>
    </Page>
  );
}
