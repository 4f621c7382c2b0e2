import { hashKey, MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';
import { currentService } from './current-service.ts';
import { ErrorCode, HttpError, NetworkError, TimeoutError } from '../../kit/index.ts';
import { expireAuth } from './auth.ts';
import { markReachable } from './connection.ts';
import { notify } from './notices.ts';
import { serviceRolesKey } from './service-roles.ts';
import { i18n } from '../i18n/index.ts';

function onError(error: unknown): void {
  if (error instanceof NetworkError || error instanceof TimeoutError) {
    markReachable(false);
    return;
  }
  markReachable(true);
  if (error instanceof HttpError && error.status === 401) expireAuth();
  else if (error instanceof HttpError && error.status === 403) {
    notify({
      kind: 'error',
      text: error.serviceMessage ?? i18n.t('error.forbidden'),
      code: error.code,
    });
  }
}

/** One configuration for every query and mutation of the dashboard. */
export function createQueryClient(): QueryClient {
  // A refusal may mean that the person's role changed since it was read: read it again,
  // so that the controls follow (contract section 12: a role is read at each call).
  const refused = (error: unknown) => {
    onError(error);
    if (error instanceof HttpError && error.status === 403)
      void client.invalidateQueries({ queryKey: serviceRolesKey });
  };
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: refused, onSuccess: () => markReachable(true) }),
    mutationCache: new MutationCache({ onError: refused, onSuccess: () => markReachable(true) }),
    defaultOptions: {
      queries: {
        // Part C data belongs to the service it came from; the server-wide lists do not.
        queryKeyHashFn: (key) =>
          key[0] === 'services' || key[0] === 'fleet' || key[0] === 'audit'
            ? hashKey(key)
            : hashKey([`service:${currentService().id ?? ''}`, ...key]),
        // A 4xx will not change by asking again; network trouble may. A 504 is the server
        // having waited its whole upstream timeout already, and a 5002 its upstream failing
        // (refused, stopped, not XML; a busy one already asked three times): asking again
        // only delays saying so, and the banner of a service that is down says the rest.
        retry: (count, error) =>
          !(
            error instanceof HttpError &&
            (error.status < 500 || error.status === 504 || error.code === ErrorCode.UpstreamFailed)
          ) && count < 2,
        refetchOnWindowFocus: true,
        staleTime: 2_000,
      },
      mutations: { retry: false },
    },
  });
  return client;
}
