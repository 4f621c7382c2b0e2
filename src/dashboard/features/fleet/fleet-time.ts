import { useTranslation } from 'react-i18next';
import { usePreference } from '../../core/preferences.ts';
import { formatInstant, serviceZoneLabel, type ServiceZone } from '../../i18n/time-format.ts';

/**
 * Instants and days of a service that need not be the one the dashboard looks at (the
 * fleet shows them all): on the clock the header chose, the service's being that service's
 * own, each with its zone named.
 */
export function useZonedFormat() {
  const { t, i18n } = useTranslation('common');
  const [choice] = usePreference('timeZone');
  const [clock] = usePreference('clock');
  const language = i18n.resolvedLanguage ?? 'en';
  const estimated = (label: string) => t('time.estimated', { zone: label });
  return {
    instant: (iso: string, zone: ServiceZone) =>
      formatInstant(iso, {
        language,
        choice,
        clock,
        service: zone,
        unknownZoneLabel: t('time.serviceClock'),
        estimated,
      }),
    /** The service's zone now, as every timestamp writes it (serviceZoneLabel). */
    zone: (zone: ServiceZone) => serviceZoneLabel(zone, new Date(), estimated),
    /** A yyyymmdd day as a date of the language (a calendar day: no zone moves it). */
    day: (ymd: string) =>
      new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(
        Date.UTC(Number(ymd.slice(0, 4)), Number(ymd.slice(4, 6)) - 1, Number(ymd.slice(6, 8))),
      ),
    /** A short day for chart axes and table rows: month and day. */
    shortDay: (ymd: string) =>
      new Intl.DateTimeFormat(language, {
        month: 'numeric',
        day: 'numeric',
        timeZone: 'UTC',
      }).format(
        Date.UTC(Number(ymd.slice(0, 4)), Number(ymd.slice(4, 6)) - 1, Number(ymd.slice(6, 8))),
      ),
  };
}

/** Milliseconds as seconds to show: three significant digits below 10 s, tenths above. */
export function secondsOf(ms: number): number {
  const seconds = ms / 1000;
  return seconds < 10 ? Number(seconds.toPrecision(3)) : Math.round(seconds * 10) / 10;
}
