import { queryOptions, useQuery } from '@tanstack/react-query';
import { decodeAttempts, type RequestAttempts } from '../../../kit/index.ts';
import { useAuth, type Auth } from '../../app/auth.ts';
import { currentService } from '../../app/current-service.ts';
import { mcapiGet } from '../../app/mcapi.ts';
import { attemptKeys } from '../../shared/queries.ts';

// A request's attempts (issue 25): GET /mcapi/requests/attempts of the service looked at,
// with the session (an API key sign-in has none: the panel is then not shown).

// The keys are shared: a retry or cancel (shared/queries.ts) refreshes the attempts at once.
export { attemptKeys };

export const attemptsQuery = (
  auth: Auth | null,
  service: string | undefined,
  requestId: string,
  live: boolean,
) =>
  queryOptions<RequestAttempts>({
    queryKey: attemptKeys.of(service, requestId),
    queryFn: async () =>
      decodeAttempts(
        await mcapiGet(auth, '/requests/attempts', {
          requestid: requestId,
          ...(service === undefined ? {} : { service }),
        }),
      ),
    // While the request may still change (a retry under way), as often as a gateway's index
    // learns of it; once it has ended, when the page is opened again.
    refetchInterval: live ? 5000 : false,
    refetchIntervalInBackground: false,
    retry: false,
  });

/** The attempts of a request of the service looked at; disabled without a session. */
export function useAttempts(requestId: string, live: boolean) {
  const auth = useAuth();
  return useQuery({
    ...attemptsQuery(auth, currentService().id, requestId, live),
    enabled: auth?.kind === 'session',
  });
}
