import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useClients } from '../../app/auth.ts';
import { requestKeys } from '../../shared/queries.ts';

// The pipeline list and resume/suspend are read by the overview and the requests page too,
// so they live in shared/queries.ts; what only this page does is here.

export function useExec() {
  const { pipeline } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, file, args }: { id: string; file: string; args: Record<string, string> }) =>
      pipeline.exec(id, file, args),
    // A new request shows up in the lists of requests; nothing else changes.
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
