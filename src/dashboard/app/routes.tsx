import type { ComponentType, ReactElement } from 'react';
import { Navigate } from 'react-router';
import { FleetLanding } from '../features/fleet/landing.tsx';
import { PipelinesPage } from '../features/pipelines/pipelines-page.tsx';
import { paths } from '../paths.ts';

/**
 * Every page of the signed-in dashboard, once: its path, its page, its link in the
 * navigation and who may see that link. The router (router.tsx) and the layout's navigation
 * and tab titles (layout.tsx) are both read from this table, so that a page added here is
 * routed, linked and named at once. Listed in the navigation's order.
 */
export interface PageRoute {
  /** Below the layout; '' is the root (the overview). */
  readonly path: string;
  /** The page: in the first bundle, or loaded when first opened. */
  readonly page:
    { readonly element: ReactElement } | { readonly lazy: () => Promise<ComponentType> };
  /** Its link in the navigation; none for a page reached from another (a request's detail). */
  readonly nav?: NavLink;
  /** Who sees its link: everyone unless it says. */
  readonly shownTo?: 'administrator' | 'several services';
  /** The tab's title, where it is not the link's words (pages with parameters: layout.tsx). */
  readonly title?: 'pageTitle.fleet';
}

type NavName =
  'overview' | 'pipelines' | 'requests' | 'databases' | 'settings' | 'services' | 'audit';
type NavLabel = `nav.${NavName}` | 'fleet:nav';

export interface NavLink {
  /** A key of the common catalogue, or of the fleet's ('fleet:nav'). */
  readonly label: NavLabel;
  /** Built as the layout renders, so that every link carries the service being looked at. */
  readonly to: () => string;
  /** Lit only on its own path (the overview, at the root of every other). */
  readonly end?: boolean;
  /** Lit on every path below this one too (the databases' link opens one of them). */
  readonly match?: string;
}

export const PAGE_ROUTES: readonly PageRoute[] = [
  {
    // Every service's today first, where there are several (issue 25).
    path: 'fleet',
    page: {
      lazy: () => import('../features/fleet/fleet-page.tsx').then((m) => m.FleetPage),
    },
    nav: { label: 'fleet:nav', to: () => paths.fleet() },
    shownTo: 'several services',
    title: 'pageTitle.fleet',
  },
  {
    path: '',
    page: {
      // A server of several services lands on the fleet page (features/fleet/landing.tsx).
      lazy: () =>
        import('../features/overview/overview-page.tsx').then(
          ({ OverviewPage }) =>
            function LandingOverview() {
              return (
                <FleetLanding>
                  <OverviewPage />
                </FleetLanding>
              );
            },
        ),
    },
    nav: { label: 'nav.overview', to: () => paths.overview(), end: true },
  },
  {
    path: 'pipelines',
    page: { element: <PipelinesPage /> },
    nav: { label: 'nav.pipelines', to: () => paths.pipelines() },
  },
  {
    path: 'pipelines/:pipelineId/trends',
    page: {
      lazy: () => import('../features/fleet/trends-page.tsx').then((m) => m.TrendsPage),
    },
  },
  {
    path: 'requests',
    page: {
      lazy: () => import('../features/requests/requests-page.tsx').then((m) => m.RequestsPage),
    },
    nav: { label: 'nav.requests', to: () => paths.requests() },
  },
  {
    path: 'requests/:requestId',
    page: {
      lazy: () =>
        import('../features/request-detail/request-detail-page.tsx').then(
          (m) => m.RequestDetailPage,
        ),
    },
  },
  {
    path: 'databases',
    page: { element: <Navigate to="/databases/system" replace /> },
    nav: { label: 'nav.databases', to: () => paths.database('system'), match: '/databases' },
  },
  {
    path: 'databases/:database',
    page: {
      lazy: () => import('../features/databases/databases-page.tsx').then((m) => m.DatabasesPage),
    },
  },
  {
    path: 'settings',
    page: {
      lazy: () => import('../features/settings/settings-page.tsx').then((m) => m.SettingsPage),
    },
    nav: { label: 'nav.settings', to: () => paths.settings() },
  },
  {
    path: 'service-list',
    page: {
      lazy: () => import('../features/services/services-page.tsx').then((m) => m.ServicesPage),
    },
    nav: { label: 'nav.services', to: () => paths.services() },
  },
  {
    path: 'audit',
    page: {
      lazy: () => import('../features/audit/audit-page.tsx').then((m) => m.AuditPage),
    },
    // Only administrators may read the audit log, so only they see its link.
    nav: { label: 'nav.audit', to: () => paths.audit() },
    shownTo: 'administrator',
  },
];
