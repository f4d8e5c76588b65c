/**
 * The router, generated from the route table in src/domain/routes.ts. Each route renders its
 * layout, checks its access rules whenever the person or the route changes, and loads its
 * screen on demand; a failed check sends the person to /login and back after sign-in.
 */
import { Suspense } from 'react';
import { createBrowserRouter, Navigate, useLocation, type RouteObject } from 'react-router';
import { canAccess, loginRedirect, ROUTES, type RouteSpec } from '../../domain/routes';
import { Layout } from '../layouts/Layout';
import { accountFlags } from '../session/profile';
import { useSession } from '../session/session';
import { Spinner } from '../ui/ui';
import { NotFoundPage, RouteErrorPage } from '../features/errors/ErrorPages';
import { SCREENS } from './screen-map';

function Guarded({ spec }: { spec: RouteSpec }) {
  const session = useSession();
  const location = useLocation();
  // A token without a profile yet: the profile is loading, decide once it is there.
  if (session.token && !session.user) return <Spinner />;
  if (!canAccess(spec, accountFlags(session.user))) {
    return <Navigate to={loginRedirect(location.pathname, location.search)} replace state={{ denied: Boolean(session.user) }} />;
  }
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
