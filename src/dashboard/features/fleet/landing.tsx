import type { ReactNode } from 'react';
import { Navigate, useNavigationType, useSearchParams } from 'react-router';
import { paths } from '../../paths.ts';
import { useServices } from '../../shared/services.ts';

/**
 * The root of a server of several services lands on the fleet page: when the dashboard is
 * opened there (a load, a bookmark, back, or the sign-in's redirect) without a `service`
 * parameter. A click on "Overview" (a push) and any `?service=` keep the overview, so
 * every service's overview, the first's included, stays one link away.
 */
export function FleetLanding({ children }: { children: ReactNode }) {
  const [search] = useSearchParams();
  const how = useNavigationType();
  const { services, known } = useServices();
  if (known && services.length >= 2 && !search.has('service') && how !== 'PUSH')
    return <Navigate to={paths.fleet()} replace />;
  return children;
}
