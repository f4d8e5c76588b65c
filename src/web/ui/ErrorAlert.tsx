import { useTranslation } from 'react-i18next';
import { errorKey } from '../api/error-key';
import type { ApiError } from '../api/client';
import { Alert } from './ui';

/** A failed request, said in the person's language by its code (spec §8 "coded errors"). */
export function ErrorAlert({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  return <Alert kind="error">{t(`errorCodes.${errorKey(error)}`, { defaultValue: t('errorCodes.unknown') })}</Alert>;
}
