import type { BulkAction } from '../../../kit/index.ts';
import { formatCount } from '../../shared/strings.ts';

const verb = (action: BulkAction) => (action === 'retry' ? 'Retry' : 'Cancel');
const n = (count: number) => `${formatCount(count)} request${count === 1 ? '' : 's'}`;
const isoDay = (d: string) => `${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}`;
const scope = (s: {
  statuses?: readonly string[] | undefined;
  id?: string | undefined;
  date: string;
  q?: string | undefined;
}) =>
  `in ${(s.statuses ?? []).join(' or ')}${s.id ? ` of ${s.id}` : ''} on ${isoDay(s.date)}${s.q ? ` matching “${s.q}”` : ''}`;

export const strings = {
  title: 'Requests',
  date: 'Date',
  previousDay: 'Previous day',
  nextDay: 'Next day',
  today: 'Today',
  pipeline: 'Pipeline',
  allPipelines: 'All pipelines',
  status: 'Status',
  allStatuses: 'All statuses',
  noStatus: '(no status)',
  search: 'Search',
  searchHint: 'Request id, file or error',
  searchGo: 'Search',
  jump: 'Go to request',
  jumpHint: 'Request id',
  jumpGo: 'Go',
  jumpMissing: (id: string, day: string) => `There is no request ${id} on ${day}.`,
  pageSize: 'Rows per page',
  refresh: 'Auto-refresh',
  refreshOff: 'Off',
  refreshNow: 'Refresh',
  columns: {
    select: 'Select',
    id: 'Request',
    pipeline: 'Pipeline',
    status: 'Status',
    stage: 'Stage',
    begin: 'Begin',
    actions: 'Actions',
  },
  selectAll: 'Select all rows of this page',
  selectRow: (id: string) => `Select ${id}`,
  none: 'No requests on this day.',
  noneMatch: 'No request of this day matches these filters.',
  newRows: (n: number) => `${n} new request${n === 1 ? '' : 's'} — show`,
  retry: 'Retry',
  cancel: 'Cancel',
  bulkRetry: (n: number) => `Retry selected (${n})`,
  bulkCancel: (n: number) => `Cancel selected (${n})`,
  clearSelection: 'Clear selection',
  bulk: {
    open: (action: BulkAction, s: Parameters<typeof scope>[0], total: number | undefined) =>
      `${verb(action)} all ${total === undefined ? 'requests' : n(total)} ${scope(s)}…`,
    forbidden: (reason: string) => `Bulk actions: ${reason}`,
    title: (action: BulkAction, total: number | undefined) =>
      total === undefined ? `${verb(action)} by filter` : `${verb(action)} ${n(total)}?`,
    scope: (s: Parameters<typeof scope>[0]) =>
      `Every request ${scope(s)}, as the service selects them now.`,
    count: (action: BulkAction, total: number) =>
      total === 0
        ? 'No request matches: there is nothing to do.'
        : `The service would ${action} exactly ${n(total)}; the first of them:`,
    more: (count: number) => `and ${formatCount(count)} more`,
    reason: 'Reason (required, written to the audit log with each call)',
    reasonHint: 'Say why, for whoever reads the audit log later.',
    go: (action: BulkAction, total: number) => `${verb(action)} ${n(total)}`,
    keep: 'Keep as is',
    close: 'Close',
    progressLabel: 'Progress',
    progress: (done: number, total: number) => `${formatCount(done)} of ${formatCount(total)} done`,
    outcomes: (j: { succeeded: number; refused: number; failed: number; state: string }) =>
      `${formatCount(j.succeeded)} done, ${formatCount(j.refused)} refused, ${formatCount(j.failed)} failed${j.state === 'done' ? ' — finished.' : ' — running…'}`,
    show: 'Show',
    all: 'every request',
    outcome: {
      pending: 'waiting',
      started: 'under way',
      ok: '✓ done',
      refused: '✕ refused',
      failed: '✕ failed',
    },
    firstItems: (shown: number, total: number) =>
      `The first ${formatCount(shown)} of ${formatCount(total)}; narrow with “Show”.`,
  },
} as const;
