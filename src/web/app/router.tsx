/**
 * The router, generated from the route table in src/domain/routes.ts. Each route renders its
 * layout, checks its access rules whenever the person or the route changes, and loads its
 * screen on demand; a failed check sends the person to /login and back after sign-in.
 */
import { useQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { createBrowserRouter, Navigate, useLocation, type RouteObject } from 'react-router';
import { canAccess, loginRedirect, ROUTES, type RouteSpec } from '../../domain/routes';
import { Layout } from '../layouts/Layout';
import { accountFlags } from '../session/profile';
import { useSession } from '../session/session';
import { Spinner } from '../ui/ui';
import { NotFoundPage, RouteErrorPage } from '../features/errors/ErrorPages';
import { SCREENS } from './screen-map';
import { MFA_STATE_KEY, loadMfaState } from '../features/signing/api';
import type { Profile } from '../session/profile';

/** Staff accounts (every role but patient): the ones a second factor can be required of. */
function isStaff(user: Profile | null): boolean {
  return Boolean(
    user &&
      (user.is_coordinator_account || user.is_interviewer_account || user.is_therapist_account || user.is_supervisor_account || user.is_supporter_account || user.is_counselor_account),
  );
}

/**
 * Issue 30 item 4: staff whose role requires a second factor (MFA_REQUIRED_ROLES) set it up
 * before they use anything else; every other screen sends them to the set-up first.
 */
function useEnrolmentDue(spec: RouteSpec): boolean {
  const session = useSession();
  const applies = isStaff(session.user) && spec.id !== 'secondFactor' && spec.id !== 'login';
  const state = useQuery({ queryKey: MFA_STATE_KEY, queryFn: loadMfaState, enabled: applies, staleTime: 60_000 });
  return applies && state.data !== undefined && state.data.required && !state.data.enrolled;
}

function Guarded({ spec }: { spec: RouteSpec }) {
  const session = useSession();
  const location = useLocation();
  const enrolmentDue = useEnrolmentDue(spec);
  // A token without a profile yet: the profile is loading, decide once it is there.
  if (session.token && !session.user) return <Spinner />;
  if (!canAccess(spec, accountFlags(session.user))) {
    return <Navigate to={loginRedirect(location.pathname, location.search)} replace state={{ denied: Boolean(session.user) }} />;
  }
  if (enrolmentDue) return <Navigate to="/profile/second-factor" replace />;
  const Screen = SCREENS[spec.id];
  return (
    <Suspense fallback={spec.spinner ? <Spinner /> : null}>
      <Screen />
    </Suspense>
  );
}

function routeObject(spec: RouteSpec): RouteObject {
  return {
    path: spec.path,
    element: (
      <Layout layout={spec.layout}>
        <Guarded spec={spec} />
      </Layout>
    ),
    errorElement: (
      <Layout layout={spec.layout}>
        <RouteErrorPage />
      </Layout>
    ),
  };
}

export function createRouter() {
  return createBrowserRouter([
    ...ROUTES.map(routeObject),
    {
      path: '*',
      element: (
        <Layout layout="blue">
          <NotFoundPage />
        </Layout>
      ),
    },
  ]);
}
