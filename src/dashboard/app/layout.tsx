import { Suspense, useRef, useState, type KeyboardEvent } from 'react';
import { Link, Navigate, NavLink, Outlet, useLocation, useSearchParams } from 'react-router';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { FocusReason } from '../components/focus-reason.tsx';
import { Spinner } from '../components/spinner.tsx';
import { useAuth } from '../core/auth.ts';
import { useUnreachable } from '../core/connection.ts';
import { setCurrentService } from '../core/current-service.ts';
import { dismiss, useNotices } from '../core/notices.ts';
import type { ServiceInfo } from '../../kit/index.ts';
import { inService, paths } from '../paths.ts';
import { isAdministrator } from '../shared/audit.ts';
import {
  bandClasses,
  documentTitle,
  isProduction,
  needsMarking,
  serviceTitle,
  useDocumentTitle,
} from '../shared/environment.ts';
import { useWatchUpstreamFailures } from '../shared/service-down.ts';
import { ServiceDownBanner } from '../shared/service-down-banner.tsx';
import { chooseService, useServices } from '../shared/services.ts';
import { Identity } from './identity.tsx';
import { PAGE_ROUTES, type PageRoute } from './routes.tsx';
import { ServiceSwitcher } from './service-switcher.tsx';

/** The pages whose link this person sees, in the table's order. */
function navRoutes(administrator: boolean, severalServices: boolean) {
  const shown = (route: PageRoute) =>
    route.shownTo === undefined ||
    (route.shownTo === 'administrator' && administrator) ||
    (route.shownTo === 'several services' && severalServices);
  return PAGE_ROUTES.filter(shown).flatMap(({ nav }) => (nav ? [{ ...nav, to: nav.to() }] : []));
}

/** The page's name for the tab's title, from its path (the pages are lazy: the shell names them). */
function pageName(t: TFunction<['common', 'fleet']>, pathname: string): string | undefined {
  const request = /^\/requests\/([^/]+)$/.exec(pathname);
  if (request?.[1]) return t('pageTitle.request', { id: decodeURIComponent(request[1]) });
  if (pathname.startsWith('/databases')) return t('pageTitle.databases');
  const trends = /^\/pipelines\/([^/]+)\/trends$/.exec(pathname);
  if (trends?.[1]) return t('pageTitle.trends', { pipeline: decodeURIComponent(trends[1]) });
  const path = pathname.replace(/\/+$/, '') || '/';
  const route = PAGE_ROUTES.find((r) => `/${r.path}` === path);
  const key = route?.title ?? route?.nav?.label;
  return key === undefined ? undefined : t(key);
}

/**
 * Across the top of every page of a service that needs telling apart: its label and name in
 * its colour, production in a strong one with a plain warning, so that nobody acts on it
 * thinking it is staging.
 */
function EnvironmentBand({ service }: { service: ServiceInfo }) {
  const { t } = useTranslation();
  const production = isProduction(service);
  return (
    <div
      data-testid="environment-band"
      data-service={service.id}
      data-production={production}
      className={`${bandClasses(service)} px-4 ${production ? 'py-1.5' : 'py-1'} text-sm`}
    >
      <p className="mx-auto flex max-w-screen-2xl flex-wrap items-baseline gap-x-3">
        <span>
          <span className="sr-only">{t('environment.service')} </span>
          {service.label ? (
            <span className="mr-2 font-bold tracking-wider uppercase">{service.label}</span>
          ) : null}
          <span className="font-semibold">{service.name}</span>
        </span>
        {production ? <span className="text-xs">{t('environment.production')}</span> : null}
      </p>
    </div>
  );
}

function Notices() {
  const { t } = useTranslation();
  const notices = useNotices();
  return (
    <div aria-live="polite" className="fixed right-4 bottom-4 z-50 flex w-80 flex-col gap-2">
      {notices.map((n) => (
        <div
          key={n.id}
          role={n.kind === 'error' ? 'alert' : 'status'}
          className={`flex items-start justify-between gap-3 rounded-md px-3 py-2 text-sm shadow-lg ring-1 ${
            n.kind === 'error'
              ? 'bg-red-50 text-red-900 ring-red-300 dark:bg-red-950 dark:text-red-100 dark:ring-red-800'
              : 'bg-white text-slate-800 ring-slate-200 dark:bg-slate-800 dark:text-slate-100 dark:ring-slate-600'
          }`}
        >
          <span>
            {n.code !== undefined ? <span className="mr-1 font-mono">[{n.code}]</span> : null}
            {n.text}
          </span>
          <button
            type="button"
            aria-label={t('dismiss')}
            onClick={() => dismiss(n.id)}
            className="text-xs opacity-70 hover:opacity-100"
          >
            ✕
          </button>
        </div>
      ))}
    </div>
  );
}

/** The frame of every signed-in page: navigation, identity, banners. */
export function Layout() {
  const { t } = useTranslation(['common', 'fleet']);
  const [menuOpen, setMenuOpen] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const auth = useAuth();
  const location = useLocation();
  const unreachable = useUnreachable();
  const [search] = useSearchParams();
  const services = useServices();
  const wanted = search.get('service');
  const chosen = chooseService(services.services, wanted);
  // The tab names the page and the service, so that a row of tabs tells production apart.
  useDocumentTitle(
    documentTitle([
      pageName(t, location.pathname),
      chosen && services.known && needsMarking(chosen, services.services.length)
        ? serviceTitle(chosen)
        : undefined,
      t('productName'),
    ]),
  );
  useWatchUpstreamFailures();
  // Escape closes the phone's menu and puts the focus back on its button.
  const closeMenu = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !menuOpen) return;
    setMenuOpen(false);
    menuButton.current?.focus();
  };
  if (!auth) {
    return <Navigate to={paths.signIn(`${location.pathname}${location.search}`)} replace />;
  }
  // Which service every page below shows: set before any of them renders.
  if (auth.kind === 'session' && services.isLoading) return <Spinner />;
  setCurrentService({
    id: services.known ? chosen?.id : undefined,
    param: wanted ?? undefined,
    name: services.known ? chosen?.name : undefined,
  });
  return (
    <div className="min-h-screen bg-slate-50 text-slate-900 dark:bg-slate-950 dark:text-slate-100">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2 focus:text-slate-900"
      >
        {t('skipToContent')}
      </a>
      {chosen && services.known && needsMarking(chosen, services.services.length) ? (
        <EnvironmentBand service={chosen} />
      ) : null}
      <header
        className="bg-slate-900 text-white dark:border-b dark:border-slate-800"
        onKeyDown={closeMenu}
      >
        <div className="mx-auto flex max-w-screen-2xl flex-wrap items-center justify-between gap-x-3 gap-y-2 px-4 py-2">
          <div className="flex w-full min-w-0 flex-wrap items-center gap-x-4 gap-y-2 sm:w-auto">
            <span className="flex items-center gap-2 font-semibold">
              <img src="/favicon.svg" alt="" className="size-6" />
              {/* A phone keeps its one header line for the service and the menu. */}
              <span className="sr-only sm:not-sr-only">{t('productName')}</span>
            </span>
            <button
              ref={menuButton}
              type="button"
              aria-expanded={menuOpen}
              aria-controls="header-menu"
              onClick={() => setMenuOpen((open) => !open)}
              className="ml-auto rounded border border-slate-600 px-2 py-1 text-xs text-slate-100 hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-teal-400 sm:hidden"
            >
              {t('menu')}
            </button>
            {chosen ? <ServiceSwitcher services={services.services} current={chosen} /> : null}
            <nav
              aria-label={t('nav.label')}
              // Wraps onto a second line on a phone: every page stays in sight, none behind a
              // sideways scroll.
              className="flex w-full flex-wrap gap-1 sm:w-auto"
            >
              {navRoutes(isAdministrator(auth), services.services.length >= 2).map((item) => (
                <NavLink
                  key={item.to}
                  to={item.to}
                  end={item.end ?? false}
                  className={({ isActive }) =>
                    `shrink-0 rounded px-2.5 py-1 text-sm focus-visible:outline-2 focus-visible:outline-teal-400 ${
                      isActive || (item.match && location.pathname.startsWith(item.match))
                        ? 'bg-slate-700 text-white'
                        : 'text-slate-300 hover:bg-slate-800 hover:text-white'
                    }`
                  }
                >
                  {t(item.label)}
                </NavLink>
              ))}
            </nav>
          </div>
          <Identity id="header-menu" open={menuOpen} />
        </div>
      </header>
      {unreachable ? (
        <div
          role="alert"
          className="bg-amber-100 px-4 py-2 text-center text-sm text-amber-900 dark:bg-amber-900 dark:text-amber-100"
        >
          {t('unreachable')}
        </div>
      ) : null}
      {chosen ? <ServiceDownBanner /> : null}
      <main id="main" className="mx-auto max-w-screen-2xl px-4 py-5">
        {chosen ? (
          <Suspense fallback={<Spinner />}>
            <Outlet />
          </Suspense>
        ) : (
          <p role="alert" className="text-sm">
            {t('service.unknown', { id: wanted ?? '' })}{' '}
            <Link to={inService(paths.services(), undefined)} className="text-teal-700 underline">
              {t('service.toServices')}
            </Link>
          </p>
        )}
      </main>
      <Notices />
      <FocusReason />
    </div>
  );
}
