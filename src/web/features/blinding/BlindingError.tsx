import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { Alert } from '../../ui/ui';

/** A refusal of the blinding routes in the reader's language (refusals.<code>, then errorCodes). */
export function BlindingError({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  return <Alert kind="error">{t(`refusals.${error.code}`, { defaultValue: t(`errorCodes.${error.code}`, { defaultValue: t('errorCodes.unknown') }) })}</Alert>;
}
