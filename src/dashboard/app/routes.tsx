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

/** A page loaded when first opened: its module, and the name it exports the page by. */
function lazyPage<M extends Record<K, ComponentType>, K extends string>(
  load: () => Promise<M>,
  name: K,
): PageRoute['page'] {
  return { lazy: () => load().then((module) => module[name]) };
}

export const PAGE_ROUTES: readonly PageRoute[] = [
  {
    // Every service's today first, where there are several (issue 25).
    path: 'fleet',
    page: lazyPage(() => import('../features/fleet/fleet-page.tsx'), 'FleetPage'),
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
    page: lazyPage(() => import('../features/fleet/trends-page.tsx'), 'TrendsPage'),
  },
  {
    path: 'requests',
    page: lazyPage(() => import('../features/requests/requests-page.tsx'), 'RequestsPage'),
    nav: { label: 'nav.requests', to: () => paths.requests() },
  },
  {
    path: 'requests/:requestId',
    page: lazyPage(
      () => import('../features/request-detail/request-detail-page.tsx'),
      'RequestDetailPage',
    ),
  },
  {
    path: 'databases',
    page: { element: <Navigate to="/databases/system" replace /> },
    nav: { label: 'nav.databases', to: () => paths.database('system'), match: '/databases' },
  },
  {
    path: 'databases/:database',
    page: lazyPage(() => import('../features/databases/databases-page.tsx'), 'DatabasesPage'),
  },
  {
    path: 'settings',
    page: lazyPage(() => import('../features/settings/settings-page.tsx'), 'SettingsPage'),
    nav: { label: 'nav.settings', to: () => paths.settings() },
  },
  {
    path: 'service-list',
    page: lazyPage(() => import('../features/services/services-page.tsx'), 'ServicesPage'),
    nav: { label: 'nav.services', to: () => paths.services() },
  },
  {
    path: 'audit',
    page: lazyPage(() => import('../features/audit/audit-page.tsx'), 'AuditPage'),
    // Only administrators may read the audit log, so only they see its link.
    nav: { label: 'nav.audit', to: () => paths.audit() },
    shownTo: 'administrator',
  },
];
