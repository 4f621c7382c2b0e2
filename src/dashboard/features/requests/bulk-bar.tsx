import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BulkAction, BulkSelection } from '../../../kit/index.ts';
import { useForbidden } from '../../core/auth.ts';
import { Button } from '../../components/button.tsx';
import { BulkDialog } from './bulk-dialog.tsx';
import { bulkSelectionOf, scopeText, useBulkJob } from './bulk.ts';
import type { RequestsView } from './view.ts';
import { useStatusSemantics } from '../../shared/use-status-semantics.ts';
import { useServiceDown } from '../../shared/service-down.ts';

const OPERATION = { retry: 'requestretry', cancel: 'requestcancel' } as const;

/**
 * A bulk job whose dialog was closed, as the page goes on showing it: its progress while it
 * runs, then what it came to, and a button that opens its dialog again.
 */
function FollowedJob({ jobId, onShow }: { jobId: number; onShow: () => void }) {
  const { t } = useTranslation('requests');
  const semantics = useStatusSemantics();
  const job = useBulkJob(jobId, undefined, semantics).data;
  if (!job) return null;
  const counts = { succeeded: job.succeeded, refused: job.refused, failed: job.failed };
  return (
    <p
      role="status"
      data-testid="bulk-followed"
      className="flex flex-wrap items-center justify-end gap-2 text-sm"
    >
      <span>
        {job.state === 'running'
          ? t('bulk.followRunning', { id: jobId, done: job.done, total: job.total })
          : job.state === 'stopped'
            ? t('bulk.followStopped', { id: jobId, ...counts })
            : t('bulk.followDone', { id: jobId, ...counts })}
      </span>
      <Button size="sm" onClick={onShow}>
        {t('bulk.followShow', { id: jobId })}
      </Button>
    </p>
  );
}

/**
 * "Retry all N requests in Error of pl_2 on <day>" and "Cancel all N waiting", for the day
 * and filters the page shows. N is the page's exact Total when the view filters statuses
 * the action takes; without a status filter the action takes its default status, and the
 * dry run tells the count. A role that may not act sees why, as text.
 */
export function BulkBar({ view, total }: { view: RequestsView; total: number | undefined }) {
  const { t, i18n } = useTranslation('requests');
  const forbidden = useForbidden();
  const [open, setOpen] = useState<BulkSelection>();
  // A job started here whose dialog was closed: the page follows it, and shows it again.
  const [followed, setFollowed] = useState<{ selection: BulkSelection; jobId: number }>();
  const [shown, setShown] = useState<number>();
  const semantics = useStatusSemantics();
  const down = useServiceDown();
  const offers = (['retry', 'cancel'] as const)
    .map((action) => ({ action, selection: bulkSelectionOf(action, view, semantics) }))
    .filter((o): o is { action: BulkAction; selection: BulkSelection } => !!o.selection)
    // A view of the action's own statuses with nothing in it has nothing to offer.
    .filter(() => view.status.length === 0 || total !== 0);
  const reasons = offers
    .map((o) => forbidden(OPERATION[o.action]))
    .filter((r): r is string => r !== undefined);
  const label = (action: BulkAction, selection: BulkSelection) => {
    const scope = scopeText(selection, t, i18n.language);
    const count = view.status.length > 0 ? total : undefined;
    if (count === undefined)
      return action === 'retry'
        ? t('bulk.openRetryAll', { scope })
        : t('bulk.openCancelAll', { scope });
    return action === 'retry'
      ? t('bulk.openRetry', { count, scope })
      : t('bulk.openCancel', { count, scope });
  };
  // The dialog keeps its place in the tree, so a job that empties the view (no offer left)
  // still reports to the end.
  return (
    <div
      className="flex flex-col items-end gap-1"
      data-testid={offers.length > 0 ? 'bulk-bar' : undefined}
    >
      {offers.length > 0 ? (
        <div className="flex flex-wrap justify-end gap-2">
          {offers.map(({ action, selection }) => (
            <Button
              key={action}
              size="sm"
              disabledReason={forbidden(OPERATION[action]) ?? down?.reason}
              onClick={() => setOpen(selection)}
              className="max-w-full"
            >
              {/* A long scope (and Japanese puts it first) wraps on a phone rather than
                  widening the page; the button itself keeps to one line where it fits. */}
              <span className="text-left whitespace-normal">{label(action, selection)}</span>
            </Button>
          ))}
        </div>
      ) : null}
      {offers.length > 0 && reasons.length > 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-300" data-testid="bulk-forbidden">
          {t('bulk.forbidden', { reason: [...new Set(reasons)].join(' ') })}
        </p>
      ) : null}
      {/* Kept while its dialog is open again: its button is where the focus goes back. */}
      {followed ? (
        <FollowedJob
          jobId={followed.jobId}
          onShow={() => {
            setShown(followed.jobId);
            setOpen(followed.selection);
          }}
        />
      ) : null}
      {open ? (
        <BulkDialog
          selection={open}
          shownJob={shown}
          onClose={(started) => {
            if (started !== undefined) setFollowed({ selection: open, jobId: started });
            setShown(undefined);
            setOpen(undefined);
          }}
        />
      ) : null}
    </div>
  );
}
