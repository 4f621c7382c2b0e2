import { DAY_PATTERN } from '../../../kit/index.ts';
import type { AuditParams } from '../../shared/audit.ts';
import { indexFrom, pageSizeFrom } from '../../shared/url-state.ts';

const day = (value: string | null) => (value && DAY_PATTERN.test(value) ? value : undefined);

/** What the audit page shows, all of it from the URL. */
export function readAuditView(search: URLSearchParams): AuditParams {
  return {
    from: day(search.get('from')),
    to: day(search.get('to')),
    user: search.get('user') || undefined,
    service: search.get('service') || undefined,
    operation: search.get('operation') || undefined,
    index: indexFrom(search.get('index')),
    size: pageSizeFrom(search.get('size'), 100),
  };
}

/** The columns of the CSV export, in the order of the entries' fields. */
export const CSV_FIELDS = [
  'time',
  'userName',
  'via',
  'address',
  'service',
  'operation',
  'parameters',
  'httpStatus',
  'status',
  'message',
  'requestId',
] as const;
