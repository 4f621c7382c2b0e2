import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ManagementConsoleClient } from '../../../kit/index.ts';
import { useClients } from '../../app/auth.ts';

export const settingsKeys = {
  all: ['settings'] as const,
  api: () => [...settingsKeys.all, 'api'] as const,
};

export const apiSettingsQuery = (client: ManagementConsoleClient) =>
  queryOptions({ queryKey: settingsKeys.api(), queryFn: () => client.settings() });

export function useApiSettings() {
  return useQuery(apiSettingsQuery(useClients().console));
}

/** The switch answers the new settings, so they replace the cached ones without a read. */
export function useSetApiEnabled() {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => mc.setApiEnabled(enabled),
    onSuccess: (data) => queryClient.setQueryData(settingsKeys.api(), data),
  });
}

/** A new key: the settings, which show it, are read again. */
export function useReissueApiKey() {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => mc.reissueApiKey(),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: settingsKeys.api() }),
  });
}
