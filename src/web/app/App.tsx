/**
 * The application: providers for errors, session and confirmations around the router, and
 * the maintenance screen whenever the server reports maintenance (spec §1).
 */
import { QueryClientProvider } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { RouterProvider } from 'react-router';
import { onMaintenance } from '../api/client';
import { queryClient } from '../api/query';
import { ErrorsProvider } from '../features/errors/errors';
import { ErrorList } from '../features/errors/ErrorList';
import { MaintenanceScreen } from '../features/errors/MaintenanceScreen';
import { SessionProvider } from '../session/session';
import { ConfirmProvider } from '../ui/confirm';
import { SigningProvider } from '../features/signing/SigningDialog';
import { createRouter } from './router';

export function App({ maintenance: initialMaintenance }: { maintenance: boolean }) {
  const [maintenance, setMaintenance] = useState(initialMaintenance);
  useEffect(() => onMaintenance(() => setMaintenance(true)), []);
  const router = useMemo(() => createRouter(), []);
  if (maintenance) return <MaintenanceScreen />;
  return (
    <QueryClientProvider client={queryClient}>
      <ErrorsProvider>
        <SessionProvider>
          <ConfirmProvider>
            {/* Issue 30: every signed act's refusal "signature needed" opens the signing dialog. */}
            <SigningProvider>
              <RouterProvider router={router} />
              <ErrorList />
            </SigningProvider>
          </ConfirmProvider>
        </SessionProvider>
      </ErrorsProvider>
    </QueryClientProvider>
  );
}
