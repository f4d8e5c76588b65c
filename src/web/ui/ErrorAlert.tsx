import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { errorKey } from '../api/error-key';
import { ApiError } from '../api/client';
import { refusalKeys } from '../../domain/refusals';
import { Alert } from './ui';

/**
 * A failed request in the person's language, by its code (spec §8 "coded errors"; the codes of
 * src/domain/refusals.ts). Never the server's text: that is English and meant for API clients.
 */
export function errorText(t: TFunction, error: unknown): string {
  if (!(error instanceof ApiError)) return t('errorCodes.unknown');
  return t(refusalKeys(errorKey(error)), { defaultValue: t('errorCodes.unknown') }) + referenceText(t, error);
}

/**
 * Issue 28: a failure on the server's side names its request (`requestId` of a 5xx answer), for
 * the person to quote to the clinic: " Reference …", or "" for other errors. The id is isolated
 * (U+2068…U+2069) so its hyphens keep their order in Arabic.
 */
export function referenceText(t: TFunction, error: ApiError): string {
  const id = error.status >= 500 && typeof error.body.requestId === 'string' ? error.body.requestId : undefined;
  return id ? ` ${t('ops.reference', { id: `\u2068${id}\u2069` })}` : '';
}

/**
 * A failed request as an alert. `focusOnShow` is for the error summary of a form: each new
 * failed submit moves the focus to it. Load and polling errors leave it off, so a background
 * refetch never steals focus.
 */
export function ErrorAlert({ error, focusOnShow = false }: { error: ApiError | null; focusOnShow?: boolean }) {
  const { t } = useTranslation();
  if (!error) return null;
  return (
    <Alert kind="error" focusOnShow={focusOnShow} focusKey={error}>
      {errorText(t, error)}
    </Alert>
  );
}
