import { createBrowserRouter, Navigate } from 'react-router';
import { SignInPage } from '../features/sign-in/sign-in-page.tsx';
import { PipelinesPage } from '../features/pipelines/pipelines-page.tsx';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../components/spinner.tsx';
import { Layout } from './layout.tsx';

function NotFound() {
  const { t } = useTranslation();
  return <p className="text-sm text-slate-600 dark:text-slate-300">{t('notFound')}</p>;
}

// Sign-in and pipelines ship in the first bundle; every other page loads when first opened.
export const router = createBrowserRouter([
  { path: '/sign-in', element: <SignInPage /> },
  {
    element: <Layout />,
    // The first page may be a lazy one: without this, React Router warns on every load
    // that it has nothing to show while that page's code arrives.
    hydrateFallbackElement: <Spinner />,
    children: [
      {
        index: true,
        lazy: async () => ({
          Component: (await import('../features/overview/overview-page.tsx')).OverviewPage,
        }),
      },
      { path: 'pipelines', element: <PipelinesPage /> },
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
]);
