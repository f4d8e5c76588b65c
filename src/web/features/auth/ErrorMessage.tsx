import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { Alert } from '../../ui/ui';

/** A request's error as a sentence in the person's language, by its stable code. */
export function ErrorMessage({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  return <Alert kind="error">{t(`errorCodes.${error.code}`, { defaultValue: t('errorCodes.unknown') })}</Alert>;
}
