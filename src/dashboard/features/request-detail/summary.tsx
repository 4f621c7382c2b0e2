import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { failureWordsOf, type RequestDetail } from '../../../kit/index.ts';
import { StageBadge, StatusBadge } from '../../components/badge.tsx';
import { ServiceTime } from '../../components/time.tsx';
import { isLive } from './queries.ts';
import { stageSeconds } from './stage-time.ts';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';

const STAGE_ORDER: readonly string[] = ['Sensor', 'Filter', 'Joint'];

/**
 * Each stage's time and its rows (read by the Sensor, kept by the Filter, written by the
 * Joint; contract section 10), updated while the request runs. A stage without a time says
 * "not yet" while the request may still reach it; once it has ended, the stage it ended in
 * says so, and the stages after it "did not run".
 */
export function Timeline({ detail }: { detail: RequestDetail }) {
  const { t } = useTranslation('requestDetail');
  const live = isLive(detail);
  // The service's names of its stages: data, as the service writes them.
  const stages = [
    {
      name: 'Sensor',
      time: detail.sensorTime,
      rows: detail.sensorRows,
      rowsKey: 'rows.sensor',
      color: 'bg-violet-500',
    },
    {
      name: 'Filter',
      time: detail.filterTime,
      rows: detail.filterKept,
      rowsKey: 'rows.filter',
      color: 'bg-indigo-500',
    },
    {
      name: 'Joint',
      time: detail.jointTime,
      rows: detail.jointRows,
      rowsKey: 'rows.joint',
      color: 'bg-cyan-500',
    },
  ] as const;
  const endedAt = STAGE_ORDER.indexOf(detail.stage);
  const noTime = (name: string) => {
    if (live) return t('notYet');
    const at = STAGE_ORDER.indexOf(name);
    if (endedAt >= 0 && at === endedAt && detail.status !== 'Finish') return t('endedHere');
    if (endedAt >= 0 && at < endedAt) return t('noTime');
    return t('didNotRun');
  };
  const longest = Math.max(1, ...stages.map((s) => stageSeconds(s.time) ?? 0));
  return (
    <ul className="grid gap-2 sm:grid-cols-3" data-testid="timeline">
      {stages.map((stage) => {
        const value = stageSeconds(stage.time);
        return (
          <li
            key={stage.name}
            data-stage={stage.name}
            className="rounded-md border border-slate-200 p-3 dark:border-slate-800"
          >
            <div className="flex items-baseline justify-between gap-2 text-sm">
              <span className="font-medium">{stage.name}</span>
              <span
                className="font-mono text-xs text-slate-600 dark:text-slate-300"
                data-testid="stage-time"
              >
                {stage.time || noTime(stage.name)}
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
            {stage.rows !== undefined ? (
              <p
                className="mt-1.5 text-xs text-slate-600 tabular-nums dark:text-slate-300"
                data-testid="stage-rows"
              >
                {t(stage.rowsKey, { count: stage.rows })}
              </p>
            ) : null}
          </li>
        );
      })}
    </ul>
  );
}

export function Summary({ detail }: { detail: RequestDetail }) {
  const { t } = useTranslation('requestDetail');
  const none = t('noValue');
  const item = (label: string, value: ReactNode) => (
    <div>
      <dt className="text-xs font-medium text-slate-600 uppercase dark:text-slate-400">{label}</dt>
      {/* Words wrap between words (a time keeps its zone whole); ids and file names anywhere. */}
      <dd className="mt-0.5 text-sm break-words">{value}</dd>
    </div>
  );
  // An ended request that says why it failed (or is in Error without a word) shows why first:
  // the reason is what an operator opened the page for.
  const failedWords = useStatusSemantics().failed;
  const failure = isLive(detail)
    ? undefined
    : failureWordsOf(detail, (status) => failedWords.includes(status));
  const failed = failure !== undefined || (failedWords.includes(detail.status) && !isLive(detail));
  return (
    <>
      {failed ? (
        <div
          data-testid="failure"
          className="mb-4 rounded-md border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
        >
          <p className="font-semibold">{t('fields.failure')}</p>
          <p className="mt-0.5 break-words whitespace-pre-wrap">
            {failure ?? t('noFailureMessage')}
          </p>
        </div>
      ) : null}
      <dl className="grid grid-cols-2 gap-x-6 gap-y-3 md:grid-cols-4">
        {item(
          t('fields.requestId'),
          <span className="font-mono break-all">{detail.requestId}</span>,
        )}
        {item(
          t('fields.pipeline'),
          <>
            {detail.name}{' '}
            <span className="font-mono text-xs text-slate-600 dark:text-slate-400">
              {detail.pipelineId}
            </span>
          </>,
        )}
        {item(t('fields.status'), <StatusBadge status={detail.status} />)}
        {item(t('fields.stage'), <StageBadge stage={detail.stage} />)}
        {item(
          t('fields.begin'),
          detail.beginTime ? <ServiceTime stamp={detail.beginTime} /> : none,
        )}
        {item(t('fields.end'), detail.endTime ? <ServiceTime stamp={detail.endTime} /> : none)}
        {item(
          t('fields.file'),
          <span className="font-mono break-all">{detail.sensorFile || none}</span>,
        )}
        {item(t('fields.size'), detail.fileSize || none)}
      </dl>
    </>
  );
}
