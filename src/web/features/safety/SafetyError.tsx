import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { Alert } from '../../ui/ui';

/** A refused safety request, said by its code (the hint the database raised), else generally. */
export function SafetyError({ error, focusOnShow = false }: { error: ApiError; focusOnShow?: boolean }) {
  const { t } = useTranslation();
  return <Alert kind="error" focusOnShow={focusOnShow} focusKey={error}>{t(`safety.errors.${error.code}`, { defaultValue: t('safety.errors.unknown') })}</Alert>;
}
