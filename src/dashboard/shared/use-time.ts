import { useTranslation } from 'react-i18next';
import { usePreference } from '../core/preferences.ts';
import { useCurrentService } from './services.ts';
import {
  formatInstant,
  formatServiceStamp,
  stampInstant,
  type TimeSettings,
} from '../i18n/time-format.ts';

/**
 * Timestamps as the user chose to read them (header: the service's zone, the browser's or
 * UTC; Settings: the clock), each with its zone named.
 */
export function useTimeFormat() {
  const { t, i18n } = useTranslation('common');
  const [choice] = usePreference('timeZone');
  const [clock] = usePreference('clock');
  const service = useCurrentService();
  const settings: TimeSettings = {
    language: i18n.resolvedLanguage ?? 'en',
    choice,
    clock,
    service,
    unknownZoneLabel: t('time.serviceClock'),
    estimated: (zone) => t('time.estimated', { zone }),
  };
  return {
    /** A stamp the service wrote on its own clock (BeginTime, EndTime, …). */
    serviceStamp: (stamp: string) => formatServiceStamp(stamp, settings),
    /** An ISO instant our server wrote (audit times, checks, "as of"). */
    instant: (iso: string) => formatInstant(iso, settings),
    /** The ISO form of a service stamp for `<time dateTime>`, when its zone is known. */
    stampIso: (stamp: string) => stampInstant(stamp, service)?.toISOString(),
  };
}
