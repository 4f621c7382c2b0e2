import type { TFunction } from 'i18next';
import { Link } from 'react-router';
import type { AuditEntry } from '../../../kit/index.ts';
import type { ColumnDef } from '../../components/data-table.tsx';
import { Instant } from '../../components/time.tsx';
import { inService, paths } from '../../paths.ts';
import { viaKey } from './view.ts';

const MONO = 'font-mono text-xs';

/** How someone called, in the dashboard's words (a value it does not know, as written). */
function via(t: TFunction<'audit'>, value: string): string {
  const known = viaKey(value);
  if (!known) return value;
  return known.key === 'via.token' ? t(known.key, { name: known.name }) : t(known.key);
}

/**
 * The link to a request of an entry: on the entry's own service, whichever the header shows
 * (the first service of the list is the one without a parameter).
 */
function requestLink(entry: AuditEntry, firstService: string | undefined): string {
  const link = paths.request(entry.requestId);
  if (!entry.service) return link;
  return inService(link, entry.service === firstService ? undefined : entry.service);
}

/**
 * The audit table's columns. `serviceName` names an entry's service as a person reads it
 * (shared/services.ts's serviceNameOf): the id stays in the row's data and the link's URL.
 */
export const auditColumns = (
  t: TFunction<'audit'>,
  firstService: string | undefined,
  serviceName: (id: string) => string,
): ColumnDef<AuditEntry>[] => [
  {
    id: 'time',
    header: t('columns.time'),
    cellClassName: 'whitespace-nowrap tabular-nums',
    cellProps: (e) => ({ title: e.time }),
    cell: (e) => <Instant iso={e.time} />,
  },
  {
    id: 'user',
    header: t('columns.user'),
    cell: (e) => (
      <span>
        {e.userName}
        {e.via ? (
          <span
            className="ml-1 text-xs whitespace-nowrap text-slate-500 dark:text-slate-400"
            data-via={e.via}
          >
            {t('viaShown', { via: via(t, e.via) })}
          </span>
        ) : null}
      </span>
    ),
  },
  {
    id: 'address',
    header: t('columns.address'),
    priority: 'low',
    cellClassName: MONO,
    cell: (e) => e.address,
  },
  {
    // The service's name, as a person reads it; its id stays in data-service (and the
    // request link's URL).
    id: 'service',
    header: t('columns.service'),
    cellProps: (e) => ({ 'data-service': e.service || undefined }),
    cell: (e) => (e.service ? serviceName(e.service) : ''),
  },
  {
    id: 'operation',
    header: t('columns.operation'),
    cellClassName: MONO,
    cellProps: (e) => ({ 'data-operation': e.operation }),
    cell: (e) => e.operation,
  },
  {
    id: 'parameters',
    header: t('columns.parameters'),
    priority: 'low',
    cellClassName: `${MONO} max-w-xs truncate`,
    cellProps: (e) => ({ title: e.parameters }),
    cell: (e) => e.parameters,
  },
  {
    id: 'outcome',
    header: t('columns.outcome'),
    cellClassName: 'whitespace-nowrap',
    cell: (e) => (
      <span
        className={
          e.httpStatus !== null && e.httpStatus >= 400
            ? 'text-red-700 dark:text-red-400'
            : 'text-emerald-700 dark:text-emerald-400'
        }
      >
        {e.httpStatus ?? ''} {e.status}
      </span>
    ),
  },
  {
    id: 'message',
    header: t('columns.message'),
    cellClassName: 'max-w-sm truncate',
    cellProps: (e) => ({ title: e.message }),
    cell: (e) => e.message,
  },
  {
    id: 'requestId',
    header: t('columns.requestId'),
    cellClassName: MONO,
    cell: (e) =>
      e.requestId ? (
        <Link
          to={requestLink(e, firstService)}
          className="text-teal-700 hover:underline dark:text-teal-400"
        >
          {e.requestId}
        </Link>
      ) : null,
  },
];
