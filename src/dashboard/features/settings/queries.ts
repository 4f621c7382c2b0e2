import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  HttpError,
  MC_SESSION_HEADER,
  ROLES,
  Transport,
  type ManagementConsoleClient,
  type Role,
} from '../../../kit/index.ts';
import { NO_COOKIES, useAuth, useClients } from '../../app/auth.ts';
import { mcapiGet } from '../../app/mcapi.ts';

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

/** Accepts the shared key, or personal tokens alone; answers the new settings. */
export function useSetSharedKeyEnabled() {
  const { console: mc } = useClients();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (enabled: boolean) => mc.setSharedKeyEnabled(enabled),
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

export interface NotificationsState {
  readonly targets: readonly string[];
  readonly notifications: readonly {
    readonly time: string;
    readonly target: string;
    readonly requestId: string;
    readonly status: string;
    readonly attempts: number;
    readonly outcome: string;
    readonly message: string;
  }[];
}

export interface TestResult {
  readonly target: string;
  readonly outcome: string;
  readonly message: string;
}

const list = (value: unknown): Record<string, unknown>[] =>
  Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => v !== null && typeof v === 'object')
    : [];
const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? ''));

/** Receivers and the notifications sent, newest first (administrators). */
export function useNotifications() {
  const auth = useAuth();
  return useQuery({
    queryKey: [...settingsKeys.all, 'notifications'],
    queryFn: async (): Promise<NotificationsState> => {
      const data = await mcapiGet(auth, '/notifications');
      return {
        targets: Array.isArray(data.targets) ? data.targets.map(text) : [],
        notifications: list(data.notifications).map((n) => ({
          time: text(n.time),
          target: text(n.target),
          requestId: text(n.requestId),
          status: text(n.status),
          attempts: Number(n.attempts ?? 0),
          outcome: text(n.outcome),
          message: text(n.message),
        })),
      };
    },
  });
}

/**
 * The test button: POST /mcapi/notifications/test with the session. The kit reads the
 * server's extensions by GET only, so this call reads the Part A envelope here (mcapiChange).
 */
export function useSendTestNotification() {
  const auth = useAuth();
  return useMutation({
    mutationFn: async (): Promise<TestResult[]> => {
      const data = await mcapiChange(auth, 'POST', '/mcapi/notifications/test');
      return list(data.results).map((r) => ({
        target: text(r.target),
        outcome: text(r.outcome),
        message: text(r.message),
      }));
    },
  });
}

/** A personal API token as its owner lists it (contract section 12): never its value. */
export interface PersonalToken {
  readonly id: number;
  readonly name: string;
  readonly role: Role;
  readonly service: string | null;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
}

/** A new token: its value is in this answer alone. */
export type NewToken = PersonalToken & { readonly token: string };

const roleOrViewer = (value: unknown): Role =>
  (ROLES as readonly unknown[]).includes(value) ? (value as Role) : 'viewer';

const tokenOf = (t: Record<string, unknown>): PersonalToken => ({
  id: Number(t.id ?? 0),
  name: text(t.name),
  role: roleOrViewer(t.role),
  service: typeof t.service === 'string' ? t.service : null,
  createdAt: text(t.createdAt),
  expiresAt: text(t.expiresAt),
  lastUsedAt: typeof t.lastUsedAt === 'string' ? t.lastUsedAt : null,
});

/** A Part A change with the session, its envelope read here (the kit reads only by GET). */
async function mcapiChange(
  auth: ReturnType<typeof useAuth>,
  method: 'POST' | 'DELETE',
  path: string,
  data?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const headers: Record<string, string> =
    auth?.kind === 'session' ? { [MC_SESSION_HEADER]: auth.sessionId } : {};
  const raw = await new Transport(NO_COOKIES).send(method, path, data, headers);
  let parsed: { result?: Record<string, unknown> } | undefined;
  try {
    parsed = JSON.parse(raw.body) as { result?: Record<string, unknown> };
  } catch {
    parsed = undefined;
  }
  const result = parsed?.result;
  if (raw.status >= 400 || result?.status !== 'success') {
    const code = typeof result?.code === 'number' ? result.code : undefined;
    const message = typeof result?.message === 'string' ? result.message : undefined;
    throw new HttpError(raw.status, raw.method, raw.url, code, message, raw.body);
  }
  return (result.data ?? {}) as Record<string, unknown>;
}

const tokensKey = [...settingsKeys.all, 'tokens'] as const;

/** The signed-in person's own tokens, newest first. */
export function usePersonalTokens() {
  const auth = useAuth();
  return useQuery({
    queryKey: tokensKey,
    queryFn: async (): Promise<PersonalToken[]> =>
      list((await mcapiGet(auth, '/tokens')).tokens).map(tokenOf),
    enabled: auth?.kind === 'session',
  });
}

export interface TokenRequest {
  readonly name: string;
  readonly expiresInDays: number;
  readonly role: Role;
  readonly service: string;
}

export function useCreateToken() {
  const auth = useAuth();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (asked: TokenRequest): Promise<NewToken> => {
      const data = await mcapiChange(auth, 'POST', '/mcapi/tokens', {
        name: asked.name,
        expiresInDays: String(asked.expiresInDays),
        role: asked.role,
        ...(asked.service ? { service: asked.service } : {}),
      });
      return { ...tokenOf(data), token: text(data.token) };
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
}

export function useRevokeToken() {
  const auth = useAuth();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: number) => {
      await mcapiChange(auth, 'DELETE', `/mcapi/tokens/${id}`);
    },
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokensKey }),
  });
}
