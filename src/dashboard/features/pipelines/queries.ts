import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useClients } from '../../core/auth.ts';
import { requestKeys } from '../../shared/queries.ts';

// The pipeline list and resume/suspend are read by the overview and the requests page too,
// so they live in shared/queries.ts; what only this page does is here.

/**
 * The inbox's files exec may name (contract section 10). A service without such a list
 * (a vendor's, behind the gateway) refuses it: asked once, not retried, and the dialog
 * falls back to a typed name.
 */
export function useInbox() {
  const { pipeline } = useClients();
  return useQuery({
    queryKey: ['inbox'],
    queryFn: ({ signal }) => pipeline.inbox('json', { signal }),
    retry: false,
    staleTime: 0,
  });
}

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
