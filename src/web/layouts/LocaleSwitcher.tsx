import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { changeLocale, supportedLocales } from '../i18n/i18n';
import { useErrors } from '../features/errors/errors';
import { api } from '../api/client';
import { rememberLocaleChoice, useSession } from '../session/session';

/** Language names in their own language, so everyone finds theirs. */
const NATIVE_NAMES: Record<string, string> = { ar: 'العربية', de: 'Deutsch', en: 'English' };

export function LocaleSwitcher() {
  const { t, i18n } = useTranslation();
  const id = useId();
  const errors = useErrors();
  const session = useSession();

  const choose = async (locale: string) => {
    try {
      const chosen = await changeLocale(locale);
      // Chosen before signing in: the sign-in stores it in the profile (session.signIn).
      if (!session.user) rememberLocaleChoice(chosen);
      // Mails follow the person's locale, so keep the profile in step with the screen.
      if (session.user && session.user.locale !== locale) {
        session.setUser(await api('PATCH', '/api/auth/users/me', { body: { locale } }));
      }
    } catch (error) {
      errors.report(error);
    }
  };

  return (
    <div className="locale-switcher">
      <label htmlFor={id} className="visually-hidden">
        {t('layout.language')}
      </label>
      <select id={id} value={i18n.language} onChange={(e) => void choose(e.target.value)}>
        {supportedLocales().map((locale) => (
          <option key={locale} value={locale} lang={locale}>
            {NATIVE_NAMES[locale]}
          </option>
        ))}
      </select>
    </div>
  );
}
