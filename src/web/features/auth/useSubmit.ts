import { useMutation } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import type { FieldErrors } from '../../../domain/accounts';
import { asApiError } from '../../api/query';

/**
 * Form submission state shared by the account screens, on the query layer's `useMutation`:
 * busy while the request runs, the server's field errors by field (or the form's own checks,
 * which spare the round trip), and a general error for everything else.
 */
export function useSubmit<T>(action: () => Promise<T>) {
  const [clientFields, setClientFields] = useState<FieldErrors | null>(null);
  const mutation = useMutation({ mutationFn: action });
  const { mutateAsync, reset } = mutation;

  const submit = useCallback(
    async (clientErrors: FieldErrors = {}) => {
      if (Object.keys(clientErrors).length > 0) {
        reset();
        setClientFields(clientErrors);
        return;
      }
      setClientFields(null);
      // The outcome is read from the mutation's state; nothing is thrown past the form.
      await mutateAsync().catch(() => undefined);
    },
    [mutateAsync, reset],
  );

  const error = mutation.error ? asApiError(mutation.error) : null;
  const fields = clientFields ?? error?.fields ?? {};
  return { busy: mutation.isPending, error, fields, result: mutation.data ?? null, submit, setFields: setClientFields };
}
