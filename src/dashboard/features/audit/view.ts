import { DAY_PATTERN } from '../../../kit/index.ts';
import type { AuditParams } from '../../shared/audit.ts';
import { indexFrom, pageSizeFrom } from '../../shared/url-state.ts';

const day = (value: string | null) => (value && DAY_PATTERN.test(value) ? value : undefined);

/**
 * The URL parameter of the audit's service filter. Not `service`: that one chooses the
 * service every page shows (core/current-service.ts), and filtering this list must never
 * switch the header to another service.
 */
export const SERVICE_FILTER = 'auditService';

/** How the audit names the way someone called: its words for `via`, else undefined. */
export function viaKey(
  via: string,
):
  | { key: 'via.session' | 'via.key' | 'via.cookie' | 'via.none' }
  | { key: 'via.token'; name: string }
  | undefined {
  if (via === 'session' || via === 'key' || via === 'cookie' || via === 'none')
    return { key: `via.${via}` };
  const token = /^token (.+)$/.exec(via);
  return token?.[1] ? { key: 'via.token', name: token[1] } : undefined;
}

/** What the audit page shows, all of it from the URL. */
export function readAuditView(search: URLSearchParams): AuditParams {
  return {
    from: day(search.get('from')),
    to: day(search.get('to')),
    user: search.get('user') || undefined,
    service: search.get(SERVICE_FILTER) || undefined,
    operation: search.get('operation') || undefined,
    index: indexFrom(search.get('index')),
    size: pageSizeFrom(search.get('size'), 100),
  };
}
