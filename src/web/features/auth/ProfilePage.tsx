import { useCallback, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { addFieldErrors, emailProblems, passwordProblems, type FieldErrors } from '../../../domain/accounts';
import { useClock } from '../../ui/useClock';
import { changeLocale, currentLocale, supportedLocales } from '../../i18n/i18n';
import type { Profile } from '../../session/profile';
import { useSession } from '../../session/session';
import { useDiscardPrompt } from '../../ui/useDiscardPrompt';
import { Alert, Page, SelectField, TextField } from '../../ui/ui';
import { OwnDataSection } from '../own-data/OwnDataSection';
import { MyConsentsSection } from '../consent/PatientConsent';
import { ErrorMessage } from './ErrorMessage';
import { timeZoneOptions } from './timezones';
import { changePassword, requestEmailChange, updateProfile } from './api';
import { useSubmit } from './useSubmit';
import { RecordReadersSection } from '../integrity/RecordReadersSection';

const NATIVE_NAMES: Record<string, string> = { ar: 'العربية', de: 'Deutsch', en: 'English' };

interface Details {
  alias: string;
  phone: string;
  gender: string;
  locale: string;
  timeZone: string;
}

function detailsOf(user: Profile): Details {
  return { alias: user.alias ?? '', phone: user.phone ?? '', gender: user.gender ?? '', locale: user.locale, timeZone: user.time_zone };
}

function DetailsForm({ user }: { user: Profile }) {
  const clock = useClock();
  const { t } = useTranslation();
  const session = useSession();
  const [draft, setDraft] = useState<Details>(() => detailsOf(user));
  const saved = detailsOf(user);
  const dirty = (Object.keys(saved) as (keyof Details)[]).some((k) => saved[k] !== draft[k]);
  useDiscardPrompt(dirty);
  const set = (key: keyof Details, value: string) => setDraft((d) => ({ ...d, [key]: value }));

  const save = useCallback(async () => {
    const profile = await updateProfile({ alias: draft.alias.trim() || null, phone: draft.phone.trim() || null, gender: draft.gender || null, locale: draft.locale, timeZone: draft.timeZone });
    session.setUser(profile);
    if (profile.locale !== currentLocale()) await changeLocale(profile.locale);
    return profile;
  }, [draft, session]);
  const { busy, error, fields, result, submit } = useSubmit(save);

  return (
    <section className="card" aria-labelledby="profile-details">
      <h2 id="profile-details">{t('profile.details')}</h2>
      <dl>
        <dt>{t('register.username')}</dt>
        <dd dir="ltr">{user.username}</dd>
        {user.last_login ? (
          <>
            <dt>{t('profile.lastLogin')}</dt>
            <dd>{clock.dateTime(user.last_login)}</dd>
          </>
        ) : null}
      </dl>
      {result && !dirty ? <Alert kind="success">{t('profile.saved')}</Alert> : null}
      <ErrorMessage error={error && Object.keys(fields).length === 0 ? error : null} />
      <form
        className="form"
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          void submit();
        }}
        noValidate
      >
        <TextField label={t('register.alias')} hint={t('register.aliasHint')} value={draft.alias} errors={fields.alias} onChange={(e) => set('alias', e.target.value)} />
        <TextField label={t('register.phone')} type="tel" data-ltr="" value={draft.phone} errors={fields.phone} onChange={(e) => set('phone', e.target.value)} />
        <SelectField
          label={t('register.gender')}
          value={draft.gender}
          onChange={(e) => set('gender', e.target.value)}
          options={[
            { value: '', label: t('register.genderNone') },
            { value: 'FEMALE', label: t('gender.FEMALE') },
            { value: 'MALE', label: t('gender.MALE') },
            { value: 'DIVERSE', label: t('gender.DIVERSE') },
          ]}
        />
        <SelectField
          label={t('profile.locale')}
          hint={t('profile.localeHint')}
          value={draft.locale}
          errors={fields.locale}
          onChange={(e) => set('locale', e.target.value)}
          options={supportedLocales().map((l) => ({ value: l, label: NATIVE_NAMES[l] ?? l }))}
        />
        <SelectField label={t('register.timeZone')} value={draft.timeZone} errors={fields.timeZone} onChange={(e) => set('timeZone', e.target.value)} options={timeZoneOptions(draft.timeZone)} />
        <div className="button-row">
          <button type="submit" className="button" disabled={busy || !dirty}>
            {t('common.save')}
          </button>
        </div>
      </form>
    </section>
  );
}

function EmailForm({ user }: { user: Profile }) {
  const { t } = useTranslation();
  const [newEmail, setNewEmail] = useState('');
  const [password, setPassword] = useState('');
  const send = useCallback(() => requestEmailChange(newEmail.trim(), password), [newEmail, password]);
  const { busy, error, fields, result, submit } = useSubmit(send);
  return (
    <section className="card" aria-labelledby="profile-email">
      <h2 id="profile-email">{t('profile.changeEmail')}</h2>
      <p className="muted">{t('profile.currentEmail', { email: user.email })}</p>
      {result ? <Alert kind="success">{t('profile.emailSent', { email: newEmail })}</Alert> : null}
      <ErrorMessage error={error && Object.keys(fields).length === 0 ? error : null} />
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          const problems: FieldErrors = {};
          addFieldErrors(problems, 'newEmail', emailProblems(newEmail.trim()));
          void submit(problems);
        }}
        noValidate
      >
        <TextField label={t('profile.newEmail')} type="email" autoComplete="email" required value={newEmail} errors={fields.newEmail} onChange={(e) => setNewEmail(e.target.value)} />
        <TextField label={t('login.password')} type="password" autoComplete="current-password" required value={password} errors={fields.password} onChange={(e) => setPassword(e.target.value)} />
        <div className="button-row">
          <button type="submit" className="button" disabled={busy || !newEmail || !password}>
            {t('profile.sendEmailLink')}
          </button>
        </div>
      </form>
    </section>
  );
}

function PasswordForm() {
  const { t } = useTranslation();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const send = useCallback(() => changePassword(current, next), [current, next]);
  const { busy, error, fields, result, submit } = useSubmit(send);
  return (
    <section className="card" aria-labelledby="profile-password">
      <h2 id="profile-password">{t('profile.changePassword')}</h2>
      {result ? <Alert kind="success">{t('profile.passwordChanged')}</Alert> : null}
      <ErrorMessage error={error && Object.keys(fields).length === 0 ? error : null} />
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          const problems: FieldErrors = {};
          addFieldErrors(problems, 'newPassword', passwordProblems(next));
          if (next !== repeat) addFieldErrors(problems, 'passwordRepeat', [{ code: 'password_mismatch', message: '' }]);
          void submit(problems);
        }}
        noValidate
      >
        <TextField label={t('profile.currentPassword')} type="password" autoComplete="current-password" required value={current} errors={fields.currentPassword} onChange={(e) => setCurrent(e.target.value)} />
        <TextField label={t('confirm.newPassword')} hint={t('register.passwordHint')} type="password" autoComplete="new-password" required value={next} errors={fields.newPassword} onChange={(e) => setNext(e.target.value)} />
        <TextField label={t('register.passwordRepeat')} type="password" autoComplete="new-password" required value={repeat} errors={fields.passwordRepeat} onChange={(e) => setRepeat(e.target.value)} />
        <div className="button-row">
          <button type="submit" className="button" disabled={busy || !current || !next}>
            {t('profile.changePassword')}
          </button>
        </div>
      </form>
    </section>
  );
}

/** Staff: the second factor's own screen (issue 30 item 4). */
function SecondFactorLink() {
  const { t } = useTranslation();
  return (
    <section className="card" aria-labelledby="profile-mfa">
      <h2 id="profile-mfa">{t('mfa.title')}</h2>
      <p>{t('mfa.profileIntro')}</p>
      <Link to="/profile/second-factor">{t('mfa.profileLink')}</Link>
    </section>
  );
}

export function ProfilePage() {
  const { t } = useTranslation();
  const { user } = useSession();
  if (!user) return null;
  return (
    <Page title={t('profile.title')} width="reading">
      <DetailsForm user={user} />
      <EmailForm user={user} />
      <PasswordForm />
      {user.is_patient_account ? null : <SecondFactorLink />}
      <RecordReadersSection />
      {user.is_patient_account ? <MyConsentsSection /> : null}
      {user.is_patient_account ? <OwnDataSection /> : null}
    </Page>
  );
}
