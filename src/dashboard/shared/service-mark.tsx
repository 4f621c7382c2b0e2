import type { ServiceInfo } from '../../kit/index.ts';
import { isProduction, stripClass } from './environment.ts';

/** A service's colour as a strip and its label as text: never the colour alone. */
export function ServiceMark({
  service,
  wrap = false,
}: {
  service: ServiceInfo;
  /**
   * On a phone, lets the label go under the name when there is no room beside it: in a
   * table's column, which would otherwise be as wide as name and label side by side.
   */
  wrap?: boolean;
}) {
  const strip = stripClass(service);
  return (
    <span
      className={`inline-flex items-center gap-1.5 ${wrap ? 'flex-wrap sm:flex-nowrap' : ''}`}
      data-testid="service-mark"
    >
      <span aria-hidden="true" className={`inline-block h-4 w-1.5 rounded-sm ${strip}`} />
      <span className="font-semibold">{service.name}</span>
      {service.label ? (
        <span
          className={`rounded px-1.5 py-0.5 text-[0.7rem] font-semibold tracking-wide uppercase ${
            isProduction(service) ? 'bg-red-700 text-white' : 'bg-slate-100 text-slate-900'
          }`}
        >
          {service.label}
        </span>
      ) : null}
    </span>
  );
}
