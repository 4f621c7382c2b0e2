import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import {
  CONTRACT_STATUSES,
  type BulkAction,
  type BulkJob,
  type BulkOutcome,
  type BulkSelection,
  type StatusSemantics,
} from '../../../kit/index.ts';
import { useClients } from '../../core/auth.ts';
import { autoRefresh, POLL_MS } from '../../core/auto-refresh.ts';
import { auditKeys } from '../../shared/audit.ts';
import { requestKeys } from '../../shared/queries.ts';
import { ymdToIso } from '../../paths.ts';
import { defaultBulkStatuses, statusClass } from '../../core/status-semantics.ts';

/**
 * The bulk action a view of the requests page offers: its own statuses when the service's
 * words let the action take them all (a word the service does not classify is its to
 * decide), the action's default when the view filters none (the service's failed words it
 * retries: Error and Abort for a vendor that fails so; its waiting words for a cancel),
 * else nothing.
 */
export function bulkSelectionOf(
  action: BulkAction,
  view: {
    date: string;
    pipeline: string | undefined;
    status: readonly string[];
    q: string | undefined;
  },
  semantics: StatusSemantics = CONTRACT_STATUSES,
): BulkSelection | undefined {
  const takes = (s: string) => statusClass(semantics, s)[action] !== 'no';
  if (view.status.length > 0 && !view.status.every(takes)) return undefined;
  const defaults = defaultBulkStatuses(semantics, action);
  if (view.status.length === 0 && defaults.length === 0) return undefined;
  return {
    action,
    date: view.date,
    id: view.pipeline,
    statuses: view.status.length > 0 ? view.status : defaults,
    q: view.q,
  };
}

/**
 * The requests a selection takes, as words: "in Error or Stop of pl_2 on 2026-10-18
 * matching “reader 7”". Statuses are the service's words, joined as the language lists
 * alternatives.
 */
export function scopeText(
  s: Pick<BulkSelection, 'statuses' | 'id' | 'date' | 'q'>,
  t: TFunction<'requests'>,
  language: string,
): string {
  const statuses = new Intl.ListFormat(language, { type: 'disjunction' }).format(s.statuses ?? []);
  const values = { statuses, day: ymdToIso(s.date), pipeline: s.id ?? '', q: s.q ?? '' };
  if (s.id && s.q) return t('bulk.scope.dayPipelineQuery', values);
  if (s.id) return t('bulk.scope.dayPipeline', values);
  if (s.q) return t('bulk.scope.dayQuery', values);
  return t('bulk.scope.day', values);
}

const bulkKeys = {
  preview: (s: BulkSelection) => ['bulk', 'preview', s] as const,
  job: (jobId: number, outcome: BulkOutcome | undefined) =>
    ['bulk', 'job', jobId, outcome ?? 'all'] as const,
};

/** The dry run: the exact count and the first ids, changing nothing. Never cached for long. */
export function useBulkPreview(selection: BulkSelection, enabled = true) {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: bulkKeys.preview(selection),
    queryFn: ({ signal }) => pipeline.bulk.preview(selection, { signal }),
    staleTime: 0,
    enabled,
  });
}

export function useStartBulk() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({
      selection,
      reason,
      expect,
    }: {
      selection: BulkSelection;
      reason: string;
      expect: number;
    }) => pipeline.bulk.start(selection, reason, expect),
    onSettled: () => queryClient.invalidateQueries({ queryKey: auditKeys.all }),
  });
}

/** Whether any of a finished job's accepted requests may still change (a status not final on the service). */
export function bulkStillRunning(
  job: BulkJob | undefined,
  semantics: StatusSemantics = CONTRACT_STATUSES,
): boolean {
  return job?.now?.statuses.some((s) => !statusClass(semantics, s.status).final) ?? false;
}

/**
 * A job's progress and its requests, asked every second until it is done; then every 2 s
 * while what became of its requests may still change.
 */
export function useBulkJob(
  jobId: number | undefined,
  outcome: BulkOutcome | undefined,
  semantics: StatusSemantics = CONTRACT_STATUSES,
) {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: bulkKeys.job(jobId ?? 0, outcome),
    queryFn: async ({ signal }) => {
      const job = await pipeline.bulk.job(jobId as number, { outcome, pageSize: 200 }, { signal });
      // Each batch changes requests: the lists and counts behind the dialog follow.
      await queryClient.invalidateQueries({ queryKey: requestKeys.lists() });
      return job;
    },
    enabled: jobId !== undefined,
    ...autoRefresh<BulkJob>((job) => {
      if (job === undefined || job.state === 'running') return POLL_MS.bulkRunning;
      return bulkStillRunning(job, semantics) ? POLL_MS.bulkSettling : false;
    }),
  });
}

/**
 * The bulk dialog's title, naming the service when there is one to name: the question
 * while the dry run is read and asked ("Retry 39 requests on Tokyo prod?"), then what the
 * job does and did ("Retrying…", "Retried 39 requests on Tokyo prod", "37 of 39…"), so that
 * a dialog whose job is done never still asks.
 */
export function bulkTitle(
  action: BulkAction,
  total: number | undefined,
  job: Pick<BulkJob, 'state' | 'total' | 'succeeded'> | undefined,
  service: string | undefined,
  t: TFunction<'requests'>,
): string {
  const retry = action === 'retry';
  const on = service === undefined ? '' : 'On';
  const key = (name: string) => `bulk.${name}${on}` as 'bulk.titleRetry';
  if (job === undefined) {
    if (total === undefined)
      return t(key(retry ? 'titleRetryFilter' : 'titleCancelFilter'), { service });
    return t(key(retry ? 'titleRetry' : 'titleCancel'), { count: total, service });
  }
  if (job.state === 'running')
    return t(key(retry ? 'titleRetrying' : 'titleCancelling'), { count: job.total, service });
  if (job.state === 'stopped')
    return t(key(retry ? 'titleRetryStopped' : 'titleCancelStopped'), {
      accepted: job.succeeded,
      count: job.total,
      service,
    });
  if (job.succeeded === job.total)
    return t(key(retry ? 'titleRetried' : 'titleCancelled'), { count: job.total, service });
  return t(key(retry ? 'titleRetriedSome' : 'titleCancelledSome'), {
    accepted: job.succeeded,
    count: job.total,
    service,
  });
}
