import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ManagementConsoleClient, RequestAttempts } from '../../../kit/index.ts';
import { useAuth, useClients } from '../../core/auth.ts';
import { autoRefresh, POLL_MS } from '../../core/auto-refresh.ts';
import { currentService } from '../../core/current-service.ts';
import { attemptKeys } from '../../shared/queries.ts';

// A request's attempts (issue 25): GET /mcapi/requests/attempts of the service looked at,
// with the session (an API key sign-in has none: the panel is then not shown).

// The keys are shared: a retry or cancel (shared/queries.ts) refreshes the attempts at once.
export { attemptKeys };

export const attemptsQuery = (
  mc: ManagementConsoleClient,
  service: string | undefined,
  requestId: string,
  live: boolean,
  status = '',
) =>
  queryOptions<RequestAttempts>({
    // The request's status as the page last read it is part of the key: a change the page
    // sees (a retried request ending) reads the attempts again at once, not at the next poll.
    queryKey: [...attemptKeys.of(service, requestId), status],
    queryFn: ({ signal }) => mc.requestAttempts({ requestId, service }, { signal }),
    // While the request may still change (a retry under way), as often as a gateway's index
    // learns of it; and until the latest attempt has the status the page reads from the
    // service (a gateway's index learns of a change at its next round, after the page);
    // until its failure's words are read (the panel says they are read within a few polls);
    // once all agree and it has ended, when the page is opened again.
    ...autoRefresh<RequestAttempts>((attempts) => {
      const latest = attempts?.attempts.at(-1);
      const behind = status !== '' && latest !== undefined && latest.status !== status;
      const due = latest?.evidence === 'due';
      return live || behind || due ? POLL_MS.attempts : false;
    }),
    // The attempts as last read stay shown while a changed status reads them again.
    placeholderData: keepPreviousData,
    retry: false,
  });

/** The attempts of a request of the service looked at; disabled without a session. */
export function useAttempts(requestId: string, live: boolean, status?: string) {
  const auth = useAuth();
  const { console: mc } = useClients();
  return useQuery({
    ...attemptsQuery(mc, currentService().id, requestId, live, status),
    enabled: auth?.kind === 'session',
  });
}
