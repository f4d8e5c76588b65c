import { useTranslation } from 'react-i18next';
import type { ApiError } from '../../api/client';
import { Alert } from '../../ui/ui';
import { referenceText } from '../../ui/ErrorAlert';

/** A submit's error as a sentence in the person's language, by its stable code; it takes the focus. */
export function ErrorMessage({ error }: { error: ApiError | null }) {
  const { t } = useTranslation();
  if (!error) return null;
  return <Alert kind="error" focusOnShow>{t(`errorCodes.${error.code}`, { defaultValue: t('errorCodes.unknown') }) + referenceText(t, error)}</Alert>;
}
