import { useTranslation } from 'react-i18next';
import { AUDIT_CSV_FIELDS } from '../../../kit/index.ts';
import { useAuth } from '../../core/auth.ts';
import { ScrollX } from '../../components/scroll-x.tsx';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { DayInput, Field, PageHeader, TextInput, UrlSelect } from '../../components/fields.tsx';
import { PageSizeField } from '../../components/page-size-field.tsx';
import { Pager } from '../../components/pager.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { isAdministrator, useAudit } from '../../shared/audit.ts';
import { downloadCsv } from '../../shared/csv.ts';
import { serviceNameOf, useServices } from '../../shared/services.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { freshParams, searchWith, type ViewChanges } from '../../shared/url-state.ts';
import { useAuditDownload } from './export.ts';
import { auditColumns } from './columns.tsx';
import { readAuditView, SERVICE_FILTER } from './view.ts';

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
                {s.name || s.id}
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
              columns={auditColumns(t, services[0]?.id, (id) => serviceNameOf(services, id))}
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
