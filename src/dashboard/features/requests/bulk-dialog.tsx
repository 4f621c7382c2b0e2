import { useState } from 'react';
import type { BulkOutcome, BulkSelection } from '../../../kit/index.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { describeError } from '../../components/error-view.tsx';
import { Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useBulkJob, useBulkPreview, useStartBulk } from './bulk.ts';
import { strings } from './strings.ts';

const OUTCOME_STYLE: Record<BulkOutcome, string> = {
  pending: 'text-slate-500 dark:text-slate-400',
  started: 'text-slate-500 dark:text-slate-400',
  ok: 'text-emerald-700 dark:text-emerald-400',
  refused: 'text-amber-800 dark:text-amber-300',
  failed: 'text-red-700 dark:text-red-400',
};

/**
 * A bulk retry or cancel by filter: the service's dry run first (the exact count and the
 * first ids), a reason, then the job, its progress and each request's outcome.
 */
export function BulkDialog({
  selection,
  onClose,
}: {
  selection: BulkSelection;
  onClose: () => void;
}) {
  const preview = useBulkPreview(selection);
  const start = useStartBulk();
  const [reason, setReason] = useState('');
  const [jobId, setJobId] = useState<number>();
  const [outcome, setOutcome] = useState<BulkOutcome>();
  const job = useBulkJob(jobId, outcome);
  const text = strings.bulk;
  const total = preview.data?.total;
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
  return (
    <Dialog
      open
      wide
      title={text.title(selection.action, total)}
      onClose={onClose}
      footer={
        jobId === undefined ? (
          <>
            <Button onClick={onClose}>{strings.bulk.keep}</Button>
            <Button
              variant={selection.action === 'cancel' ? 'danger' : 'primary'}
              disabled={!total || reason.trim() === '' || start.isPending}
              onClick={run}
            >
              {text.go(selection.action, total ?? 0)}
            </Button>
          </>
        ) : (
          <Button onClick={onClose} disabled={running}>
            {text.close}
          </Button>
        )
      }
    >
      <p className="mb-3" data-testid="bulk-scope">
        {text.scope(selection)}
      </p>
      {preview.error ? (
        <p role="alert" className="text-red-700 dark:text-red-400">
          {describeError(preview.error).message}
        </p>
      ) : null}
      {!preview.data ? (
        <Spinner />
      ) : jobId === undefined ? (
        <>
          <p className="mb-2 font-medium" data-testid="bulk-count">
            {text.count(selection.action, preview.data.total)}
          </p>
          {preview.data.requestIds.length > 0 ? (
            <ul className="mb-3 flex flex-col gap-0.5 font-mono text-xs" data-testid="bulk-first">
              {preview.data.requestIds.map((id) => (
                <li key={id}>{id}</li>
              ))}
              {preview.data.total > preview.data.requestIds.length ? (
                <li className="font-sans text-slate-500 dark:text-slate-400">
                  {text.more(preview.data.total - preview.data.requestIds.length)}
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
            <span className="font-medium">{text.reason}</span>
            <textarea
              value={reason}
              maxLength={500}
              rows={2}
              required
              onChange={(e) => setReason(e.target.value)}
              className="rounded-md border border-slate-300 px-2.5 py-1.5 dark:border-slate-600 dark:bg-slate-800"
            />
            <span className="text-xs text-slate-500 dark:text-slate-400">{text.reasonHint}</span>
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
              aria-label={text.progressLabel}
            />
            <span data-testid="bulk-progress" className="tabular-nums">
              {text.progress(job.data.done, job.data.total)}
            </span>
          </div>
          <p className="mb-2" data-testid="bulk-outcomes" role="status">
            {text.outcomes(job.data)}
          </p>
          <label className="mb-2 flex items-center gap-2">
            <span>{text.show}</span>
            <Select
              value={outcome ?? ''}
              onChange={(e) => setOutcome((e.target.value || undefined) as BulkOutcome)}
            >
              <option value="">{text.all}</option>
              {(['ok', 'refused', 'failed', 'pending'] as const).map((o) => (
                <option key={o} value={o}>
                  {text.outcome[o]}
                </option>
              ))}
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
                  {text.outcome[item.outcome]}
                  {item.message ? ` — ${item.message}` : ''}
                </span>
              </li>
            ))}
          </ul>
          {(job.data.itemTotal ?? 0) > job.data.items.length ? (
            <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">
              {text.firstItems(job.data.items.length, job.data.itemTotal ?? 0)}
            </p>
          ) : null}
        </>
      )}
    </Dialog>
  );
}
