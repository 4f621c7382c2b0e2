import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useRef, useState, type KeyboardEvent } from 'react';
import {
  Link,
  Navigate,
  NavLink,
  Outlet,
  useLocation,
  useNavigate,
  useSearchParams,
} from 'react-router';
import { FocusReason } from '../components/focus-reason.tsx';
import { Spinner } from '../components/spinner.tsx';
import { inService, paths } from '../paths.ts';
import { chooseService, useServices } from '../shared/services.ts';
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
import type { ServiceInfo } from './service-info.ts';
import { setCurrentService } from './current-service.ts';
import { ServiceSwitcher } from './service-switcher.tsx';
import { useVersion } from '../shared/queries.ts';
import { isAdministrator } from '../shared/audit.ts';
import { signOut, useAuth, useRoleHere } from './auth.ts';
import { useUnreachable } from './connection.ts';
import { dismiss, useNotices } from './notices.ts';
import { usePreference, type Theme, type ZoneChoice } from './preferences.ts';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { LANGUAGES, type Language } from '../i18n/catalogues.ts';

/** Built as the layout renders, so that every link carries the service being looked at. */
function navItems(
  t: TFunction<'common'>,
  administrator: boolean,
  fleet: { to: string; label: string; end: boolean; match: undefined }[] = [],
) {
  return [
    // Every service's today first, where there are several (issue 25).
    ...fleet,
    { to: paths.overview(), label: t('nav.overview'), end: true, match: undefined },
    { to: paths.pipelines(), label: t('nav.pipelines'), end: false, match: undefined },
    { to: paths.requests(), label: t('nav.requests'), end: false, match: undefined },
    {
      to: paths.database('system'),
      label: t('nav.databases'),
      end: false,
      match: '/databases',
    },
    { to: paths.settings(), label: t('nav.settings'), end: false, match: undefined },
    { to: paths.services(), label: t('nav.services'), end: false, match: undefined },
    // Only administrators may read the audit log, so only they see its link.
    ...(administrator
      ? [{ to: paths.audit(), label: t('nav.audit'), end: false, match: undefined }]
      : []),
  ];
}

const PICKER =
  'rounded border border-slate-600 bg-slate-800 px-1 py-0.5 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-teal-400';

/** A labelled select of the header; the label is read aloud always, shown from sm up. */
function HeaderPicker<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string;
  value: T;
  options: readonly { value: T; label: string; lang?: string }[];
  onChange: (value: T) => void;
  testId: string;
}) {
  return (
    <label className="flex items-center gap-1 text-xs text-slate-300">
      <span className="sr-only sm:not-sr-only">{label}</span>
      <select
        value={value}
        data-testid={testId}
        onChange={(event) => onChange(event.target.value as T)}
        className={PICKER}
      >
        {options.map((o) => (
          <option key={o.value} value={o.value} lang={o.lang}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

function ViewPickers() {
  const { t, i18n } = useTranslation();
  const [theme, setTheme] = usePreference('theme');
  const [zone, setZone] = usePreference('timeZone');
  const language = (LANGUAGES as readonly string[]).includes(i18n.resolvedLanguage ?? '')
    ? (i18n.resolvedLanguage as Language)
    : 'en';
  return (
    <>
      <HeaderPicker<Language>
        label={t('language.label')}
        value={language}
        testId="language-picker"
        // Each language named in itself, so that whoever cannot read the current one finds theirs.
        options={LANGUAGES.map((l) => ({ value: l, label: t(`language.${l}`), lang: l }))}
        onChange={(l) => void i18n.changeLanguage(l)}
      />
      <HeaderPicker<ZoneChoice>
        label={t('zone.label')}
        value={zone}
        testId="zone-picker"
        options={(['service', 'browser', 'utc'] as const).map((z) => ({
          value: z,
          label: t(`zone.${z}`),
        }))}
        onChange={setZone}
      />
      <HeaderPicker<Theme>
        label={t('theme.label')}
        value={theme}
        testId="theme-picker"
        options={(['system', 'light', 'dark'] as const).map((v) => ({
          value: v,
          label: t(`theme.${v}`),
        }))}
        onChange={setTheme}
      />
    </>
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

function Identity({ id, open }: { id: string; open: boolean }) {
  const { t } = useTranslation();
  const auth = useAuth();
  // The role on the service looked at (contract section 12), which decides what it may do.
  const here = useRoleHere();
  const version = useVersion();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  if (!auth) return null;
  const leave = async () => {
    const atProvider = await signOut(auth);
    queryClient.clear();
    // The provider's own sign-out page, which sends the browser back to our sign-in.
    if (atProvider) window.location.assign(atProvider);
    else await navigate(paths.signIn());
  };
  return (
    // On a phone this is a panel the header's menu button opens; from sm up, always shown.
    <div
      id={id}
      className={`${open ? 'flex' : 'hidden'} w-full flex-wrap items-center gap-x-4 gap-y-2 text-xs text-slate-300 sm:flex sm:w-auto sm:gap-y-1`}
    >
      <span data-testid="identity">
        {auth.kind === 'session' ? (
          <>
            <span className="font-semibold text-white">{auth.userName}</span> ·{' '}
            <span data-testid="role-here">
              {here?.several && here.service !== undefined
                ? t('roleOnService', { role: t(`roles.${here.role}`), service: here.service })
                : t(`roles.${here?.role ?? auth.role}`)}
            </span>
          </>
        ) : (
          <span className="font-semibold text-white">{t('apiKeyUser')}</span>
        )}
      </span>
      <span title={t('serverTitle')}>
        {auth.kind === 'session' ? auth.serverName : window.location.host}
      </span>
      <span title={t('versionTitle')} data-testid="service-version">
        {t('version', { version: version.data ?? '…' })}
      </span>
      <ViewPickers />
      <button
        type="button"
        onClick={() => void leave()}
        className="rounded border border-slate-600 px-2 py-0.5 text-slate-100 hover:bg-slate-700 focus-visible:outline-2 focus-visible:outline-teal-400"
      >
        {t('signOut')}
      </button>
    </div>
  );
}

/** The page's name for the tab's title, from its path (the pages are lazy: the shell names them). */
function pageName(t: TFunction<'common'>, pathname: string): string | undefined {
  const request = /^\/requests\/([^/]+)$/.exec(pathname);
  if (request?.[1]) return t('pageTitle.request', { id: decodeURIComponent(request[1]) });
  if (pathname.startsWith('/databases')) return t('pageTitle.databases');
  const trends = /^\/pipelines\/([^/]+)\/trends$/.exec(pathname);
  if (trends?.[1]) return t('pageTitle.trends', { pipeline: decodeURIComponent(trends[1]) });
  const names: Record<string, string> = {
    '/': t('nav.overview'),
    '/pipelines': t('nav.pipelines'),
    '/requests': t('nav.requests'),
    '/settings': t('nav.settings'),
    '/service-list': t('nav.services'),
    '/audit': t('nav.audit'),
    '/fleet': t('pageTitle.fleet'),
  };
  return names[pathname.replace(/\/+$/, '') || '/'];
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

/** The frame of every signed-in page: navigation, identity, banners. */
export function Layout() {
  const { t } = useTranslation();
  const { t: tf } = useTranslation('fleet');
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
  // The page of every service's today, where there is more than one (issue 25).
  const fleetNav =
    services.services.length >= 2
      ? [{ to: paths.fleet(), label: tf('nav'), end: false, match: undefined }]
      : [];
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
              {navItems(t, isAdministrator(auth), fleetNav).map((item) => (
                <NavLink
                  key={item.to}
                  to={item.to}
                  end={item.end}
                  className={({ isActive }) =>
                    `shrink-0 rounded px-2.5 py-1 text-sm focus-visible:outline-2 focus-visible:outline-teal-400 ${
                      isActive || (item.match && location.pathname.startsWith(item.match))
                        ? 'bg-slate-700 text-white'
                        : 'text-slate-300 hover:bg-slate-800 hover:text-white'
                    }`
                  }
                >
                  {item.label}
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
