import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { runmodeState, type Pipeline, type PipelineClient } from '../../kit/index.ts';
import { useClients } from '../core/auth.ts';
import { autoRefresh, POLL_MS } from '../core/auto-refresh.ts';
import { notify } from '../core/notices.ts';
import { describeError } from './describe-error.ts';
import { i18n } from '../i18n/index.ts';
import { auditKeys } from './audit.ts';

/**
 * Queries and keys that more than one feature reads or invalidates. A feature's own live in
 * its queries.ts; features never import each other's, so what two need is here.
 */

/** What a request list is asked for; part of its key, so each page is cached on its own. */
export interface RequestListParams {
  readonly date: string;
  readonly id: string | undefined;
  readonly index: number;
  readonly size: number;
  /** Only these statuses (the service filters; none means all). */
  readonly status: readonly string[];
  /** A substring of the request id, file name or error message, found by the service. */
  readonly q: string | undefined;
}

export const requestKeys = {
  all: ['requests'] as const,
  /** Every list of requests: the requests page's pages and the overview's days. */
  lists: () => [...requestKeys.all, 'list'] as const,
  list: (params: RequestListParams) => [...requestKeys.lists(), params] as const,
  day: (date: string) => [...requestKeys.lists(), 'day', date] as const,
  /** A day's exact counts (requeststats): under the lists, so an action refreshes them too. */
  stats: (date: string) => [...requestKeys.lists(), 'stats', date] as const,
  /** The newest errors of a day, read again when the day's count of errors changes. */
  latestErrors: (date: string, errors: number) =>
    [...requestKeys.lists(), 'latest-errors', date, errors] as const,
  /** A request's detail and everything derived from it (error message, raw answer). */
  detail: (requestId: string) => [...requestKeys.all, 'detail', requestId] as const,
  errorMessage: (requestId: string) => [...requestKeys.detail(requestId), 'error-message'] as const,
  raw: (requestId: string, format: 'xml' | 'json') =>
    [...requestKeys.detail(requestId), 'raw', format] as const,
};

/** A request's attempts (request detail): here, since a retry or cancel refreshes them. */
export const attemptKeys = {
  all: ['attempts'] as const,
  of: (service: string | undefined, requestId: string) =>
    ['attempts', service ?? '', requestId] as const,
};

export const pipelineKeys = {
  all: ['pipelines'] as const,
  list: () => [...pipelineKeys.all, 'list'] as const,
};

export const serviceKeys = {
  version: () => ['service', 'version'] as const,
};

export const pipelinesQuery = (client: PipelineClient) =>
  queryOptions({
    queryKey: pipelineKeys.list(),
    queryFn: ({ signal }) => client.listPipelines('json', { signal }),
    ...autoRefresh(POLL_MS.pipelines),
  });

export const versionQuery = (client: PipelineClient) =>
  queryOptions({
    queryKey: serviceKeys.version(),
    queryFn: ({ signal }) => client.version('json', { signal }),
    staleTime: 60_000,
  });

export function usePipelines() {
  return useQuery(pipelinesQuery(useClients().pipeline));
}

export function useVersion() {
  return useQuery(versionQuery(useClients().pipeline));
}

/**
 * Resume or suspend, shown at once and put back if the service refuses. A suspend's
 * `reason` (asked on a production service) is kept in the server's audit log.
 */
export function useSetRunmode() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, run, reason }: { id: string; run: boolean; reason?: string }) =>
      run
        ? pipeline.resume(id)
        : reason === undefined
          ? pipeline.suspend(id)
          : pipeline.suspendWithReason(id, reason),
    onMutate: async ({ id, run }) => {
      await queryClient.cancelQueries({ queryKey: pipelineKeys.list() });
      const previous = queryClient.getQueryData<Pipeline[]>(pipelineKeys.list());
      // A word the dashboard cannot tell stays until the service writes the new one: the
      // buttons it is shown with (and the focus on them) stay where they are meanwhile.
      queryClient.setQueryData<Pipeline[]>(pipelineKeys.list(), (list) =>
        list?.map((p) =>
          p.id === id && runmodeState(p.runmode) !== 'unknown'
            ? { ...p, runmode: run ? 'run' : 'stop' }
            : p,
        ),
      );
      return { previous };
    },
    // What the service said, not only that the switch moved.
    onSuccess: (result, { id, run }) => {
      notify({
        kind: 'success',
        text: i18n.t(run ? 'runmodeDone.run' : 'runmodeDone.stop', {
          ns: 'pipelines',
          id,
          status: result.status,
          message: result.message,
        }),
      });
    },
    onError: (error, { id }, context) => {
      if (context?.previous) queryClient.setQueryData(pipelineKeys.list(), context.previous);
      const { message, code } = describeError(error);
      const failed = i18n.t('runmodeFailed', { ns: 'pipelines', id });
      notify({ kind: 'error', text: `${failed} ${message}`, code });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: pipelineKeys.list() }),
  });
}

/** Retry or cancel one request; the lists and its detail are refreshed after. */
export function useRequestAction() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ action, requestId }: { action: 'retry' | 'cancel'; requestId: string }) =>
      action === 'retry' ? pipeline.retry(requestId) : pipeline.cancel(requestId),
    onSettled: async (_data, _error, { requestId }) => {
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: requestKeys.lists() }),
        queryClient.invalidateQueries({ queryKey: requestKeys.detail(requestId) }),
        // The audit log has a new entry: who did it, shown on the request's detail.
        queryClient.invalidateQueries({ queryKey: auditKeys.all }),
        // A retry begins an attempt; a cancel ends one, and says who.
        queryClient.invalidateQueries({ queryKey: attemptKeys.all }),
      ]);
    },
  });
}
