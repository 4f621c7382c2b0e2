import { useState, useSyncExternalStore } from 'react';
import { Link, useSearchParams } from 'react-router';
import { REQUEST_STATUSES, type RequestSummary } from '../../../kit/index.ts';
import { forbiddenReason, useAuth } from '../../app/auth.ts';
import { usePreference } from '../../app/preferences.ts';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Field, PageHeader, TextInput } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { isoToYmd, paths, ymdToIso } from '../../paths.ts';
import { useServiceToday } from '../../shared/services.ts';
import { ActionDialog } from '../../shared/action-dialog.tsx';
import { usePipelines, useSetRunmode } from '../../shared/queries.ts';
import { dayFrom, freshParams } from '../../shared/url-state.ts';
import { HourlyChart } from './hourly-chart.tsx';
import { useDayCounts, useErrorMessage, useLatestErrors } from './queries.ts';
import { byPipelineColumns, statusColumnsOf } from './columns.tsx';
import { strings } from './strings.ts';

function useDarkClass(): boolean {
  return useSyncExternalStore(
    (listener) => {
      const observer = new MutationObserver(listener);
      observer.observe(document.documentElement, { attributes: true, attributeFilter: ['class'] });
      return () => observer.disconnect();
    },
    () => document.documentElement.classList.contains('dark'),
  );
}

function ErrorRow({ request, onRetry }: { request: RequestSummary; onRetry: () => void }) {
  const message = useErrorMessage(request.requestId);
  const auth = useAuth();
  return (
    <li className="flex flex-wrap items-start justify-between gap-2 border-b border-slate-100 py-2 last:border-0 dark:border-slate-800">
      <div className="min-w-0">
        <Link
          to={paths.request(request.requestId)}
          className="font-mono text-xs text-teal-700 hover:underline dark:text-teal-400"
        >
          {request.requestId}
        </Link>
        <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">
          {request.name} · {request.stage} · {request.beginDate}
        </span>
        <p className="mt-0.5 text-sm break-words text-red-800 dark:text-red-300">
          {message.data ?? '…'}
        </p>
      </div>
      <Button size="sm" disabledReason={forbiddenReason(auth, 'requestretry')} onClick={onRetry}>
        {strings.retry}
      </Button>
    </li>
  );
}

const EMPTY_DAY = { byPipeline: [], hourly: [], errors: 0, total: 0 } as const;

export function OverviewPage() {
  const [search, setSearch] = useSearchParams();
  const serviceToday = useServiceToday();
  const date = dayFrom(search.get('date'), () => serviceToday.today);
  const [refreshSeconds] = usePreference('refreshSeconds');
  // Without a date in the URL the page waits for the service's today, not the browser's.
  const day = useDayCounts(date, refreshSeconds, search.get('date') !== null || serviceToday.ready);
  const latestErrors = useLatestErrors(date, day.data?.errors);
  const pipelines = usePipelines();
  const setRunmode = useSetRunmode();
  const auth = useAuth();
  const dark = useDarkClass();
  const [retrying, setRetrying] = useState<string>();

  const summary = day.data ?? EMPTY_DAY;
  const suspended = (pipelines.data ?? []).filter((p) => p.runmode === 'stop');
  const statuses = statusColumnsOf(summary.byPipeline);
  const otherStates = statuses
    .filter((s) => !(REQUEST_STATUSES as readonly string[]).includes(s))
    .map((s) => ({
      status: s,
      count: summary.byPipeline.reduce((n, row) => n + (row.counts[s] ?? 0), 0),
    }));

  return (
    <>
      <PageHeader title={strings.title}>
        <Field label={strings.day}>
          <TextInput
            type="date"
            value={ymdToIso(date)}
            onChange={(e) =>
              e.target.value && setSearch(freshParams(search, { date: isoToYmd(e.target.value) }))
            }
          />
        </Field>
        <Button onClick={() => setSearch(freshParams(search))}>{strings.today}</Button>
      </PageHeader>
      {day.error ? <ErrorView error={day.error} onRetry={() => void day.refetch()} /> : null}
      {!day.data ? (
        <Spinner />
      ) : (
        <div className="flex flex-col gap-5">
          <p
            role="status"
            data-testid="health"
            className={`rounded-md px-4 py-2 text-sm font-medium ${
              summary.errors === 0 && suspended.length === 0
                ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100'
                : 'bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100'
            }`}
          >
            {summary.errors === 0 && suspended.length === 0 ? (
              strings.allGood
            ) : (
              <>
                {summary.errors > 0 ? (
                  <Link
                    to={paths.requests({ date, status: 'Error' })}
                    data-testid="error-count"
                    className="underline hover:no-underline"
                  >
                    {strings.inError(summary.errors)}
                  </Link>
                ) : null}
                {summary.errors > 0 && suspended.length > 0 ? ' · ' : null}
                {suspended.length > 0 ? strings.suspendedCount(suspended.length) : null}
              </>
            )}
            <span className="ml-2 text-xs font-normal opacity-75">
              {strings.refreshing(refreshSeconds)}
            </span>
            {otherStates.length > 0 ? (
              <span data-testid="other-states" className="mt-1 block text-xs font-normal">
                {strings.otherStates(otherStates)}
              </span>
            ) : null}
          </p>
          <div className="grid gap-5 xl:grid-cols-2">
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-3 text-sm font-semibold">{strings.byPipeline}</h2>
              <div className="overflow-x-auto">
                <DataTable
                  columns={byPipelineColumns(date, statuses)}
                  rows={summary.byPipeline}
                  rowKey={(row) => row.id}
                  rowProps={(row) => ({ 'data-pipeline': row.id })}
                  testId="by-pipeline"
                  density="compact"
                />
              </div>
              {day.data.exact ? (
                <p
                  className="mt-2 text-xs text-slate-500 dark:text-slate-400"
                  data-testid="day-total"
                >
                  {strings.dayTotal(day.data.total)}
                </p>
              ) : (
                <p className="mt-2 text-xs font-medium text-amber-800 dark:text-amber-200">
                  {strings.truncated(day.data.counted, day.data.total)}
                </p>
              )}
            </section>
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-3 text-sm font-semibold">{strings.perHour}</h2>
              <HourlyChart counts={summary.hourly} dark={dark} />
            </section>
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-1 text-sm font-semibold">{strings.latestErrors}</h2>
              {summary.errors === 0 ? (
                <p className="text-sm text-slate-500 dark:text-slate-400">{strings.noErrors}</p>
              ) : (
                <ul data-testid="latest-errors">
                  {(latestErrors.data ?? []).map((r) => (
                    <ErrorRow
                      key={r.requestId}
                      request={r}
                      onRetry={() => setRetrying(r.requestId)}
                    />
                  ))}
                </ul>
              )}
            </section>
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-1 text-sm font-semibold">{strings.suspended}</h2>
              {suspended.length === 0 ? (
                <p className="text-sm text-slate-500 dark:text-slate-400">
                  {strings.noneSuspended}
                </p>
              ) : (
                <ul data-testid="suspended">
                  {suspended.map((p) => (
                    <li
                      key={p.id}
                      className="flex items-center justify-between gap-2 border-b border-slate-100 py-2 last:border-0 dark:border-slate-800"
                    >
                      <span>
                        {p.name}{' '}
                        <span className="font-mono text-xs text-slate-500 dark:text-slate-400">
                          {p.id}
                        </span>
                      </span>
                      <Button
                        size="sm"
                        disabledReason={forbiddenReason(auth, 'resume')}
                        onClick={() => setRunmode.mutate({ id: p.id, run: true })}
                      >
                        {strings.resume}
                      </Button>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          </div>
        </div>
      )}
      {retrying ? (
        <ActionDialog
          action="retry"
          requestIds={[retrying]}
          onClose={() => setRetrying(undefined)}
        />
      ) : null}
    </>
  );
}
