import { useSyncExternalStore } from 'react';
import {
  ManagementConsoleClient,
  PipelineClient,
  ROLE_OPERATIONS,
  type OperationName,
  type Role,
} from '../../kit/index.ts';
import { readStored, writeStored } from './storage.ts';

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

export function useAuth(): Auth | null {
  return useSyncExternalStore(subscribe, () => current);
}

const clients = new WeakMap<Auth, { pipeline: PipelineClient; console: ManagementConsoleClient }>();

/** Clients of the kit for these credentials; the dashboard's hooks use nothing else. */
export function clientsFor(auth: Auth | null): {
  pipeline: PipelineClient;
  console: ManagementConsoleClient;
} {
  if (!auth) return { pipeline: new PipelineClient(), console: new ManagementConsoleClient() };
  let pair = clients.get(auth);
  if (!pair) {
    pair =
      auth.kind === 'session'
        ? {
            pipeline: new PipelineClient({
              credentials: { kind: 'session', sessionId: auth.sessionId },
            }),
            console: new ManagementConsoleClient({ sessionId: auth.sessionId }),
          }
        : {
            pipeline: new PipelineClient({ apiKey: auth.apiKey }),
            console: new ManagementConsoleClient(),
          };
    clients.set(auth, pair);
  }
  return pair;
}

export function useClients() {
  return clientsFor(useAuth());
}

/** Whether the signed-in user may call an operation; the API key may call them all. */
export function can(auth: Auth | null, operation: OperationName): boolean {
  if (!auth) return false;
  return auth.kind === 'apiKey' || ROLE_OPERATIONS[auth.role].has(operation);
}

const DOING: Partial<Record<OperationName, string>> = {
  exec: 'execute pipelines',
  pipelinecache: 'clear caches',
  deletetable: 'delete the rows of action tables',
  droptable: 'drop action tables',
  resume: 'resume pipelines',
  suspend: 'suspend pipelines',
  requestretry: 'retry requests',
  requestcancel: 'cancel requests',
};

/** Why a control is disabled for this user, for its tooltip. */
export function forbiddenReason(auth: Auth | null, operation: OperationName): string | undefined {
  if (can(auth, operation)) return undefined;
  const role = auth?.kind === 'session' ? auth.role : 'this sign-in';
  return `The ${role} role may not ${DOING[operation] ?? `call ${operation}`}.`;
}
