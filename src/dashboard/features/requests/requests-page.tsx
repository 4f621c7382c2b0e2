import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useForbidden } from '../../app/auth.ts';
import { REFRESH_CHOICES, usePreference, type RefreshSeconds } from '../../app/preferences.ts';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Pager } from '../../components/pager.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, PageHeader, Select, TextInput } from '../../components/fields.tsx';
import { PageSizeField } from '../../components/page-size-field.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { isoToYmd, shiftDay, ymdToIso } from '../../paths.ts';
import { ActionDialog } from '../../shared/action-dialog.tsx';
import { usePipelines } from '../../shared/queries.ts';
import { useRequestList } from './queries.ts';
import { useStableRows } from './stable-rows.ts';
import { requestColumns } from './columns.tsx';
import { readRequestsView, searchWith, statusChoices, toggledStatus } from './view.ts';
import { JumpToRequest, SearchBox, StatusFilter } from './filters.tsx';
import { BulkBar } from './bulk-bar.tsx';
import { useServiceToday } from '../../shared/services.ts';

const ROW_HEIGHT = 41;
const SCROLLER =
  'max-h-[calc(100vh-16rem)] min-h-48 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900';

export function RequestsPage() {
  const { t } = useTranslation('requests');
  const forbidden = useForbidden();
  const retryRefusal = forbidden('requestretry');
  const cancelRefusal = forbidden('requestcancel');
  const [search, setSearch] = useSearchParams();
  const [defaultSize, setDefaultSize] = usePreference('pageSize');
  const [refreshSeconds, setRefreshSeconds] = usePreference('refreshSeconds');
  const serviceToday = useServiceToday();
  const view = readRequestsView(search, defaultSize, serviceToday.today);
  // Without a date in the URL the page waits for the service's today, not the browser's.
  const dateKnown = search.get('date') !== null || serviceToday.ready;
  const pipelines = usePipelines();
  const list = useRequestList(
    {
      date: view.date,
      id: view.pipeline,
      index: view.index,
      size: view.size,
      status: view.status,
      q: view.q,
    },
    refreshSeconds,
    dateKnown,
  );
  const viewKey = [view.date, view.pipeline, view.status.join(','), view.q, view.index, view.size]
    .map((part) => part ?? '')
    .join('|');
  const fetchedForView = !list.isPlaceholderData && list.data !== undefined;
  const stable = useStableRows(viewKey, list.data?.requests, fetchedForView);
  // A filtered view shows what matches now: a pinned row that left the filter (retried,
  // cancelled) would stay on screen with a status the view no longer asks for.
  const filtered = view.status.length > 0 || view.q !== undefined;
  const rows = filtered && fetchedForView ? (list.data?.requests ?? []) : stable.rows;
  const newCount = filtered ? 0 : stable.newCount;
  const choices = statusChoices(rows, view.status);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [action, setAction] = useState<{ kind: 'retry' | 'cancel'; ids: string[] }>();

  const update = (changes: Record<string, string | number | undefined>) => {
    setSelected(new Set());
    setSearch(searchWith(search, changes));
  };

  const info = list.data?.info;
  const allSelected = rows.length > 0 && rows.every((r) => selected.has(r.requestId));
  const selectedIds = rows.filter((r) => selected.has(r.requestId)).map((r) => r.requestId);
  const columns = requestColumns({
    selected,
    allSelected,
    onSelectAll: (checked) =>
      setSelected(checked ? new Set(rows.map((r) => r.requestId)) : new Set()),
    onSelect: (requestId, checked) => {
      const next = new Set(selected);
      if (checked) next.add(requestId);
      else next.delete(requestId);
      setSelected(next);
    },
    onAction: (kind, ids) => setAction({ kind, ids }),
    t,
  });

  return (
    <>
      <PageHeader title={t('title')}>
        <div className="flex items-end gap-1">
          <Button
            aria-label={t('previousDay')}
            title={t('previousDay')}
            onClick={() => update({ date: shiftDay(view.date, -1) })}
          >
            ‹
          </Button>
          <Field label={t('date')}>
            <TextInput
              type="date"
              value={ymdToIso(view.date)}
              onChange={(e) => e.target.value && update({ date: isoToYmd(e.target.value) })}
            />
          </Field>
          <Button
            aria-label={t('nextDay')}
            title={t('nextDay')}
            onClick={() => update({ date: shiftDay(view.date, 1) })}
          >
            ›
          </Button>
          <Button onClick={() => update({ date: undefined })}>{t('today')}</Button>
        </div>
        <Field label={t('pipeline')}>
          <Select
            // A long pipeline name would widen the header past a phone's screen.
            className="max-w-72"
            value={view.pipeline ?? ''}
            onChange={(e) => update({ pipeline: e.target.value })}
          >
            <option value="">{t('allPipelines')}</option>
            {(pipelines.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {t('pipelineOption', { id: p.id, name: p.name })}
              </option>
            ))}
          </Select>
        </Field>
        <StatusFilter
          choices={choices}
          chosen={view.status}
          onToggle={(status, on) =>
            update({ status: toggledStatus(view.status, status, on, choices) })
          }
          onClear={() => update({ status: undefined })}
        />
        <SearchBox value={view.q} onSearch={(q) => update({ q })} />
        <PageSizeField
          label={t('pageSize')}
          value={view.size}
          onChange={(size) => {
            setDefaultSize(size);
            update({ size: String(size) });
          }}
        />
        <Field label={t('refresh')}>
          <Select
            value={refreshSeconds}
            onChange={(e) => setRefreshSeconds(Number(e.target.value) as RefreshSeconds)}
          >
            {REFRESH_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? t('refreshOff') : t('refreshEvery', { seconds: n })}
              </option>
            ))}
          </Select>
        </Field>
        <Button onClick={() => void list.refetch()} disabled={list.isFetching}>
          {t('refreshNow')}
        </Button>
      </PageHeader>
      <div className="mb-3 flex flex-wrap items-start justify-between gap-3">
        <JumpToRequest date={view.date} />
        <BulkBar view={view} total={list.data?.info.total} />
      </div>

      {list.error ? <ErrorView error={list.error} onRetry={() => void list.refetch()} /> : null}

      <div className="mb-2 flex min-h-8 flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          {newCount > 0 ? (
            <Button size="sm" variant="primary" onClick={stable.showNew}>
              {t('newRows', { count: newCount })}
            </Button>
          ) : null}
          {selectedIds.length > 0 ? (
            <>
              <Button
                size="sm"
                disabledReason={retryRefusal}
                onClick={() => setAction({ kind: 'retry', ids: selectedIds })}
              >
                {t('bulkRetry', { count: selectedIds.length })}
              </Button>
              <Button
                size="sm"
                disabledReason={cancelRefusal}
                onClick={() => setAction({ kind: 'cancel', ids: selectedIds })}
              >
                {t('bulkCancel', { count: selectedIds.length })}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
                {t('clearSelection')}
              </Button>
            </>
          ) : null}
        </div>
        {info ? (
          <Pager
            info={info}
            testId="range"
            pageSize={view.size}
            onPage={(index) => update({ index })}
          />
        ) : null}
      </div>

      {list.isPending ? (
        <Spinner />
      ) : (
        <DataTable
          columns={columns}
          rows={rows}
          rowKey={(row) => row.requestId}
          rowProps={(row) => ({ 'data-request': row.requestId })}
          testId="requests-table"
          empty={
            fetchedForView
              ? view.status.length > 0 || view.q
                ? t('noneMatch')
                : t('none')
              : undefined
          }
          virtual={{
            rowHeight: ROW_HEIGHT,
            overscan: 12,
            scrollerClassName: SCROLLER,
          }}
        />
      )}
      {action ? (
        <ActionDialog
          action={action.kind}
          requestIds={action.ids}
          onClose={(done) => {
            setAction(undefined);
            if (done) setSelected(new Set());
          }}
        />
      ) : null}
    </>
  );
}
