import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useForbidden } from '../../core/auth.ts';
import { REFRESH_CHOICES, usePreference, type RefreshSeconds } from '../../core/preferences.ts';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { Pager } from '../../components/pager.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, Options, Select, UrlSelect } from '../../components/fields.tsx';
import { PageSizeField } from '../../components/page-size-field.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { ymdToIso } from '../../paths.ts';
import { ActionDialog } from '../../components/action-dialog.tsx';
import { usePipelines } from '../../shared/queries.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { searchWith, type ViewChanges } from '../../shared/url-state.ts';
import { rangePageInfo, useRequestList, useRequestRange } from './queries.ts';
import { DayControls, RangeSummary, RangeTable, useRangeProblemText } from './day-range.tsx';
import { useAuth } from '../../core/auth.ts';
import { useStableRows } from './stable-rows.ts';
import { requestColumns } from './columns.tsx';
import {
  isMultiDay,
  readRequestsView,
  serviceWordsOf,
  statusChoices,
  statusesFrom,
  toggledStatus,
} from './view.ts';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';
import { useCurrentService } from '../../shared/services.ts';
import { JumpToRequest, SearchBox, StatusFilter } from './filters.tsx';
import { BulkBar } from './bulk-bar.tsx';
import { focusCandidates, rowFocusTarget } from './focus-after-action.ts';
import { useServiceToday } from '../../shared/services.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { AsOf } from '../../shared/service-down-banner.tsx';
import { RequestActionButtons } from '../../components/request-action-buttons.tsx';

const ROW_HEIGHT = 41;
const SCROLLER =
  'max-h-[calc(100vh-16rem)] min-h-48 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900';

export function RequestsPage() {
  const { t } = useTranslation('requests');
  const forbidden = useForbidden();
  const down = useServiceDown();
  const retryRefusal = forbidden('requestretry') ?? down?.reason;
  const cancelRefusal = forbidden('requestcancel') ?? down?.reason;
  const [search, changeSearch] = useSearchChanges();
  const [defaultSize, setDefaultSize] = usePreference('pageSize');
  const [refreshSeconds, setRefreshSeconds] = usePreference('refreshSeconds');
  const serviceToday = useServiceToday();
  const view = readRequestsView(search, defaultSize, serviceToday.today);
  // Without a date in the URL the page waits for the service's today, not the browser's.
  const dateKnown = search.get('date') !== null || view.range !== undefined || serviceToday.ready;
  // Several days are listed by our server's range (exact counts, each request's day); one
  // day, a range's of one included, by the service's own requestlist as always.
  const multiDay = isMultiDay(view);
  const auth = useAuth();
  const problemText = useRangeProblemText();
  const [filtersOpen, setFiltersOpen] = useState(false);
  const pipelines = usePipelines();
  const range = useRequestRange(
    {
      from: view.range?.from ?? view.date,
      to: view.range?.to ?? view.date,
      pipeline: view.pipeline,
      status: view.status,
      q: view.q,
      index: view.index,
      size: view.size,
    },
    refreshSeconds,
    multiDay,
  );
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
    dateKnown && !multiDay && view.rangeProblem === undefined,
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
  const semantics = useStatusSemantics();
  const serviceId = useCurrentService().id;
  // Every word this service used on a page seen here: a filter that hides its rows keeps it
  // in the list of choices (ticking Error must not take Abort or Running off it).
  // Adjusted while rendering (React's pattern for state derived from props): it settles at
  // once, since a second pass finds no word it has not seen.
  const [seen, setSeen] = useState<{ service: string; words: readonly string[] }>({
    service: serviceId,
    words: [],
  });
  const known = seen.service === serviceId ? seen.words : [];
  const fresh = [...new Set(rows.map((r) => r.status))].filter((w) => w && !known.includes(w));
  if (seen.service !== serviceId || fresh.length > 0)
    setSeen({ service: serviceId, words: [...known, ...fresh] });
  const choices = statusChoices(
    multiDay ? (range.data?.statuses ?? []) : rows,
    view.status,
    serviceWordsOf(semantics),
    known,
  );
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [action, setAction] = useState<{
    kind: 'retry' | 'cancel';
    ids: string[];
    /** Rows to give the focus to if the button that opened the dialog is gone by its close. */
    focusOrder: string[];
  }>();
  const openAction = (kind: 'retry' | 'cancel', ids: string[]) =>
    setAction({
      kind,
      ids,
      focusOrder: focusCandidates(
        rows.map((r) => r.requestId),
        ids,
      ),
    });
  // The last place for the focus after an action, when no row of the list is left.
  const heading = useRef<HTMLHeadingElement>(null);

  // Changes, or what to change given the URL as last changed (a status ticked must build
  // on the one ticked just before, even before the page shows it).
  const update = (changes: ViewChanges | ((now: URLSearchParams) => ViewChanges)) => {
    setSelected(new Set());
    changeSearch((now) => searchWith(now, typeof changes === 'function' ? changes(now) : changes));
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
    onAction: openAction,
    t,
  });

  // What the filters are set to, said on the phone's closed disclosure; a day is never
  // broken at its hyphens.
  const filterSummary: ReactNode[] = [
    view.range ? (
      <Trans
        t={t}
        i18nKey="range.summary"
        values={{ from: ymdToIso(view.range.from), to: ymdToIso(view.range.to) }}
        components={{ day: <span className="whitespace-nowrap" /> }}
      />
    ) : (
      <span className="whitespace-nowrap">{ymdToIso(view.date)}</span>
    ),
    view.pipeline,
    view.status.join(', ') || undefined,
    view.q === undefined ? undefined : `“${view.q}”`,
  ].filter((part) => part !== undefined);
  // Escape closes the phone's filters and puts the focus back on their button.
  const closeFilters = (event: KeyboardEvent) => {
    if (event.key !== 'Escape' || !filtersOpen) return;
    setFiltersOpen(false);
    document.getElementById('request-filters-toggle')?.focus();
  };
  const shownPanel = filtersOpen ? 'flex' : 'hidden';

  return (
    <>
      {/* On a phone the filters fold into a disclosure whose button says what they are set
          to, so that the first row is on the first screen; from sm up they are always shown. */}
      <div
        className="mb-3 flex flex-wrap items-end justify-between gap-x-3 gap-y-2 sm:mb-4"
        onKeyDown={closeFilters}
      >
        <div className="flex w-full items-center justify-between gap-2 sm:w-auto">
          <h1
            ref={heading}
            tabIndex={-1}
            className="text-xl font-semibold text-slate-900 dark:text-slate-50"
          >
            {t('title')}
          </h1>
          <button
            id="request-filters-toggle"
            type="button"
            aria-expanded={filtersOpen}
            aria-controls="request-filters request-jump"
            data-testid="filters-toggle"
            onClick={() => setFiltersOpen((open) => !open)}
            className="flex min-w-0 items-center gap-1.5 rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-left text-sm focus-visible:outline-2 focus-visible:outline-teal-600 sm:hidden dark:border-slate-600 dark:bg-slate-800"
          >
            <span className="font-medium">{t('filters.toggle')}</span>
            <span className="flex min-w-0 flex-wrap gap-x-1 text-xs text-slate-600 dark:text-slate-300">
              {filterSummary.map((part, i) => (
                <span key={i} className="wrap-anywhere">
                  {i > 0 ? '· ' : null}
                  {part}
                </span>
              ))}
            </span>
            <span aria-hidden="true">{filtersOpen ? '▲' : '▼'}</span>
          </button>
        </div>
        <div
          id="request-filters"
          data-testid="request-filters"
          className={`${shownPanel} w-full flex-wrap items-end gap-2 sm:flex sm:w-auto`}
        >
          <DayControls view={view} onChange={update} />
          <Field label={t('pipeline')}>
            <UrlSelect
              // A long pipeline name would widen the header past a phone's screen.
              className="max-w-72"
              value={view.pipeline ?? ''}
              onPick={(pipeline) => update({ pipeline })}
            >
              <option value="">{t('allPipelines')}</option>
              {(pipelines.data ?? []).map((p) => (
                <option key={p.id} value={p.id}>
                  {t('pipelineOption', { id: p.id, name: p.name })}
                </option>
              ))}
            </UrlSelect>
          </Field>
          <StatusFilter
            choices={choices}
            failed={semantics.failed}
            chosen={view.status}
            onToggle={(status, on) =>
              update((now) => ({
                status: toggledStatus(statusesFrom(now.get('status')), status, on, choices),
              }))
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
              <Options
                values={REFRESH_CHOICES}
                label={(n) => (n === 0 ? t('refreshOff') : t('refreshEvery', { seconds: n }))}
              />
            </Select>
          </Field>
          <Button
            onClick={() => void (multiDay ? range.refetch() : list.refetch())}
            disabled={multiDay ? range.isFetching : list.isFetching}
          >
            {t('refreshNow')}
          </Button>
        </div>
      </div>
      <div className="mb-3 flex flex-wrap items-start justify-between gap-3">
        <div id="request-jump" className={`${shownPanel} sm:flex`}>
          <JumpToRequest date={view.date} />
        </div>
        {/* A bulk action takes one day's requests, as the service selects them. */}
        {multiDay ? null : <BulkBar view={view} total={list.data?.info.total} />}
      </div>

      {view.rangeProblem ? (
        <p
          role="alert"
          data-testid="range-problem"
          className="text-sm text-red-800 dark:text-red-300"
        >
          {problemText(view.rangeProblem)}
        </p>
      ) : multiDay ? (
        auth?.kind !== 'session' ? (
          <p role="status" data-testid="range-needs-session" className="text-sm">
            {t('range.needsSession')}
          </p>
        ) : (
          <>
            {range.error ? (
              <ErrorView error={range.error} onRetry={() => void range.refetch()} />
            ) : null}
            {range.data ? (
              <>
                <AsOf updatedAt={range.dataUpdatedAt} />
                <RangeSummary range={range.data} />
                <div className="mb-2 flex min-h-8 flex-wrap items-center justify-end gap-2">
                  <Pager
                    info={rangePageInfo(range.data)}
                    testId="range"
                    pageSize={view.size}
                    onPage={(index) => update({ index })}
                  />
                </div>
                <RangeTable
                  rows={range.data.requests}
                  empty={view.status.length > 0 || view.q ? t('range.noneMatch') : t('range.none')}
                />
              </>
            ) : range.isPending && !range.error ? (
              <Spinner />
            ) : null}
          </>
        )
      ) : (
        <>
          {list.error ? <ErrorView error={list.error} onRetry={() => void list.refetch()} /> : null}

          <div className="mb-2 flex min-h-8 flex-wrap items-center justify-between gap-2">
            <div className="flex flex-wrap items-center gap-2">
              {list.data ? <AsOf updatedAt={list.dataUpdatedAt} /> : null}
              {newCount > 0 ? (
                <Button size="sm" variant="primary" onClick={stable.showNew}>
                  {t('newRows', { count: newCount })}
                </Button>
              ) : null}
              {selectedIds.length > 0 ? (
                <>
                  <RequestActionButtons
                    size="sm"
                    reasons={{ retry: retryRefusal, cancel: cancelRefusal }}
                    words={(action) =>
                      t(action === 'retry' ? 'bulkRetry' : 'bulkCancel', {
                        count: selectedIds.length,
                      })
                    }
                    onAction={(kind) => openAction(kind, selectedIds)}
                  />
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
        </>
      )}
      {action ? (
        <ActionDialog
          action={action.kind}
          requestIds={action.ids}
          returnFocusTo={() => rowFocusTarget(action.focusOrder, heading.current)}
          onClose={(done) => {
            setAction(undefined);
            if (done) setSelected(new Set());
          }}
        />
      ) : null}
    </>
  );
}
