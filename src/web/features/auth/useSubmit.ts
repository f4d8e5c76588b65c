import { useCallback, useState } from 'react';
import type { FieldErrors } from '../../../domain/accounts';
import { ApiError } from '../../api/client';

/**
 * Form submission state shared by the account screens: busy while the request runs, the
 * server's field errors by field, and a general error for everything else.
 */
export function useSubmit<T>(action: () => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [fields, setFields] = useState<FieldErrors>({});
  const [result, setResult] = useState<T | null>(null);

  const submit = useCallback(
    async (clientErrors: FieldErrors = {}) => {
      if (Object.keys(clientErrors).length > 0) {
        setFields(clientErrors);
        setError(null);
        return;
      }
      setBusy(true);
      setError(null);
      setFields({});
      try {
        setResult(await action());
      } catch (caught) {
        const apiError = caught instanceof ApiError ? caught : new ApiError(0, 'unknown', String(caught));
        setError(apiError);
        setFields(apiError.fields);
      } finally {
        setBusy(false);
      }
    },
    [action],
  );

  return { busy, error, fields, result, submit, setFields };
}
