import {
  CONTRACT_STATUSES,
  VENDOR_DEFAULT_STATUSES,
  type ServiceInfo,
  type StatusSemantics,
} from '../../kit/index.ts';
import { useCurrentService } from './services.ts';
import { statusClass, type StatusClass } from '../core/status-semantics.ts';

/** A service's status words, the defaults of its kind when the server did not say. */
export const semanticsOf = (service: ServiceInfo): StatusSemantics =>
  service.statuses ?? (service.embedded ? CONTRACT_STATUSES : VENDOR_DEFAULT_STATUSES);

/** The status words of the service the dashboard is looking at. */
export function useStatusSemantics(): StatusSemantics {
  return semanticsOf(useCurrentService());
}

/** What one word means on the service looked at. */
export function useStatusClass(word: string): StatusClass {
  return statusClass(useStatusSemantics(), word);
}
