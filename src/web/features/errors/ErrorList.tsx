import { useTranslation } from 'react-i18next';
import { useErrors } from './errors';

/** The uncaught errors of spec §8, each with its own button to clear it. */
export function ErrorList() {
  const { t } = useTranslation();
  const { errors, dismiss } = useErrors();
  if (errors.length === 0) return null;
  return (
    <section className="error-list" aria-label={t('errors.listLabel')}>
      {errors.map((error) => (
        <div key={error.id} className="alert alert--error" role="alert">
          <span>{error.code ? t(`errorCodes.${error.code}`, { defaultValue: error.message }) : error.message}</span>
          <button type="button" className="button button--secondary button--small" onClick={() => dismiss(error.id)}>
            {t('errors.dismiss')}
          </button>
        </div>
      ))}
    </section>
  );
}
