import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BulkOutcome, BulkSelection } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { describeError } from '../../shared/describe-error.ts';
import { Options, Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import {
  bulkStillRunning,
  bulkTitle,
  scopeText,
  useBulkJob,
  useBulkPreview,
  useStartBulk,
} from './bulk.ts';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';
import { needsMarking, serviceTitle } from '../../shared/environment.ts';
import { useServiceDown } from '../../shared/service-down.ts';
import { useCurrentService, useServices } from '../../shared/services.ts';

const OUTCOME_STYLE: Record<BulkOutcome, string> = {
  pending: 'text-slate-500 dark:text-slate-400',
  started: 'text-slate-500 dark:text-slate-400',
  ok: 'text-emerald-700 dark:text-emerald-400',
  refused: 'text-amber-800 dark:text-amber-300',
  failed: 'text-red-700 dark:text-red-400',
};

const SHOWN_OUTCOMES = ['ok', 'refused', 'failed', 'pending'] as const;

/**
 * A bulk retry or cancel by filter: the service's dry run first (the exact count and the
 * first ids), a reason, then the job, its progress and each request's outcome, and once it
 * is done, what became of the requests it was accepted for. It closes while its job runs
 * on (`onClose` hears of a job started here); `shownJob` opens it on a job already started.
 */
export function BulkDialog({
  selection,
  shownJob,
  onClose,
}: {
  selection: BulkSelection;
  shownJob?: number | undefined;
  onClose: (started: number | undefined) => void;
}) {
  const [jobId, setJobId] = useState<number | undefined>(shownJob);
  // A job shown again needs no dry run: what it takes was chosen when it started.
  const preview = useBulkPreview(selection, jobId === undefined);
  const start = useStartBulk();
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState<BulkOutcome>();
  const semantics = useStatusSemantics();
  const job = useBulkJob(jobId, outcome, semantics);
  const { t, i18n } = useTranslation('requests');
  const total = preview.data?.total;
  const retry = selection.action === 'retry';
  // Named as every confirmation names it, wherever another service could be meant.
  const current = useCurrentService();
  const { services } = useServices();
  const service = needsMarking(current, services.length) ? serviceTitle(current) : undefined;
  const down = useServiceDown();
  const title = bulkTitle(
    selection.action,
    total,
    // Started: under way until the job's first answer says more.
    jobId === undefined
      ? undefined
      : (job.data ?? { state: 'running', total: total ?? 0, succeeded: 0 }),
    service,
    t,
  );
  const count = (n: number) =>
    n === 0 ? t('bulk.countNone') : t(retry ? 'bulk.countRetry' : 'bulk.countCancel', { count: n });
  const run = () => {
    if (total === undefined) return;
    start.mutate(
      { selection, reason: reason.trim(), expect: total },
      {
        onSuccess: (started) => setJobId(started.jobId),
        // The selection changed since the dry run (409): show the new count to confirm again.
        onError: () => void preview.refetch(),
      },
    );
  };
  const running = job.data !== undefined && job.data.state === 'running';
  const close = () => onClose(jobId);
  return (
    <Dialog
      open
      wide
      title={title}
      onClose={close}
      footer={
        jobId === undefined ? (
          <>
            <Button onClick={close}>{t('bulk.keep')}</Button>
            <Button
              variant={selection.action === 'cancel' ? 'danger' : 'primary'}
              disabled={!total || reason.trim() === '' || start.isPending}
              // A service that went down while the dialog was open refuses before it is asked.
              disabledReason={down?.reason}
              onClick={run}
            >
              {t(retry ? 'bulk.goRetry' : 'bulk.goCancel', { count: total ?? 0 })}
            </Button>
          </>
        ) : (
          // The job runs on the server: closing the dialog leaves it running, and the page
          // goes on showing its progress (BulkBar).
          <Button onClick={close}>{t(running ? 'bulk.closeRunning' : 'bulk.close')}</Button>
        )
      }
    >
      <p className="mb-3" data-testid="bulk-scope">
        {t('bulk.scopeSentence', { scope: scopeText(selection, t, i18n.language) })}
      </p>
      {preview.error && jobId === undefined ? (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {describeError(preview.error).message}
        </p>
      ) : null}
      {jobId === undefined && !preview.data ? (
        <Spinner />
      ) : jobId === undefined && preview.data ? (
        <>
          <p className="mb-2 font-medium" data-testid="bulk-count">
            {count(preview.data.total)}
          </p>
          {preview.data.requestIds.length > 0 ? (
            <ul className="mb-3 flex flex-col gap-0.5 font-mono text-xs" data-testid="bulk-first">
              {preview.data.requestIds.map((id) => (
                <li key={id}>{id}</li>
              ))}
              {preview.data.total > preview.data.requestIds.length ? (
                <li className="font-sans text-slate-500 dark:text-slate-400">
                  {t('bulk.more', { count: preview.data.total - preview.data.requestIds.length })}
                </li>
              ) : null}
            </ul>
          ) : null}
          {start.error ? (
            <p role="alert" className="mb-2 text-red-700 dark:text-red-400">
              {describeError(start.error).message}
            </p>
          ) : null}
          <label className="flex flex-col gap-1">
            <span className="font-medium">{t('bulk.reason')}</span>
            <textarea
              value={reason}
              maxLength={500}
              rows={2}
              required
              onChange={(e) => setReason(e.target.value)}
              className="rounded-md border border-slate-300 px-2.5 py-1.5 dark:border-slate-600 dark:bg-slate-800"
            />
            <span className="text-xs text-slate-500 dark:text-slate-400">
              {t('bulk.reasonHint')}
            </span>
          </label>
        </>
      ) : !job.data ? (
        <Spinner />
      ) : (
        <>
          <div className="mb-2 flex items-center gap-3">
            <progress
              className="h-2 flex-1"
              max={Math.max(1, job.data.total)}
              value={job.data.done}
              aria-label={t('bulk.progressLabel')}
            />
            <span data-testid="bulk-progress" className="tabular-nums">
              {t('bulk.progress', { done: job.data.done, total: job.data.total })}
            </span>
          </div>
          <p className="mb-2" data-testid="bulk-outcomes" role="status">
            {t(
              job.data.state === 'done'
                ? 'bulk.outcomesDone'
                : job.data.state === 'stopped'
                  ? 'bulk.outcomesStopped'
                  : 'bulk.outcomesRunning',
              {
                succeeded: job.data.succeeded,
                refused: job.data.refused,
                failed: job.data.failed,
              },
            )}
          </p>
          {running ? (
            <p className="mb-2 text-slate-600 dark:text-slate-300" data-testid="bulk-goes-on">
              {t('bulk.goesOn')}
            </p>
          ) : null}
          {job.data.stopped !== null ? (
            // Its starter lost the role it needs: the service says who and why, as written.
            <p className="mb-2 text-amber-800 dark:text-amber-300" data-testid="bulk-stopped">
              {t('bulk.stoppedWhy', { message: job.data.stopped })}
            </p>
          ) : null}
          {job.data.now && job.data.now.accepted > 0 ? (
            <p className="mb-2" data-testid="bulk-now" role="status">
              {t(bulkStillRunning(job.data, semantics) ? 'bulk.nowUpdating' : 'bulk.now', {
                accepted: job.data.now.accepted,
                list: new Intl.ListFormat(i18n.language, { type: 'conjunction' }).format([
                  ...job.data.now.statuses.map((s) =>
                    t('bulk.nowStatus', { count: s.count, status: s.status }),
                  ),
                  ...(job.data.now.unknown > 0
                    ? [t('bulk.nowUnknown', { count: job.data.now.unknown })]
                    : []),
                ]),
              })}
            </p>
          ) : null}
          <label className="mb-2 flex items-center gap-2">
            <span>{t('bulk.show')}</span>
            <Select
              value={outcome ?? ''}
              onChange={(e) => setOutcome((e.target.value || undefined) as BulkOutcome)}
            >
              <option value="">{t('bulk.all')}</option>
              <Options values={SHOWN_OUTCOMES} label={(o) => t(`bulk.outcome.${o}`)} />
            </Select>
          </label>
          <ul className="flex flex-col gap-0.5 text-xs" data-testid="bulk-items">
            {job.data.items.map((item) => (
              <li
                key={item.requestId}
                data-request={item.requestId}
                className="flex flex-wrap justify-between gap-2"
              >
                <span className="font-mono">{item.requestId}</span>
                <span className={OUTCOME_STYLE[item.outcome]}>
                  {/* An accepted call's "Success" is the service taking the call, not the
                      request succeeding: the line below says what became of it. */}
                  {item.message && item.outcome !== 'ok'
                    ? t('bulk.outcomeWhy', {
                        outcome: t(`bulk.outcome.${item.outcome}`),
                        message: item.message,
                      })
                    : t(`bulk.outcome.${item.outcome}`)}
                </span>
              </li>
            ))}
          </ul>
          {(job.data.itemTotal ?? 0) > job.data.items.length ? (
            <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              {t('bulk.firstItems', {
                shown: job.data.items.length,
                total: job.data.itemTotal ?? 0,
              })}
            </p>
          ) : null}
        </>
      )}
    </Dialog>
  );
}
