import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Pipeline, PipelineClient } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';
import { notify } from '../../app/notices.ts';
import { describeError } from '../../components/error-view.tsx';
import { requestKeys } from '../requests/keys.ts';
import { strings } from './strings.ts';

export const pipelineKeys = {
  all: ['pipelines'] as const,
  list: () => [...pipelineKeys.all, 'list'] as const,
};

export const pipelinesQuery = (client: PipelineClient) =>
  queryOptions({
    queryKey: pipelineKeys.list(),
    queryFn: () => client.listPipelines(),
    refetchInterval: 30_000,
  });

export function usePipelines() {
  return useQuery(pipelinesQuery(useClients().pipeline));
}

/** Resume or suspend, shown at once and put back if the service refuses. */
export function useSetRunmode() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, run }: { id: string; run: boolean }) =>
      run ? pipeline.resume(id) : pipeline.suspend(id),
    onMutate: async ({ id, run }) => {
      await queryClient.cancelQueries({ queryKey: pipelineKeys.list() });
      const previous = queryClient.getQueryData<Pipeline[]>(pipelineKeys.list());
      queryClient.setQueryData<Pipeline[]>(pipelineKeys.list(), (list) =>
        list?.map((p) => (p.id === id ? { ...p, runmode: run ? 'run' : 'stop' } : p)),
      );
      return { previous };
    },
    onError: (error, { id }, context) => {
      if (context?.previous) queryClient.setQueryData(pipelineKeys.list(), context.previous);
      const { message, code } = describeError(error);
      notify({ kind: 'error', text: `${strings.runmodeFailed(id)} ${message}`, code });
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: pipelineKeys.list() }),
  });
}

export function useExec() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, file, args }: { id: string; file: string; args: Record<string, string> }) =>
      pipeline.exec(id, file, args),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: requestKeys.lists() }),
  });
}

export function useClearCache() {
  const { pipeline } = useClients();
  return useMutation({
    mutationFn: ({
      id,
      stages,
    }: {
      id: string;
      stages: { sensor: boolean; filter: boolean; joint: boolean };
    }) => pipeline.clearCache(id, stages),
  });
}
