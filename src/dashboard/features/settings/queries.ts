import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  ManagementConsoleClient,
  NewToken,
  NotificationsState,
  NotificationTestResult,
  TokenRequest,
  TokensAnswer,
} from '../../../kit/index.ts';
import { useAuth, useClients } from '../../core/auth.ts';

export const settingsKeys = {
  all: ['settings'] as const,
  api: () => [...settingsKeys.all, 'api'] as const,
};

export const apiSettingsQuery = (client: ManagementConsoleClient) =>
  queryOptions({
    queryKey: settingsKeys.api(),
    queryFn: ({ signal }) => client.settings({ signal }),
  });

export function useApiSettings() {
  return useQuery(apiSettingsQuery(useClients().console));
}

/** A switch of the pipeline API's settings (administrators). */
export type SettingSwitch = 'apiEnabled' | 'sharedKeyEnabled';

/**
 * A switch answers the new settings, so they replace the cached ones without a read. The
 * shared key's switch accepts it, or personal tokens alone.
 */
export function useSetSetting(setting: SettingSwitch) {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) =>
      setting === 'apiEnabled' ? mc.setApiEnabled(enabled) : mc.setSharedKeyEnabled(enabled),
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

/** Receivers and the notifications sent, newest first (administrators). */
export function useNotifications() {
  const { console: mc } = useClients();
  return useQuery({
    queryKey: [...settingsKeys.all, 'notifications'],
    queryFn: ({ signal }): Promise<NotificationsState> => mc.notifications({ signal }),
  });
}

/** The test button: a test message to every receiver, and how each went. */
export function useSendTestNotification() {
  const { console: mc } = useClients();
  return useMutation({
    mutationFn: (): Promise<NotificationTestResult[]> => mc.testNotifications(),
  });
}

const tokensKey = [...settingsKeys.all, 'tokens'] as const;

/**
 * The signed-in person's own tokens, newest first, and those revoked lately; an
 * administrator's view of another person's when `user` names one.
 */
export function usePersonalTokens(user?: string) {
  const auth = useAuth();
  const { console: mc } = useClients();
  return useQuery({
    queryKey: [...tokensKey, user ?? ''],
    queryFn: ({ signal }): Promise<TokensAnswer> =>
      mc.tokens({ signal, ...(user === undefined ? {} : { user }) }),
    enabled: auth?.kind === 'session',
  });
}

export function useCreateToken() {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (asked: TokenRequest): Promise<NewToken> => mc.createToken(asked),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
}

export function useRevokeToken() {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => mc.revokeToken(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
}
