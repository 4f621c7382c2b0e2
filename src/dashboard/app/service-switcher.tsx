import { useLocation, useNavigate } from 'react-router';
import type { ServiceInfo } from './service-info.ts';
import { inService } from '../paths.ts';
import { useTranslation } from 'react-i18next';

/** Colours a services file may name, as classes (the CSP allows no inline style). */
const STRIPS: Readonly<Record<string, string>> = {
  red: 'bg-red-500',
  orange: 'bg-orange-500',
  amber: 'bg-amber-400',
  yellow: 'bg-yellow-400',
  green: 'bg-emerald-500',
  teal: 'bg-teal-500',
  blue: 'bg-blue-500',
  purple: 'bg-violet-500',
  violet: 'bg-violet-500',
  pink: 'bg-pink-500',
  gray: 'bg-slate-400',
  grey: 'bg-slate-400',
};

/** A service's colour as a strip and its label as text: never the colour alone. */
export function ServiceMark({ service }: { service: ServiceInfo }) {
  const strip = STRIPS[service.color.toLowerCase()] ?? 'bg-slate-500';
  return (
    <span className="inline-flex items-center gap-1.5" data-testid="service-mark">
      <span aria-hidden="true" className={`inline-block h-4 w-1.5 rounded-sm ${strip}`} />
      <span className="font-semibold">{service.name}</span>
      {service.label ? (
        <span className="rounded bg-slate-100 px-1.5 py-0.5 text-[0.7rem] font-semibold tracking-wide text-slate-900 uppercase">
          {service.label}
        </span>
      ) : null}
    </span>
  );
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
      <ServiceMark service={current} />
      {services.length > 1 ? (
        <label className="flex items-center gap-1 text-xs text-slate-300">
          <span className="sr-only">{t('service.choose')}</span>
          <select
            value={current.id}
            onChange={(e) => go(e.target.value)}
            className="max-w-40 min-w-0 rounded border border-slate-600 bg-slate-800 px-1 py-0.5 text-xs text-slate-100 focus-visible:outline-2 focus-visible:outline-teal-400"
          >
            {services.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
                {s.label ? ` (${s.label})` : ''}
                {s.reachable ? '' : ` · ${t('service.unreachable')}`}
              </option>
            ))}
          </select>
        </label>
      ) : null}
    </div>
  );
}
