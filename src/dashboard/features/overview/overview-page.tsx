import { Fragment, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { REQUEST_STATUSES, runmodeState, type RequestSummary } from '../../../kit/index.ts';
import { useForbidden } from '../../core/auth.ts';
import { usePreference } from '../../core/preferences.ts';
import { useDarkClass } from '../../core/theme.ts';
import { ScrollX } from '../../components/scroll-x.tsx';
import { Button } from '../../components/button.tsx';
import { DataTable } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { DayInput, Field, PageHeader } from '../../components/fields.tsx';
import { ServiceTime } from '../../components/time.tsx';
import { paths } from '../../paths.ts';
import { useServiceToday } from '../../shared/services.ts';
import { upstreamFailureOf, useServiceDown } from '../../shared/service-down.ts';
import { AsOf } from '../../shared/service-down-banner.tsx';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';
import { failuresOf } from './summary.ts';
import { ActionDialog } from '../../components/action-dialog.tsx';
import { useActionReasons } from '../../shared/request-actions.ts';
import { usePipelines, useSetRunmode } from '../../shared/queries.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { dayFrom, freshParams } from '../../shared/url-state.ts';
import { DayPending, ServiceUnreachable } from './day-pending.tsx';
import { HourlyChart } from './hourly-chart.tsx';
import { useDayCounts, useErrorMessage, useLatestErrors } from './queries.ts';
import { byPipelineColumns, statusColumnsOf } from './columns.tsx';

function ErrorRow({ request, onRetry }: { request: RequestSummary; onRetry: () => void }) {
  const { t } = useTranslation('overview');
  const message = useErrorMessage(request.requestId);
  // The role first, then the service's words (a failure it does not retry, or refused to),
  // then a service that is down: as the requests page's rows say it.
  const down = useServiceDown();
  const retryRefused = useActionReasons(request.status).retry ?? down?.reason;
  // No wrapping: a wrapped button would fall to the left under a long message, and the
  // buttons of the list would alternate sides.
  return (
    <li className="flex items-start justify-between gap-2 border-b border-slate-100 py-2 last:border-0 dark:border-slate-800">
      <div className="min-w-0 flex-1">
        <Link
          to={paths.request(request.requestId)}
          className="font-mono text-xs text-teal-700 hover:underline dark:text-teal-400"
        >
          {request.requestId}
        </Link>
        <span className="ml-2 text-xs text-slate-500 dark:text-slate-400">
          {request.name} · {request.stage} · <ServiceTime stamp={request.beginDate} />
        </span>
        <p className="mt-0.5 text-sm break-words text-red-800 dark:text-red-300">
          {message.data ?? (message.isError ? t('messageUnread') : '…')}
        </p>
      </div>
      <Button
        size="sm"
        className="shrink-0"
        data-testid="latest-error-retry"
        disabledReason={retryRefused}
        onClick={onRetry}
      >
        {t('retry')}
      </Button>
    </li>
  );
}

const EMPTY_DAY = { byPipeline: [], hourly: [], total: 0 } as const;

export function OverviewPage() {
  const { t, i18n } = useTranslation('overview');
  const [search, changeSearch] = useSearchChanges();
  const serviceToday = useServiceToday();
  const date = dayFrom(search.get('date'), () => serviceToday.today);
  const [refreshSeconds] = usePreference('refreshSeconds');
  // Without a date in the URL the page waits for the service's today, not the browser's.
  const day = useDayCounts(date, refreshSeconds, search.get('date') !== null || serviceToday.ready);
  // Failures in the service's own words: Error for ours, Error and Abort for a vendor so set.
  const failed = useStatusSemantics().failed;
  const failedWords = new Intl.ListFormat(i18n.resolvedLanguage, { type: 'disjunction' }).format(
    failed,
  );
  const failures = day.data ? failuresOf(day.data.byPipeline, failed) : undefined;
  const latestErrors = useLatestErrors(date, failures, failed);
  const pipelines = usePipelines();
  const setRunmode = useSetRunmode();
  const down = useServiceDown();
  const resumeRefused = useForbidden()('resume') ?? down?.reason;
  // The service behind the gateway not answering is said in words, ours in the user's
  // language: from the failed call (its code and sentence), else from the server's check.
  const failure = upstreamFailureOf(day.error);
  const unreachable = failure
    ? { message: failure.message, told: { code: failure.code } }
    : down
      ? { message: down.message, told: { cause: down.cause } }
      : undefined;
  const dark = useDarkClass();
  const [retrying, setRetrying] = useState<string>();

  const summary = { ...(day.data ?? EMPTY_DAY), errors: failures ?? 0 };
  const suspended = (pipelines.data ?? []).filter((p) => runmodeState(p.runmode) === 'stop');
  // Runmode words the kit cannot tell: whether those pipelines run is not claimed either way.
  const untold = (pipelines.data ?? []).filter((p) => runmodeState(p.runmode) === 'unknown');
  const allGood = summary.errors === 0 && suspended.length === 0 && untold.length === 0;
  const statuses = statusColumnsOf(summary.byPipeline);
  const otherStates = statuses
    .filter((s) => !(REQUEST_STATUSES as readonly string[]).includes(s) && !failed.includes(s))
    .map((s) => ({
      status: s,
      count: summary.byPipeline.reduce((n, row) => n + (row.counts[s] ?? 0), 0),
    }));

  return (
    <>
      <PageHeader title={t('title')}>
        <Field label={t('day')}>
          <DayInput
            day={date}
            onDay={(day) => changeSearch((now) => freshParams(now, { date: day }))}
          />
        </Field>
        <Button onClick={() => changeSearch(freshParams)}>{t('today')}</Button>
      </PageHeader>
      {unreachable ? (
        <ServiceUnreachable
          message={unreachable.message}
          told={unreachable.told}
          since={down?.since ?? ''}
          kept={day.data !== undefined}
          onRetry={day.error ? () => void day.refetch() : undefined}
        />
      ) : day.error ? (
        <ErrorView error={day.error} onRetry={() => void day.refetch()} />
      ) : null}
      {/* The counts, the hours and the health line below were read at this time. */}
      {day.data ? <AsOf updatedAt={day.dataUpdatedAt} /> : null}
      {!day.data ? (
        day.error || unreachable ? null : (
          <DayPending />
        )
      ) : (
        <div className="flex flex-col gap-5" data-testid="overview-day">
          <p
            role="status"
            data-testid="health"
            className={`rounded-md px-4 py-2 text-sm font-medium ${
              allGood
                ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100'
                : 'bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-100'
            }`}
          >
            {allGood
              ? t('allGood')
              : [
                  summary.errors > 0 ? (
                    <Link
                      key="errors"
                      to={paths.requests({ date, status: failed.join(',') })}
                      data-testid="error-count"
                      className="underline hover:no-underline"
                    >
                      {t('inError', { count: summary.errors, words: failedWords })}
                    </Link>
                  ) : null,
                  suspended.length > 0 ? t('suspendedCount', { count: suspended.length }) : null,
                  untold.length > 0 ? t('untoldCount', { count: untold.length }) : null,
                ]
                  .filter((part) => part !== null)
                  .map((part, i) => (
                    <Fragment key={i}>
                      {i > 0 ? ' · ' : null}
                      {part}
                    </Fragment>
                  ))}
            <span className="ml-2 text-xs font-normal opacity-75">
              {refreshSeconds > 0 ? t('refreshing', { seconds: refreshSeconds }) : t('refreshOff')}
            </span>
            {otherStates.length > 0 ? (
              <span data-testid="other-states" className="mt-1 block text-xs font-normal">
                {t('otherStates', {
                  list: new Intl.ListFormat(i18n.resolvedLanguage, { type: 'unit' }).format(
                    otherStates.map(({ status, count }) =>
                      t('otherState', { count, status: status || t('noStatus') }),
                    ),
                  ),
                })}
              </span>
            ) : null}
          </p>
          <div className="grid gap-5 xl:grid-cols-2">
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-3 text-sm font-semibold">{t('byPipeline')}</h2>
              <ScrollX label={t('byPipeline')}>
                <DataTable
                  columns={byPipelineColumns(t, date, statuses)}
                  rows={summary.byPipeline}
                  rowKey={(row) => row.id}
                  rowProps={(row) => ({ 'data-pipeline': row.id })}
                  testId="by-pipeline"
                  density="compact"
                />
              </ScrollX>
              {day.data.exact ? (
                <p
                  className="mt-2 text-xs text-slate-500 dark:text-slate-400"
                  data-testid="day-total"
                >
                  {t('dayTotal', { count: day.data.total })}
                </p>
              ) : (
                <p className="mt-2 text-xs font-medium text-amber-800 dark:text-amber-200">
                  {t('truncated', { counted: day.data.counted, total: day.data.total })}
                </p>
              )}
            </section>
            <section className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900">
              <h2 className="mb-3 text-sm font-semibold">{t('perHour')}</h2>
              <HourlyChart counts={summary.hourly} dark={dark} />
            </section>
            <section
              data-testid="latest-errors-section"
              className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
            >
              <h2 className="mb-1 text-sm font-semibold">{t('latestErrors')}</h2>
              {latestErrors.data && summary.errors > 0 ? (
                <AsOf updatedAt={latestErrors.dataUpdatedAt} />
              ) : null}
              {summary.errors === 0 ? (
                <p className="text-sm text-slate-500 dark:text-slate-400">
                  {t('noErrors', { words: failedWords })}
                </p>
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
              <h2 className="mb-1 text-sm font-semibold">{t('suspended')}</h2>
              {untold.length > 0 ? (
                <div className="mb-2 text-sm" data-testid="untold-runmodes">
                  <p>{t('untold')}</p>
                  <ul className="my-1">
                    {untold.map((p) => (
                      <li key={p.id}>
                        {p.name}{' '}
                        <span className="font-mono text-xs text-slate-500 dark:text-slate-400">
                          {p.id}
                        </span>{' '}
                        {p.runmode}
                      </li>
                    ))}
                  </ul>
                  <Link to={paths.pipelines()} className="underline hover:no-underline">
                    {t('untoldLink')}
                  </Link>
                </div>
              ) : null}
              {suspended.length === 0 ? (
                untold.length > 0 ? null : (
                  <p className="text-sm text-slate-500 dark:text-slate-400">{t('noneSuspended')}</p>
                )
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
                        disabledReason={resumeRefused}
                        onClick={() => setRunmode.mutate({ id: p.id, run: true })}
                      >
                        {t('resume')}
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
