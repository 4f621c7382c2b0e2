import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import {
  TERMINAL_STATUSES,
  type BulkAction,
  type BulkJob,
  type BulkOutcome,
  type BulkSelection,
  type RequestStatus,
} from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { auditKeys } from '../../shared/audit.ts';
import { requestKeys } from '../../shared/queries.ts';
import { ymdToIso } from '../../paths.ts';

/** Statuses each bulk action takes (README "Bulk retry and cancel"), the first its default. */
export const BULK_STATUSES: Readonly<Record<BulkAction, readonly string[]>> = {
  retry: ['Error', 'Stop'],
  cancel: ['Wait', 'Start', 'Process'],
};

/**
 * The bulk action a view of the requests page offers: its own statuses when the action
 * takes them all, the action's default when the view filters none, else nothing.
 */
export function bulkSelectionOf(
  action: BulkAction,
  view: {
    date: string;
    pipeline: string | undefined;
    status: readonly string[];
    q: string | undefined;
  },
): BulkSelection | undefined {
  const allowed = BULK_STATUSES[action];
  if (view.status.length > 0 && !view.status.every((s) => allowed.includes(s))) return undefined;
  return {
    action,
    date: view.date,
    id: view.pipeline,
    statuses: view.status.length > 0 ? view.status : [allowed[0] as string],
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
export function useBulkPreview(selection: BulkSelection) {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: bulkKeys.preview(selection),
    queryFn: () => pipeline.bulk.preview(selection),
    staleTime: 0,
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

/** Whether any of a finished job's accepted requests may still change (a status not final of ours). */
export function bulkStillRunning(job: BulkJob | undefined): boolean {
  return (
    job?.now?.statuses.some((s) => !TERMINAL_STATUSES.includes(s.status as RequestStatus)) ?? false
  );
}

/**
 * A job's progress and its requests, asked every second until it is done; then every 2 s
 * while what became of its requests may still change.
 */
export function useBulkJob(jobId: number | undefined, outcome: BulkOutcome | undefined) {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: bulkKeys.job(jobId ?? 0, outcome),
    queryFn: async () => {
      const job = await pipeline.bulk.job(jobId as number, { outcome, pageSize: 200 });
      // Each batch changes requests: the lists and counts behind the dialog follow.
      await queryClient.invalidateQueries({ queryKey: requestKeys.lists() });
      return job;
    },
    enabled: jobId !== undefined,
    refetchInterval: (query) => {
      const job = query.state.data;
      if (job === undefined || job.state === 'running') return 1000;
      return bulkStillRunning(job) ? 2000 : false;
    },
  });
}
