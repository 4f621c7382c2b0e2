import { useQuery } from '@tanstack/react-query';
import type { TFunction } from 'i18next';
import { useSyncExternalStore } from 'react';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n/index.ts';
import {
  ManagementConsoleClient,
  PipelineClient,
  ROLE_OPERATIONS,
  type OperationName,
  type Role,
} from '../../kit/index.ts';
import { readStored, writeStored } from './storage.ts';
import { BASE_PATH } from './base-path.ts';
import { basePathOf, currentService } from './current-service.ts';
import { roleHere, serviceRolesQuery, serviceShown, type RoleHere } from './service-roles.ts';

/** Who is signed in, and with what. */
export type Auth =
  | {
      readonly kind: 'session';
      readonly sessionId: string;
      readonly userName: string;
      readonly role: Role;
      readonly serverName: string;
      readonly serverId: string;
    }
  | { readonly kind: 'apiKey'; readonly apiKey: string };

const KEY = 'pipeline-dashboard.auth';

function isAuth(value: unknown): value is Auth {
  if (value === null || typeof value !== 'object') return false;
  const v = value as Record<string, unknown>;
  return (
    (v.kind === 'session' && typeof v.sessionId === 'string' && typeof v.role === 'string') ||
    (v.kind === 'apiKey' && typeof v.apiKey === 'string')
  );
}

// The key or session lives in sessionStorage (gone with the tab) unless the user asked to
// be remembered, which puts it in localStorage.
let current: Auth | null =
  readStored<Auth | null>(sessionStorage, KEY, null, isAuth) ??
  readStored<Auth | null>(localStorage, KEY, null, isAuth);
let expired = false;
const listeners = new Set<() => void>();

function emit(): void {
  for (const listener of listeners) listener();
}

export function setAuth(auth: Auth | null, remember = false): void {
  current = auth;
  expired = false;
  writeStored(sessionStorage, KEY, undefined);
  writeStored(localStorage, KEY, undefined);
  if (auth) writeStored(remember ? localStorage : sessionStorage, KEY, auth);
  emit();
}

/** The service refused our credentials: back to sign-in, keeping where the user was. */
export function expireAuth(): void {
  if (!current) return;
  current = null;
  expired = true;
  writeStored(sessionStorage, KEY, undefined);
  writeStored(localStorage, KEY, undefined);
  emit();
}

export function wasExpired(): boolean {
  return expired;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The session's id, for what only a session may ask; undefined for an API key or nobody. */
export function sessionIdOf(auth: Auth | null): string | undefined {
  return auth?.kind === 'session' ? auth.sessionId : undefined;
}

export function useAuth(): Auth | null {
  return useSyncExternalStore(subscribe, () => current);
}

const clients = new WeakMap<
  Auth,
  Map<string, { pipeline: PipelineClient; console: ManagementConsoleClient }>
>();

/**
 * Every kit client of the dashboard neither sends nor stores cookies: the dashboard
 * authenticates by header alone, and a `SESSIONID` cookie (minted for key-authenticated
 * scripts, valid on every port of this host) must never add its authority to a user's
 * session nor be picked up by a key sign-in. Sign-out is the one exception (see signOut).
 * Every one also calls the server under its base path (`--base-path`; '' at the root), so
 * a client made from these options needs no path of its own.
 */
export const NO_COOKIES = { credentialsMode: 'omit', basePath: BASE_PATH } as const;

/** Clients of the kit for these credentials; the dashboard's hooks use nothing else. */
export function clientsFor(
  auth: Auth | null,
  serviceId: string | undefined = currentService().id,
): {
  pipeline: PipelineClient;
  console: ManagementConsoleClient;
} {
  if (!auth)
    return {
      pipeline: new PipelineClient(NO_COOKIES),
      console: new ManagementConsoleClient(NO_COOKIES),
    };
  const byService = clients.get(auth) ?? new Map();
  clients.set(auth, byService);
  // Part C of the chosen service: /services/<id>/pipelineapi (plain /pipelineapi when the
  // server's list of services is not known, as for an API key sign-in).
  const basePath = `${BASE_PATH}${basePathOf(serviceId)}`;
  let pair = byService.get(basePath);
  if (!pair) {
    pair =
      auth.kind === 'session'
        ? {
            pipeline: new PipelineClient({
              ...NO_COOKIES,
              basePath,
              credentials: { kind: 'session', sessionId: auth.sessionId },
            }),
            console: new ManagementConsoleClient({ ...NO_COOKIES, sessionId: auth.sessionId }),
          }
        : {
            pipeline: new PipelineClient({ ...NO_COOKIES, basePath, apiKey: auth.apiKey }),
            console: new ManagementConsoleClient(NO_COOKIES),
          };
    byService.set(basePath, pair);
  }
  return pair;
}

/**
 * Ends the Part A session, if any, and forgets the stored credentials. The logout goes out
 * even for a key sign-in (as `sessionId=none`, which the service refuses) and with the
 * default credentials mode, because the service clears `SESSIONID` with `Max-Age=0` on
 * every logout answer, success or failure, and only a cookie-storing fetch applies that:
 * a cookie left over from an earlier key sign-in must not outlive Sign out.
 *
 * Returns where the single sign-on provider ends its own session when this one came from it
 * (the caller goes there; the provider sends the browser back to sign-in), else undefined.
 */
export async function signOut(auth: Auth): Promise<string | undefined> {
  const sessionId = auth.kind === 'session' ? auth.sessionId : 'none';
  // The refusal for `none`, or a session that already ended, changes nothing here.
  const ended = await new ManagementConsoleClient({ basePath: BASE_PATH })
    .logout(sessionId)
    .catch(() => ({}));
  setAuth(null);
  return 'endSessionUrl' in ended ? ended.endSessionUrl : undefined;
}

export function useClients() {
  return clientsFor(useAuth());
}

/**
 * Whether the signed-in user may call an operation on the service looked at (`here`: their
 * role there; without it, their default role); the API key may call them all.
 */
export function can(auth: Auth | null, operation: OperationName, here?: RoleHere): boolean {
  if (!auth) return false;
  return auth.kind === 'apiKey' || ROLE_OPERATIONS[here?.role ?? auth.role].has(operation);
}

/**
 * Why a control is disabled for this user on the service looked at, in the catalogue's
 * words (undefined: allowed). On a server of several services the reason names the service.
 */
export function forbiddenReason(
  auth: Auth | null,
  operation: OperationName,
  t: TFunction<'common'> = i18n.t,
  here?: RoleHere,
): string | undefined {
  if (can(auth, operation, here)) return undefined;
  const role =
    auth?.kind === 'session' ? t(`roles.${here?.role ?? auth.role}`) : t('roles.thisSignIn');
  const reason = isKnownRefusal(operation)
    ? t(`forbidden.${operation}`, { role })
    : t('forbidden.other', { role, operation });
  const service = here && serviceShown(here);
  return here?.several && service !== undefined
    ? t('forbidden.onService', { service, reason })
    : reason;
}

const KNOWN_REFUSALS: ReadonlySet<string> = new Set([
  'exec',
  'pipelinecache',
  'deletetable',
  'droptable',
  'resume',
  'suspend',
  'requestretry',
  'requestcancel',
] as const satisfies readonly OperationName[]);
type KnownRefusal =
  | 'exec'
  | 'pipelinecache'
  | 'deletetable'
  | 'droptable'
  | 'resume'
  | 'suspend'
  | 'requestretry'
  | 'requestcancel';
const isKnownRefusal = (operation: OperationName): operation is KnownRefusal =>
  KNOWN_REFUSALS.has(operation);

/**
 * The signed-in person's role on the service looked at (contract section 12), as the server
 * tells it; their default role until it has. Undefined for an API key sign-in.
 */
export function useRoleHere(): RoleHere | undefined {
  const auth = useAuth();
  const roles = useQuery(serviceRolesQuery(sessionIdOf(auth)));
  if (auth?.kind !== 'session') return undefined;
  const { id, name } = currentService();
  return roleHere(auth.role, roles.data, id, name);
}

/**
 * forbiddenReason in the language shown now, for the service looked at, re-rendering when
 * either (or the person's role there) changes.
 */
export function useForbidden(): (operation: OperationName) => string | undefined {
  const { t } = useTranslation();
  const auth = useAuth();
  const here = useRoleHere();
  return (operation) => forbiddenReason(auth, operation, t, here);
}
