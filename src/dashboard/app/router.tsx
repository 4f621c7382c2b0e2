import { createBrowserRouter, type RouteObject } from 'react-router';
import { SignInPage } from '../features/sign-in/sign-in-page.tsx';
import { useTranslation } from 'react-i18next';
import { Spinner } from '../components/spinner.tsx';
import { BASE_PATH } from '../core/base-path.ts';
import { Layout } from './layout.tsx';
import { PAGE_ROUTES, type PageRoute } from './routes.tsx';

function NotFound() {
  const { t } = useTranslation();
  return <p className="text-sm text-slate-600 dark:text-slate-300">{t('notFound')}</p>;
}

/** A page of the table as React Router takes it. */
function routeOf({ path, page }: PageRoute): RouteObject {
  const where = path === '' ? { index: true as const } : { path };
  if ('element' in page) return { ...where, element: page.element };
  const load = page.lazy;
  return { ...where, lazy: async () => ({ Component: await load() }) };
}

// Sign-in and pipelines ship in the first bundle; every other page loads when first opened
// (routes.tsx). Under --base-path, every route and link is below it (basename); paths.ts
// stays unaware.
export const router = createBrowserRouter(
  [
    { path: '/sign-in', element: <SignInPage /> },
    {
      element: <Layout />,
      // The first page may be a lazy one: without this, React Router warns on every load
      // that it has nothing to show while that page's code arrives.
      hydrateFallbackElement: <Spinner />,
      children: [...PAGE_ROUTES.map(routeOf), { path: '*', element: <NotFound /> }],
    },
  ],
  { basename: BASE_PATH || '/' },
);
