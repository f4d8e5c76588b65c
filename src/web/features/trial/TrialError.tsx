import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { Alert } from '../../ui/ui';

/** A refusal in the person's language: the trial's own codes first, then the shared ones. */
export function TrialError({ error, focusOnShow = false }: { error: ApiError | null; focusOnShow?: boolean }) {
  const { t } = useTranslation();
  if (!error) return null;
  const shared = t(`errorCodes.${error.code}`, { defaultValue: t('errorCodes.unknown') });
  return (
    <Alert kind="error" focusOnShow={focusOnShow} focusKey={error}>
      {t(`trial.errors.${error.code}`, { defaultValue: shared })}
    </Alert>
  );
}

export function asApiError(caught: unknown): ApiError {
  return caught as ApiError;
}
