import { Link } from 'react-router';
import type { ServiceInfo } from '../../app/mcapi.ts';
import { ServiceMark } from '../../app/service-switcher.tsx';
import { Badge } from '../../components/badge.tsx';
import { DataTable, type ColumnDef } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { inService, paths } from '../../paths.ts';
import { timeWithZone } from '../../shared/audit.ts';
import { useCurrentService, useServices } from '../../shared/services.ts';
import { strings } from './strings.ts';

const when = (iso: string) => (iso ? timeWithZone(iso) : '');

function columns(first: string | undefined, current: string): ColumnDef<ServiceInfo>[] {
  return [
    {
      id: 'service',
      header: strings.columns.service,
      cell: (s) => (
        <span className="flex flex-wrap items-center gap-2">
          <ServiceMark service={s} />
          {s.embedded ? (
            <span className="text-xs text-slate-500 dark:text-slate-400">({strings.embedded})</span>
          ) : null}
          {s.id === current ? (
            <span className="text-xs text-teal-700 dark:text-teal-400">· {strings.current}</span>
          ) : null}
        </span>
      ),
    },
    { id: 'id', header: strings.columns.id, cellClassName: 'font-mono text-xs', cell: (s) => s.id },
    {
      id: 'state',
      header: strings.columns.state,
      cellProps: (s) => ({ 'data-reachable': String(s.reachable) }),
      cell: (s) => (
        <span className="flex flex-wrap items-center gap-1">
          <Badge tone={s.reachable ? 'green' : 'red'} symbol={s.reachable ? '✓' : '✕'}>
            {s.reachable ? strings.reachable : strings.unreachable}
          </Badge>
          {s.since ? (
            <span className="text-xs text-slate-500 dark:text-slate-400">
              {strings.since(when(s.since))}
            </span>
          ) : null}
        </span>
      ),
    },
    { id: 'version', header: strings.columns.version, cell: (s) => s.version },
    {
      id: 'checkedAt',
      header: strings.columns.checkedAt,
      priority: 'low',
      cellClassName: 'whitespace-nowrap text-xs',
      cell: (s) => when(s.checkedAt),
    },
    {
      id: 'indexedAt',
      header: strings.columns.indexedAt,
      cellClassName: 'whitespace-nowrap text-xs',
      cellProps: (s) => ({ 'data-testid': `indexed-${s.id}` }),
      cell: (s) =>
        s.embedded ? strings.live : s.indexedAt ? strings.asOf(when(s.indexedAt)) : strings.notYet,
    },
    {
      id: 'message',
      header: strings.columns.message,
      priority: 'low',
      cellClassName: 'max-w-sm truncate text-xs',
      cellProps: (s) => ({ title: s.indexError || s.message }),
      cell: (s) => s.message || s.indexError,
    },
    {
      id: 'open',
      header: strings.columns.open,
      cell: (s) => (
        <Link
          to={inService(paths.overview(), s.id === first ? undefined : s.id)}
          aria-label={strings.open(s.name)}
          className="text-teal-700 hover:underline dark:text-teal-400"
        >
          {strings.columns.open} ›
        </Link>
      ),
    },
  ];
}

export function ServicesPage() {
  const { services, error } = useServices();
  const current = useCurrentService();
  if (error) return <ErrorView error={error} />;
  if (services.length === 0) return <Spinner />;
  return (
    <>
      <PageHeader title={strings.title} />
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">{strings.intro}</p>
      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900">
        <DataTable
          columns={columns(services[0]?.id, current.id)}
          rows={services}
          rowKey={(s) => s.id}
          rowProps={(s) => ({ 'data-service': s.id })}
          testId="services"
          empty={strings.empty}
        />
      </div>
    </>
  );
}
