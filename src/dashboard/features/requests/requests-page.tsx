import { useRef, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { REQUEST_STATUSES, type RequestSummary } from '../../../kit/index.ts';
import { forbiddenReason, useAuth } from '../../app/auth.ts';
import {
  PAGE_SIZES,
  pageSizeFrom,
  REFRESH_CHOICES,
  usePreference,
  type RefreshSeconds,
} from '../../app/preferences.ts';
import { StageBadge, StatusBadge } from '../../components/badge.tsx';
import { Button } from '../../components/button.tsx';
import { SpacerRow, useVirtualRows } from '../../components/virtual-rows.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, PageHeader, Select, TextInput } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { isoToYmd, paths, shiftDay, todayYmd, ymdToIso } from '../../paths.ts';
import { usePipelines } from '../pipelines/queries.ts';
import { ActionDialog } from './action-dialog.tsx';
import { actionReasons } from './actions.ts';
import { useRequestList } from './queries.ts';
import { useStableRows } from './stable-rows.ts';
import { strings } from './strings.ts';

const ROW_HEIGHT = 41;

function readView(search: URLSearchParams, defaultSize: number) {
  const date = /^\d{8}$/.test(search.get('date') ?? '')
    ? (search.get('date') as string)
    : todayYmd();
  const pipeline = search.get('pipeline') || undefined;
  const status = search.get('status') || undefined;
  const index = Math.max(0, Number.parseInt(search.get('index') ?? '0', 10) || 0);

  const size = pageSizeFrom(search.get('size'), defaultSize);
  return { date, pipeline, status, index, size };
}

function RowActions({
  row,
  onAction,
}: {
  row: RequestSummary;
  onAction: (action: 'retry' | 'cancel', ids: string[]) => void;
}) {
  const auth = useAuth();
  const reasons = actionReasons(auth, row.status);
  const retryReason = reasons.retry;
  const cancelReason = reasons.cancel;
  return (
    <div className="flex gap-1">
      <Button
        size="sm"
        disabledReason={retryReason}
        onClick={() => onAction('retry', [row.requestId])}
        aria-label={`${strings.retry} ${row.requestId}`}
      >
        {strings.retry}
      </Button>
      <Button
        size="sm"
        disabledReason={cancelReason}
        onClick={() => onAction('cancel', [row.requestId])}
        aria-label={`${strings.cancel} ${row.requestId}`}
      >
        {strings.cancel}
      </Button>
    </div>
  );
}

export function RequestsPage() {
  const [search, setSearch] = useSearchParams();
  const [defaultSize, setDefaultSize] = usePreference('pageSize');
  const [refreshSeconds, setRefreshSeconds] = usePreference('refreshSeconds');
  const view = readView(search, defaultSize);
  const pipelines = usePipelines();
  const list = useRequestList(
    { date: view.date, id: view.pipeline, index: view.index, size: view.size },
    refreshSeconds,
  );
  const viewKey = `${view.date}|${view.pipeline ?? ''}|${view.index}|${view.size}`;
  const fetchedForView = !list.isPlaceholderData && list.data !== undefined;
  const stable = useStableRows(viewKey, list.data?.requests, fetchedForView);
  const rows = view.status ? stable.rows.filter((r) => r.status === view.status) : stable.rows;
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [action, setAction] = useState<{ kind: 'retry' | 'cancel'; ids: string[] }>();
  const scroller = useRef<HTMLDivElement>(null);
  const { items, padTop, padBottom } = useVirtualRows(rows.length, scroller, ROW_HEIGHT, 12);

  const update = (changes: Record<string, string | number | undefined>) => {
    const next = new URLSearchParams(search);
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === '' || (name === 'index' && value === 0))
        next.delete(name);
      else next.set(name, String(value));
    }
    if (!('index' in changes)) next.delete('index');
    setSelected(new Set());
    setSearch(next);
  };

  const info = list.data?.info;
  const allSelected = rows.length > 0 && rows.every((r) => selected.has(r.requestId));
  const selectedIds = rows.filter((r) => selected.has(r.requestId)).map((r) => r.requestId);
  const auth = useAuth();

  return (
    <>
      <PageHeader title={strings.title}>
        <div className="flex items-end gap-1">
          <Button
            aria-label={strings.previousDay}
            title={strings.previousDay}
            onClick={() => update({ date: shiftDay(view.date, -1) })}
          >
            ‹
          </Button>
          <Field label={strings.date}>
            <TextInput
              type="date"
              value={ymdToIso(view.date)}
              onChange={(e) => e.target.value && update({ date: isoToYmd(e.target.value) })}
            />
          </Field>
          <Button
            aria-label={strings.nextDay}
            title={strings.nextDay}
            onClick={() => update({ date: shiftDay(view.date, 1) })}
          >
            ›
          </Button>
          <Button onClick={() => update({ date: undefined })}>{strings.today}</Button>
        </div>
        <Field label={strings.pipeline}>
          <Select
            value={view.pipeline ?? ''}
            onChange={(e) => update({ pipeline: e.target.value })}
          >
            <option value="">{strings.allPipelines}</option>
            {(pipelines.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.id} · {p.name}
              </option>
            ))}
          </Select>
        </Field>
        <Field label={`${strings.status} (${strings.statusNote})`}>
          <Select
            value={view.status ?? ''}
            onChange={(e) => update({ status: e.target.value, index: view.index })}
          >
            <option value="">{strings.allStatuses}</option>
            {REQUEST_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </Select>
        </Field>
        <Field label={strings.pageSize}>
          <Select
            value={view.size}
            onChange={(e) => {
              setDefaultSize(Number(e.target.value));
              update({ size: e.target.value });
            }}
          >
            {PAGE_SIZES.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </Select>
        </Field>
        <Field label={strings.refresh}>
          <Select
            value={refreshSeconds}
            onChange={(e) => setRefreshSeconds(Number(e.target.value) as RefreshSeconds)}
          >
            {REFRESH_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? strings.refreshOff : `${n} s`}
              </option>
            ))}
          </Select>
        </Field>
        <Button onClick={() => void list.refetch()} disabled={list.isFetching}>
          {strings.refreshNow}
        </Button>
      </PageHeader>

      {list.error ? <ErrorView error={list.error} onRetry={() => void list.refetch()} /> : null}

      <div className="mb-2 flex min-h-8 flex-wrap items-center justify-between gap-2">
        <div className="flex flex-wrap items-center gap-2">
          {stable.newCount > 0 ? (
            <Button size="sm" variant="primary" onClick={stable.showNew}>
              {strings.newRows(stable.newCount)}
            </Button>
          ) : null}
          {selectedIds.length > 0 ? (
            <>
              <Button
                size="sm"
                disabledReason={forbiddenReason(auth, 'requestretry')}
                onClick={() => setAction({ kind: 'retry', ids: selectedIds })}
              >
                {strings.bulkRetry(selectedIds.length)}
              </Button>
              <Button
                size="sm"
                disabledReason={forbiddenReason(auth, 'requestcancel')}
                onClick={() => setAction({ kind: 'cancel', ids: selectedIds })}
              >
                {strings.bulkCancel(selectedIds.length)}
              </Button>
              <Button size="sm" variant="ghost" onClick={() => setSelected(new Set())}>
                {strings.clearSelection}
              </Button>
            </>
          ) : null}
        </div>
        {info ? (
          <div className="flex items-center gap-2 text-sm text-slate-600 dark:text-slate-300">
            <span data-testid="range">
              {info.count === 0
                ? '0'
                : strings.range(info.index + 1, info.index + info.count, info.total)}
            </span>
            <Button
              size="sm"
              disabled={info.prev < 0}
              onClick={() => update({ index: Math.max(0, info.prev) })}
              aria-label={strings.previous}
            >
              ‹ {strings.previous}
            </Button>
            <Button
              size="sm"
              disabled={info.next < 0}
              onClick={() => update({ index: info.next })}
              aria-label={strings.next}
            >
              {strings.next} ›
            </Button>
          </div>
        ) : null}
      </div>

      {list.isPending ? (
        <Spinner />
      ) : (
        <div
          ref={scroller}
          className="max-h-[calc(100vh-16rem)] min-h-48 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
        >
          <table className="w-full text-sm" data-testid="requests-table">
            <thead className="sticky top-0 z-10 border-b border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-800">
              <tr className="text-left text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-300">
                <th className="w-10 px-3 py-2">
                  <input
                    type="checkbox"
                    aria-label={strings.selectAll}
                    checked={allSelected}
                    onChange={(e) =>
                      setSelected(
                        e.target.checked ? new Set(rows.map((r) => r.requestId)) : new Set(),
                      )
                    }
                  />
                </th>
                <th className="px-3 py-2">{strings.columns.id}</th>
                <th className="px-3 py-2">{strings.columns.pipeline}</th>
                <th className="px-3 py-2">{strings.columns.status}</th>
                <th className="px-3 py-2">{strings.columns.stage}</th>
                <th className="px-3 py-2">{strings.columns.begin}</th>
                <th className="px-3 py-2">{strings.columns.actions}</th>
              </tr>
            </thead>
            <tbody>
              <SpacerRow height={padTop} colSpan={7} />
              {items.map((item) => {
                const row = rows[item.index] as RequestSummary;
                return (
                  <tr
                    key={row.requestId}
                    data-request={row.requestId}
                    style={{ height: ROW_HEIGHT }}
                    className="border-b border-slate-100 hover:bg-slate-50 dark:border-slate-800 dark:hover:bg-slate-800/40"
                  >
                    <td className="px-3">
                      <input
                        type="checkbox"
                        aria-label={strings.selectRow(row.requestId)}
                        checked={selected.has(row.requestId)}
                        onChange={(e) => {
                          const next = new Set(selected);
                          if (e.target.checked) next.add(row.requestId);
                          else next.delete(row.requestId);
                          setSelected(next);
                        }}
                      />
                    </td>
                    <td className="px-3 font-mono text-xs whitespace-nowrap">
                      <Link
                        to={paths.request(row.requestId)}
                        className="text-teal-700 hover:underline focus-visible:outline-2 focus-visible:outline-teal-600 dark:text-teal-400"
                      >
                        {row.requestId}
                      </Link>
                    </td>
                    <td className="px-3">
                      {row.name}{' '}
                      <span className="font-mono text-xs text-slate-500">{row.pipelineId}</span>
                    </td>
                    <td className="px-3">
                      <StatusBadge status={row.status} />
                    </td>
                    <td className="px-3">
                      <StageBadge stage={row.stage} />
                    </td>
                    <td className="px-3 text-xs whitespace-nowrap text-slate-600 dark:text-slate-400">
                      {row.beginDate}
                    </td>
                    <td className="px-3">
                      <RowActions row={row} onAction={(kind, ids) => setAction({ kind, ids })} />
                    </td>
                  </tr>
                );
              })}
              <SpacerRow height={padBottom} colSpan={7} />
            </tbody>
          </table>
          {rows.length === 0 && fetchedForView ? (
            <p className="px-3 py-8 text-center text-sm text-slate-500">
              {stable.rows.length === 0 ? strings.none : strings.noneMatch}
            </p>
          ) : null}
        </div>
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
