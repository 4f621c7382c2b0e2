import { useMemo, useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import type { RequestDetail } from '../../../kit/index.ts';
import { useAuth } from '../../app/auth.ts';
import { StageBadge, StatusBadge } from '../../components/badge.tsx';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { dayOfRequest, paths } from '../../paths.ts';
import { ActionDialog } from '../../shared/action-dialog.tsx';
import { actionReasons } from '../../shared/request-actions.ts';
import { LogView, type LogLine } from './log-view.tsx';
import { isLive, useRequestDetail } from './queries.ts';
import { useCurrentService } from '../../shared/services.ts';
import { isAdministrator, timeWithZone, useAudit } from '../../shared/audit.ts';
import { RawView } from './raw-view.tsx';
import { strings } from './strings.ts';
import { freshParams, withParams } from '../../shared/url-state.ts';

type Tab = 'request' | 'app' | 'raw';

function seconds(time: string): number | undefined {
  const m = /^(\d+):(\d{2})$/.exec(time);
  return m ? Number(m[1]) * 60 + Number(m[2]) : undefined;
}

function Timeline({ detail }: { detail: RequestDetail }) {
  const stages = [
    { name: strings.stages.sensor, time: detail.sensorTime, color: 'bg-violet-500' },
    { name: strings.stages.filter, time: detail.filterTime, color: 'bg-indigo-500' },
    { name: strings.stages.joint, time: detail.jointTime, color: 'bg-cyan-500' },
  ];
  const longest = Math.max(1, ...stages.map((s) => seconds(s.time) ?? 0));
  return (
    <div className="grid gap-2 sm:grid-cols-3" data-testid="timeline">
      {stages.map((stage) => {
        const value = seconds(stage.time);
        return (
          <div
            key={stage.name}
            className="rounded-md border border-slate-200 p-3 dark:border-slate-800"
          >
            <div className="flex items-baseline justify-between text-sm">
              <span className="font-medium">{stage.name}</span>
              <span className="font-mono text-xs text-slate-600 dark:text-slate-300">
                {stage.time || strings.notYet}
              </span>
            </div>
            <div className="mt-2 h-2 rounded bg-slate-100 dark:bg-slate-800" aria-hidden="true">
              <div
                className={`h-2 rounded ${stage.color}`}
                style={{
                  width: value === undefined ? 0 : `${Math.max(4, (value / longest) * 100)}%`,
                }}
              />
            </div>
          </div>
        );
      })}
    </div>
  );
}

function Summary({ detail }: { detail: RequestDetail }) {
  const item = (label: string, value: ReactNode) => (
    <div>
      <dt className="text-xs font-medium text-slate-500 uppercase dark:text-slate-400">{label}</dt>
      <dd className="mt-0.5 text-sm break-all">{value}</dd>
    </div>
  );
  return (
    <dl className="grid grid-cols-2 gap-x-6 gap-y-3 md:grid-cols-4">
      {item(strings.fields.requestId, <span className="font-mono">{detail.requestId}</span>)}
      {item(
        strings.fields.pipeline,
        <>
          {detail.name}{' '}
          <span className="font-mono text-xs text-slate-500 dark:text-slate-400">
            {detail.pipelineId}
          </span>
        </>,
      )}
      {item(strings.fields.status, <StatusBadge status={detail.status} />)}
      {item(strings.fields.stage, <StageBadge stage={detail.stage} />)}
      {item(strings.fields.begin, detail.beginTime || '—')}
      {item(strings.fields.end, detail.endTime || '—')}
      {item(strings.fields.file, <span className="font-mono">{detail.sensorFile || '—'}</span>)}
      {item(strings.fields.size, detail.fileSize || '—')}
    </dl>
  );
}

export function RequestDetailPage() {
  const { requestId = '' } = useParams();
  const [search, setSearch] = useSearchParams();
  // The log's filter and search live in the URL beside the tab; the tab's links drop them,
  // since a stage of the request log means nothing in the application log. Typing does not
  // add a history entry per key.
  const onLogView = (changes: Readonly<Partial<{ group: string; find: string }>>) =>
    setSearch(withParams(search, changes), { replace: true });
  const tab = (
    ['request', 'app', 'raw'].includes(search.get('tab') ?? '') ? search.get('tab') : 'request'
  ) as Tab;
  const detail = useRequestDetail(requestId);
  const auth = useAuth();
  const [action, setAction] = useState<'retry' | 'cancel'>();
  const data = detail.data;
  const live = data ? isLive(data) : false;
  const service = useCurrentService();

  const requestLines = useMemo<LogLine[]>(
    () =>
      (data?.requestLog ?? []).map((l) => ({
        group: l.stage,
        cells: [l.date, l.stage, l.event, l.status, String(l.actionOrder), l.message],
      })),
    [data?.requestLog],
  );
  const appLines = useMemo<LogLine[]>(
    () =>
      (data?.appLog ?? []).map((l) => ({
        group: l.type,
        cells: [String(l.index), l.date, l.type, l.message],
      })),
    [data?.appLog],
  );

  if (detail.error) return <ErrorView error={detail.error} onRetry={() => void detail.refetch()} />;
  if (!data) return <Spinner />;
  const { retry: retryReason, cancel: cancelReason } = actionReasons(
    auth,
    data.status,
    service.embedded,
  );
  const tabButton = (value: Tab, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={tab === value}
      onClick={() =>
        setSearch(freshParams(search, { tab: value === 'request' ? undefined : value }), {
          replace: true,
        })
      }
      className={`border-b-2 px-3 py-2 text-sm font-medium focus-visible:outline-2 focus-visible:outline-teal-600 ${
        tab === value
          ? 'border-teal-600 text-teal-800 dark:text-teal-300'
          : 'border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-300 dark:hover:text-white'
      }`}
    >
      {label}
    </button>
  );

  return (
    <div className="flex flex-col gap-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div>
          <Link
            to={paths.requests({ date: dayOfRequest(requestId), pipeline: data.pipelineId })}
            className="text-sm text-teal-700 hover:underline dark:text-teal-400"
          >
            {strings.back}
          </Link>
          <h1 className="mt-1 font-mono text-lg font-semibold">{data.requestId}</h1>
          {live ? (
            <p className="text-xs text-slate-500 dark:text-slate-400">{strings.polling}</p>
          ) : null}
        </div>
        <div className="flex gap-2">
          <Button disabledReason={retryReason} onClick={() => setAction('retry')}>
            {strings.retry}
          </Button>
          <Button
            variant="danger"
            disabledReason={cancelReason}
            onClick={() => setAction('cancel')}
          >
            {strings.cancel}
          </Button>
        </div>
      </div>
      <section
        aria-label={strings.summary}
        className="rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      >
        <Summary detail={data} />
        <h2 className="mt-5 mb-2 text-sm font-semibold">{strings.timeline}</h2>
        <Timeline detail={data} />
        {isAdministrator(auth) ? <ActionHistory requestId={requestId} /> : null}
      </section>
      <section>
        <div
          role="tablist"
          className="mb-3 flex gap-1 border-b border-slate-200 dark:border-slate-800"
        >
          {tabButton('request', `${strings.tabs.request} (${requestLines.length})`)}
          {tabButton('app', `${strings.tabs.app} (${appLines.length})`)}
          {tabButton('raw', strings.tabs.raw)}
        </div>
        {tab === 'request' ? (
          <LogView
            key="request"
            live={live}
            groupLabel={strings.log.filterStage}
            fileName={`${data.requestId}-request-log.txt`}
            lines={requestLines}
            group={search.get('group') ?? ''}
            query={search.get('find') ?? ''}
            onView={onLogView}
            columns={[
              { name: strings.log.requestColumns.date, width: '11rem' },
              { name: strings.log.requestColumns.stage, width: '5rem' },
              { name: strings.log.requestColumns.event, width: '4rem' },
              { name: strings.log.requestColumns.status, width: '5rem' },
              { name: strings.log.requestColumns.actionOrder, width: '6rem' },
              { name: strings.log.requestColumns.message, width: 'minmax(16rem, 1fr)' },
            ]}
          />
        ) : null}
        {tab === 'app' ? (
          <LogView
            key="app"
            live={live}
            groupLabel={strings.log.filterType}
            fileName={`${data.requestId}-application-log.txt`}
            lines={appLines}
            group={search.get('group') ?? ''}
            query={search.get('find') ?? ''}
            onView={onLogView}
            columns={[
              { name: strings.log.appColumns.index, width: '4rem' },
              { name: strings.log.appColumns.date, width: '5.5rem' },
              { name: strings.log.appColumns.type, width: '4rem' },
              { name: strings.log.appColumns.message, width: 'minmax(16rem, 1fr)' },
            ]}
          />
        ) : null}
        {tab === 'raw' ? <RawView requestId={data.requestId} /> : null}
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

/** Who retried or cancelled the request and when, from the audit log (administrators). */
function ActionHistory({ requestId }: { requestId: string }) {
  const audit = useAudit({ requestId, index: 0, size: 100 });
  const entries = (audit.data?.entries ?? []).filter((e) => /retry|cancel/i.test(e.operation));
  return (
    <div data-testid="action-history">
      <h2 className="mt-5 mb-2 text-sm font-semibold">{strings.history.title}</h2>
      {audit.error ? <ErrorView error={audit.error} /> : null}
      {audit.data && entries.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">{strings.history.none}</p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {entries.map((e, i) => (
            <li key={`${e.time}|${i}`} data-operation={e.operation}>
              <span className="font-medium">{e.userName}</span>{' '}
              <span className="font-mono text-xs">{e.operation}</span>{' '}
              <time dateTime={e.time} title={e.time} className="text-slate-600 dark:text-slate-400">
                {timeWithZone(e.time)}
              </time>
              {e.httpStatus !== null && e.httpStatus >= 400 ? (
                <span className="ml-2 text-red-700 dark:text-red-400">
                  {strings.history.refused}: {e.message}
                </span>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
