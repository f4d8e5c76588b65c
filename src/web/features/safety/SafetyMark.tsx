import { useTranslation } from 'react-i18next';
import './safety.css';

/** Marks a case with open risk signals on the case lists. */
export function SafetyMark({ count }: { count: number | null | undefined }) {
  const { t } = useTranslation();
  if (!count) return null;
  return (
    <span className="badge badge--danger safety-mark" title={t('safety.openSignals', { count })}>
      <span aria-hidden="true">{t('safety.mark')}</span>
      <span className="visually-hidden">{t('safety.openSignals', { count })}</span>
    </span>
  );
}
