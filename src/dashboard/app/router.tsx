import { createBrowserRouter, Navigate } from 'react-router';
import { SignInPage } from '../features/sign-in/sign-in-page.tsx';
import { PipelinesPage } from '../features/pipelines/pipelines-page.tsx';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../components/spinner.tsx';
import { FleetLanding } from '../features/fleet/landing.tsx';
import { BASE_PATH } from './base-path.ts';
import { Layout } from './layout.tsx';

function NotFound() {
  const { t } = useTranslation();
  return <p className="text-sm text-slate-600 dark:text-slate-300">{t('notFound')}</p>;
}

// Sign-in and pipelines ship in the first bundle; every other page loads when first opened.
// Under --base-path, every route and link is below it (basename); paths.ts stays unaware.
export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    {
      element: <Layout />,
      // The first page may be a lazy one: without this, React Router warns on every load
      // that it has nothing to show while that page's code arrives.
      hydrateFallbackElement: <Spinner />,
      children: [
        {
          index: true,
          // A server of several services lands on the fleet page (features/fleet/landing.tsx).
          lazy: async () => {
            const { OverviewPage } = await import('../features/overview/overview-page.tsx');
            return {
              Component: () => (
                <FleetLanding>
                  <OverviewPage />
                </FleetLanding>
              ),
            };
          },
        },
        {
          path: 'fleet',
          lazy: async () => ({
            Component: (await import('../features/fleet/fleet-page.tsx')).FleetPage,
          }),
        },
        { path: 'pipelines', element: <PipelinesPage /> },
        {
          path: 'pipelines/:pipelineId/trends',
          lazy: async () => ({
            Component: (await import('../features/fleet/trends-page.tsx')).TrendsPage,
          }),
        },
        {
          path: 'requests',
          lazy: async () => ({
            Component: (await import('../features/requests/requests-page.tsx')).RequestsPage,
          }),
        },
        {
          path: 'requests/:requestId',
          lazy: async () => ({
            Component: (await import('../features/request-detail/request-detail-page.tsx'))
              .RequestDetailPage,
          }),
        },
        { path: 'databases', element: <Navigate to="/databases/system" replace /> },
        {
          path: 'databases/:database',
          lazy: async () => ({
            Component: (await import('../features/databases/databases-page.tsx')).DatabasesPage,
          }),
        },
        {
          path: 'settings',
          lazy: async () => ({
            Component: (await import('../features/settings/settings-page.tsx')).SettingsPage,
          }),
        },
        {
          path: 'service-list',
          lazy: async () => ({
            Component: (await import('../features/services/services-page.tsx')).ServicesPage,
          }),
        },
        {
          path: 'audit',
          lazy: async () => ({
            Component: (await import('../features/audit/audit-page.tsx')).AuditPage,
          }),
        },
        { path: '*', element: <NotFound /> },
      ],
    },
  ],
  { basename: BASE_PATH || '/' },
);
