import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { AUDIT_CSV_FIELDS, type AuditEntry } from '../../../kit/index.ts';
import { useAuth } from '../../core/auth.ts';
import { ScrollX } from '../../components/scroll-x.tsx';
import { Button } from '../../components/button.tsx';
import { DataTable, type ColumnDef } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { DayInput, Field, PageHeader, TextInput, UrlSelect } from '../../components/fields.tsx';
import { PageSizeField } from '../../components/page-size-field.tsx';
import { Pager } from '../../components/pager.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { Instant } from '../../components/time.tsx';
import { inService, paths } from '../../paths.ts';
import { isAdministrator, useAudit } from '../../shared/audit.ts';
import { downloadCsv } from '../../shared/csv.ts';
import { useServices } from '../../shared/services.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { freshParams, searchWith, type ViewChanges } from '../../shared/url-state.ts';
import { useAuditDownload } from './export.ts';
import { readAuditView, SERVICE_FILTER, viaKey } from './view.ts';

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

const columns = (
  t: TFunction<'audit'>,
  firstService: string | undefined,
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
  { id: 'service', header: t('columns.service'), cellClassName: MONO, cell: (e) => e.service },
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

export function AuditPage() {
  const { t } = useTranslation('audit');
  const auth = useAuth();
  const [search, changeSearch] = useSearchChanges();
  const view = readAuditView(search);
  const admin = isAdministrator(auth);
  const audit = useAudit(view, admin);
  const download = useAuditDownload(view);
  const { services } = useServices();
  if (!admin)
    return <p className="text-sm text-slate-600 dark:text-slate-300">{t('onlyAdministrators')}</p>;

  const update = (changes: ViewChanges) => changeSearch((now) => searchWith(now, changes));
  const entries = audit.data?.entries ?? [];
  const onFilter = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const value = (name: string) => {
      const v = data.get(name);
      return typeof v === 'string' ? v.trim() : undefined;
    };
    update({ user: value('user'), operation: value('operation') });
  };

  return (
    <>
      <PageHeader title={t('title')}>
        <Field label={t('from')}>
          <DayInput clearable day={view.from} onDay={(from) => update({ from })} />
        </Field>
        <Field label={t('to')}>
          <DayInput clearable day={view.to} onDay={(to) => update({ to })} />
        </Field>
        <Field label={t('service')}>
          <UrlSelect
            value={view.service ?? ''}
            data-testid="audit-service-filter"
            onPick={(service) => update({ [SERVICE_FILTER]: service })}
          >
            <option value="">{t('anyService')}</option>
            {services.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name === s.id ? s.id : t('serviceOption', { name: s.name, id: s.id })}
              </option>
            ))}
            {view.service && !services.some((s) => s.id === view.service) ? (
              <option value={view.service}>{view.service}</option>
            ) : null}
          </UrlSelect>
        </Field>
        <form
          className="flex items-end gap-2"
          key={`${view.user ?? ''}|${view.operation ?? ''}`}
          onSubmit={(e) => {
            e.preventDefault();
            onFilter(e.currentTarget);
          }}
        >
          <Field label={t('user')}>
            <TextInput name="user" defaultValue={view.user ?? ''} className="w-32" />
          </Field>
          <Field label={t('operation')}>
            <TextInput name="operation" defaultValue={view.operation ?? ''} className="w-32" />
          </Field>
          <Button type="submit">{t('apply')}</Button>
        </form>
        <PageSizeField
          label={t('pageSize')}
          value={view.size}
          onChange={(size) => update({ size: String(size) })}
        />
        <Button onClick={() => changeSearch(freshParams)}>{t('clear')}</Button>
      </PageHeader>
      {services.length > 1 ? (
        <p className="mb-3 max-w-3xl text-xs text-slate-600 dark:text-slate-300">{t('scope')}</p>
      ) : null}
      {audit.error ? <ErrorView error={audit.error} onRetry={() => void audit.refetch()} /> : null}
      {!audit.data ? (
        audit.error ? null : (
          <Spinner />
        )
      ) : (
        <div className="flex flex-col gap-3">
          <div className="flex flex-wrap items-center justify-between gap-2">
            <Pager
              info={audit.data.info}
              onPage={(index) => update({ index })}
              testId="audit-range"
              label={t('pagerLabel')}
            />
            <div className="flex flex-wrap items-center gap-2">
              <Button
                title={t('exportNote')}
                disabled={entries.length === 0}
                onClick={() =>
                  downloadCsv(
                    `audit-${view.index + 1}-${view.index + entries.length}`,
                    AUDIT_CSV_FIELDS,
                    entries.map((e) =>
                      AUDIT_CSV_FIELDS.map((f) => (e[f] === null ? null : String(e[f]))),
                    ),
                  )
                }
              >
                {t('exportCsv')}
              </Button>
              <Button
                title={t('downloadNote', { count: audit.data.info.total })}
                aria-describedby="audit-download-note"
                disabled={audit.data.info.total === 0 || download.isPending}
                onClick={() => download.mutate()}
                data-testid="audit-download"
              >
                {download.isPending ? t('downloading') : t('downloadCsv')}
              </Button>
              <span id="audit-download-note" className="sr-only">
                {t('downloadNote', { count: audit.data.info.total })}
              </span>
            </div>
          </div>
          {download.error ? (
            <ErrorView error={download.error} onRetry={() => download.mutate()} />
          ) : null}
          <ScrollX
            label={t('title')}
            className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
          >
            <DataTable
              columns={columns(t, services[0]?.id)}
              rows={entries}
              rowKey={(e, i) => `${e.time}|${i}`}
              rowProps={(e) => ({ 'data-operation': e.operation, 'data-user': e.userName })}
              testId="audit"
              empty={t('empty')}
            />
          </ScrollX>
        </div>
      )}
    </>
  );
}
