import { useLocation, useNavigate } from 'react-router';
import type { ServiceInfo } from '../../kit/index.ts';
import { inService } from '../paths.ts';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { serviceTitle } from '../shared/environment.ts';
import { useFleet } from '../shared/fleet.ts';
import { ServiceMark } from '../shared/service-mark.tsx';

/**
 * One service as the picker lists it, whole: "Tokyo prod (production) · unreachable". A select
 * cannot wrap its options, so the picker is as wide as its longest option, never cut.
 */
export function optionText(
  t: TFunction<'common'>,
  service: ServiceInfo,
  failedToday: number | undefined,
): string {
  return [
    serviceTitle(service),
    // Today's failures in the service's own words for failure, from the fleet's exact
    // counts (issue 25, item 3): undefined (not known yet, or no session) leaves them out.
    failedToday !== undefined && failedToday > 0
      ? t('failedCount', { count: failedToday })
      : undefined,
    service.reachable ? undefined : t('service.unreachable'),
  ]
    .filter((part) => part !== undefined)
    .join(' · ');
}

/**
 * The header's service switcher: which service every page shows, always visible. Choosing
 * another keeps the page (a request's detail goes to the requests list, since its id is
 * the old service's).
 */
export function ServiceSwitcher({
  services,
  current,
}: {
  services: readonly ServiceInfo[];
  current: ServiceInfo;
}) {
  const { t } = useTranslation();
  // Today's failed requests of each service, when known (see optionText); one query shared
  // with the fleet page, answered from the server's index (no upstream call).
  const fleet = useFleet();
  const navigate = useNavigate();
  const location = useLocation();
  const first = services[0];
  const go = (id: string) => {
    const section = location.pathname.startsWith('/requests/') ? '/requests' : location.pathname;
    void navigate(inService(section, id === first?.id ? undefined : id));
  };
  return (
    <div
      className="flex max-w-full min-w-0 flex-wrap items-center gap-2 rounded border border-slate-600 px-2 py-1 text-sm"
      data-testid="service-switcher"
      data-service={current.id}
    >
      {/* On a phone the band above and the picker name it: its mark would say it a third time. */}
      <span className={services.length > 1 ? 'hidden sm:inline-flex' : 'inline-flex'}>
        <ServiceMark service={current} />
      </span>
      {services.length > 1 ? (
        <label className="flex items-center gap-1 text-xs text-slate-300">
          <span className="sr-only">{t('service.choose')}</span>
          <select
            value={current.id}
            onChange={(e) => go(e.target.value)}
            className="max-w-full min-w-0 rounded border border-slate-600 bg-slate-800 px-1 py-0.5 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-teal-400"
          >
            {services.map((s) => (
              <option key={s.id} value={s.id}>
                {optionText(t, s, fleet.failedOf(s.id))}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </div>
  );
}
