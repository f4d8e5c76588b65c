import { useTranslation } from 'react-i18next';
import { errorKey } from '../api/error-key';
import type { ApiError } from '../api/client';
import { Alert } from './ui';

/**
 * A failed request, said in the person's language by its code (spec §8 "coded errors").
 * `focusOnShow` is for the error summary of a form: each new failed submit moves the focus
 * to it. Load and polling errors leave it off, so a background refetch never steals focus.
 */
export function ErrorAlert({ error, focusOnShow = false }: { error: ApiError | null; focusOnShow?: boolean }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert kind="error" focusOnShow={focusOnShow} focusKey={error}>
      {t(`errorCodes.${errorKey(error)}`, { defaultValue: t('errorCodes.unknown') })}
    </Alert>
  );
}
