import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { HttpError } from '../../../kit/index.ts';
import { useAuth } from '../../core/auth.ts';
import { ErrorView } from '../../components/error-view.tsx';
import { describeError } from '../../shared/describe-error.ts';
import { Spinner } from '../../components/spinner.tsx';
import { Instant } from '../../components/time.tsx';
import { dayOfRequest, isRangeList, paths, requestsListFrom, ymdToIso } from '../../paths.ts';
import { ActionDialog } from '../../components/action-dialog.tsx';
import {
  RequestActionButtons,
  type RequestAction,
} from '../../components/request-action-buttons.tsx';
import { useActionReasons } from '../../shared/request-actions.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { AsOf } from '../../shared/service-down-banner.tsx';
import { isAdministrator, useAudit } from '../../shared/audit.ts';
import { useSearchChanges } from '../../shared/search-changes.ts';
import { freshParams, withParams } from '../../shared/url-state.ts';
import { appLogStamps } from './app-log-time.ts';
import { AttemptsPanel } from './attempts-panel.tsx';
import { LogView, type LogLine } from './log-view.tsx';
import { isLive, useRequestDetail } from './queries.ts';
import { RawView } from './raw-view.tsx';
import { Summary, Timeline } from './summary.tsx';

type Tab = 'request' | 'app' | 'raw';

// The service's field names head the copied and downloaded logs in every language; the
// table's header says them in the language shown.
const REQUEST_COLUMNS = [
  // Wide enough for a stamp with its zone, "2026-11-22 6:35:37 PM service time".
  { name: 'Date', key: 'date', width: '17rem' },
  { name: 'Stage', key: 'stage', width: '5rem' },
  { name: 'Event', key: 'event', width: '4rem' },
  { name: 'Status', key: 'status', width: '5rem' },
  { name: 'ActionOrder', key: 'actionOrder', width: '6rem' },
  { name: 'Message', key: 'message', width: 'minmax(16rem, 1fr)' },
] as const;
const APP_COLUMNS = [
  { name: 'Index', key: 'index', width: '4rem' },
  // A time of day with its zone, "9:14:03 PM service time" at the longest.
  { name: 'Date', key: 'date', width: '10rem' },
  { name: 'Type', key: 'type', width: '4rem' },
  { name: 'Message', key: 'message', width: 'minmax(16rem, 1fr)' },
] as const;

/** A 404 for the request itself (not an unknown api): the service has no such request. */
const isUnknownRequest = (error: unknown) =>
  error instanceof HttpError && error.status === 404 && error.code !== 1204;

function UnknownRequest({ requestId, error }: { requestId: string; error: unknown }) {
  const { t } = useTranslation('requestDetail');
  const day = dayOfRequest(requestId);
  const { code, message } = describeError(error);
  return (
    <div className="flex flex-col gap-3" data-testid="unknown-request">
      <h1 className="text-lg font-semibold">{t('unknown.title')}</h1>
      <p className="break-words">{t('unknown.text', { id: requestId })}</p>
      <p className="text-sm break-words text-slate-600 dark:text-slate-300">
        {code !== undefined ? `[${code}] ` : ''}
        {message}
      </p>
      <Link
        to={paths.requests(day ? { date: day } : {})}
        className="text-sm text-teal-700 hover:underline dark:text-teal-400"
      >
        {day ? t('unknown.toDay', { day: ymdToIso(day) }) : t('unknown.toRequests')}
      </Link>
    </div>
  );
}

export function RequestDetailPage() {
  const { t } = useTranslation('requestDetail');
  const { requestId = '' } = useParams();
  // The log's filter and search live in the URL beside the tab; the tab's links drop them,
  // since a stage of the request log means nothing in the application log. Typing does not
  // add a history entry per key. A stage picked and the search cleared at once both stay.
  const [search, changeSearch] = useSearchChanges();
  const onLogView = (changes: Readonly<Partial<{ group: string; find: string }>>) =>
    changeSearch((now) => withParams(now, changes), { replace: true });
  const tab = (
    ['request', 'app', 'raw'].includes(search.get('tab') ?? '') ? search.get('tab') : 'request'
  ) as Tab;
  const detail = useRequestDetail(requestId);
  const auth = useAuth();
  const [action, setAction] = useState<'retry' | 'cancel'>();
  const data = detail.data;
  const live = data ? isLive(data) : false;
  // The list the request was opened from, when it was (its day, filters and page); checked
  // to be the requests page of this dashboard, never another address.
  const list = requestsListFrom(search.get('from'));

  const requestLines = useMemo<LogLine[]>(
    () =>
      (data?.requestLog ?? []).map((l) => ({
        group: l.stage,
        cells: [l.date, l.stage, l.event, l.status, String(l.actionOrder), l.message],
        stampCell: 0,
      })),
    [data?.requestLog],
  );
  const appLines = useMemo<LogLine[]>(() => {
    const stamps = appLogStamps(
      (data?.appLog ?? []).map((l) => l.date),
      data?.beginTime ?? '',
      requestId,
    );
    return (data?.appLog ?? []).map((l, i) => ({
      group: l.type,
      cells: [String(l.index), l.date, l.type, l.message],
      stampCell: 1,
      stamp: stamps[i],
    }));
  }, [data?.appLog, data?.beginTime, requestId]);

  if (detail.error && !data) {
    return isUnknownRequest(detail.error) ? (
      <UnknownRequest requestId={requestId} error={detail.error} />
    ) : (
      <ErrorView error={detail.error} onRetry={() => void detail.refetch()} />
    );
  }
  if (!data) return <Spinner />;
  const tabs: readonly { value: Tab; label: string }[] = [
    { value: 'request', label: t('tabs.request', { count: requestLines.length }) },
    { value: 'app', label: t('tabs.app', { count: appLines.length }) },
    { value: 'raw', label: t('tabs.raw') },
  ];
  // The two logs' tabs: one view, each with its lines, columns and file name.
  const logViews = {
    request: {
      groupLabel: t('log.filterStage'),
      fileName: `${data.requestId}-request-log.txt`,
      lines: requestLines,
      columns: REQUEST_COLUMNS.map((c) => ({ ...c, label: t(`log.requestColumns.${c.key}`) })),
    },
    app: {
      groupLabel: t('log.filterType'),
      fileName: `${data.requestId}-application-log.txt`,
      lines: appLines,
      columns: APP_COLUMNS.map((c) => ({ ...c, label: t(`log.appColumns.${c.key}`) })),
    },
  };

  return (
    <div className="flex min-w-0 flex-col gap-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="min-w-0">
          <Link
            to={
              list ??
              paths.requests({
                date: dayOfRequest(requestId, data.beginTime),
                pipeline: data.pipelineId,
              })
            }
            className="text-sm text-teal-700 hover:underline dark:text-teal-400"
          >
            {list !== undefined && isRangeList(list) ? t('backToRange') : t('back')}
          </Link>
          <h1 className="mt-1 font-mono text-lg font-semibold break-all">{data.requestId}</h1>
          {live ? (
            <p className="text-xs text-slate-600 dark:text-slate-400">{t('polling')}</p>
          ) : null}
          <AsOf updatedAt={detail.dataUpdatedAt} />
        </div>
        <ActionButtons status={data.status} onAction={setAction} />
      </div>
      <section
        aria-label={t('summary')}
        className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      >
        <Summary detail={data} />
        <h2 className="mt-5 mb-2 text-sm font-semibold">{t('timeline')}</h2>
        <Timeline detail={data} />
        {isAdministrator(auth) ? <ActionHistory requestId={requestId} /> : null}
      </section>
      <AttemptsPanel requestId={requestId} live={live} status={data.status} />
      <section className="min-w-0">
        <div
          role="tablist"
          aria-label={t('tabs.label')}
          className="mb-3 flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800"
        >
          {tabs.map(({ value, label }) => (
            <button
              key={value}
              type="button"
              role="tab"
              aria-selected={tab === value}
              onClick={() =>
                changeSearch(
                  // The list it was opened from stays: the back link leads there from any tab.
                  (now) =>
                    freshParams(now, {
                      tab: value === 'request' ? undefined : value,
                      from: now.get('from') ?? undefined,
                    }),
                  { replace: true },
                )
              }
              className={`border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-teal-600 ${
                tab === value
                  ? 'border-teal-600 text-teal-800 dark:text-teal-300'
                  : 'border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white'
              }`}
            >
              {label}
            </button>
          ))}
        </div>
        {tab === 'raw' ? (
          <RawView requestId={data.requestId} />
        ) : (
          <LogView
            key={tab}
            {...logViews[tab]}
            live={live}
            group={search.get('group') ?? ''}
            query={search.get('find') ?? ''}
            onView={onLogView}
          />
        )}
      </section>
      {action ? (
        <ActionDialog
          action={action}
          requestIds={[data.requestId]}
          onClose={() => setAction(undefined)}
        />
      ) : null}
    </div>
  );
}

/** The variant of an action the service's words say will be taken. */
const TAKEN = { retry: 'primary', cancel: 'danger' } as const;

function ActionButtons({
  status,
  onAction,
}: {
  status: string;
  onAction: (action: RequestAction) => void;
}) {
  const { t } = useTranslation('actions');
  const { retry, cancel, retryAllowed, cancelAllowed } = useActionReasons(status);
  const down = useServiceDown();
  // Only an action the service's words say will be taken is a primary button (red for a
  // cancel); one they do not decide is a plain button, the service deciding; one that
  // cannot succeed stays in its place, disabled with the reason (focus returns to it).
  const undecided = retryAllowed === 'unknown' || cancelAllowed === 'unknown';
  const allowed = { retry: retryAllowed, cancel: cancelAllowed };
  return (
    <div className="flex max-w-md flex-col items-end gap-1">
      <div className="flex gap-2">
        <RequestActionButtons
          reasons={{ retry: retry ?? down?.reason, cancel: cancel ?? down?.reason }}
          variant={(action) => (allowed[action] === 'yes' ? TAKEN[action] : 'secondary')}
          words={(action) => t(action)}
          onAction={onAction}
        />
      </div>
      {undecided ? (
        <p
          className="text-right text-xs text-slate-600 dark:text-slate-400"
          data-testid="undecided"
        >
          {t('undecided', { status })}
        </p>
      ) : null}
    </div>
  );
}

/** Who retried or cancelled the request and when, from the audit log (administrators). */
function ActionHistory({ requestId }: { requestId: string }) {
  const { t } = useTranslation('requestDetail');
  const audit = useAudit({ requestId, index: 0, size: 100 });
  const entries = (audit.data?.entries ?? []).filter((e) => /retry|cancel/i.test(e.operation));
  return (
    <div data-testid="action-history">
      <h2 className="mt-5 mb-2 text-sm font-semibold">{t('history.title')}</h2>
      {audit.error ? <ErrorView error={audit.error} /> : null}
      {audit.data && entries.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">{t('history.none')}</p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {entries.map((e, i) => (
            <li key={`${e.time}|${i}`} data-operation={e.operation}>
              <span className="font-medium">{e.userName}</span>{' '}
              <span>
                {/cancel/i.test(e.operation) ? t('history.cancelled') : t('history.retried')}
              </span>{' '}
              <span className="text-slate-600 dark:text-slate-400">
                <Instant iso={e.time} />
              </span>
              {e.httpStatus !== null && e.httpStatus >= 400 ? (
                <span className="ml-2 text-red-700 dark:text-red-400">
                  {t('history.refused', { message: e.message })}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
