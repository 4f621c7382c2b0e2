import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ManagementConsoleClient } from '../../../kit/index.ts';
import { NO_COOKIES, setAuth } from '../../core/auth.ts';
import { BASE_PATH } from '../../core/base-path.ts';
import { ErrorView } from '../../components/error-view.tsx';

/*
 * Single sign-on through the server's OpenID provider: a link to /mcapi/auth/oidc/start
 * (the server does the protocol and keeps the client secret), and, when the provider has
 * sent the browser back to /sign-in#oidc=<handoff>, the trade of that one-time handoff for
 * the session, or for the server's reason why there is none.
 */

const HANDOFF = /^#oidc=([A-Za-z0-9_-]{16,128})$/;

function useProvider() {
  return useQuery({
    queryKey: ['sign-in', 'oidc'],
    // The provider's name, or null without one (a query's data may not be undefined).
    queryFn: ({ signal }) => new ManagementConsoleClient(NO_COOKIES).oidcProvider({ signal }),
    staleTime: Infinity,
    retry: false,
  });
}

/** Finishes a sign-in the provider sent back; null when the address carries none. */
function useHandoff(next: string): { busy: boolean; error: unknown } | null {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [handoff] = useState(() => HANDOFF.exec(window.location.hash)?.[1]);
  const [error, setError] = useState<unknown>();
  const started = useRef(false);
  useEffect(() => {
    // The handoff works once: never twice, and never left in the address or history.
    if (handoff === undefined || started.current) return;
    started.current = true;
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    new ManagementConsoleClient(NO_COOKIES).oidcSession(handoff).then(
      async (session) => {
        queryClient.clear();
        setAuth({ kind: 'session', ...session });
        await navigate(next, { replace: true });
      },
      (caught: unknown) => setError(caught),
    );
  }, [handoff, navigate, next, queryClient]);
  return handoff === undefined ? null : { busy: error === undefined, error };
}

export function SingleSignOn({ next }: { next: string }) {
  const { t } = useTranslation('signIn');
  const provider = useProvider();
  const handoff = useHandoff(next);
  return (
    <>
      {handoff?.busy ? (
        <p role="status" className="mb-4 text-sm text-slate-600 dark:text-slate-300">
          {t('finishingSso')}
        </p>
      ) : null}
      {handoff?.error ? (
        <div className="mb-4">
          <ErrorView error={handoff.error} />
        </div>
      ) : null}
      {provider.data ? (
        <>
          <a
            href={`${BASE_PATH}/mcapi/auth/oidc/start?next=${encodeURIComponent(next)}`}
            className="mb-4 flex w-full items-center justify-center rounded-md bg-teal-700 px-3 py-2 text-sm font-medium text-white hover:bg-teal-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-600"
          >
            {t('withProvider', { name: provider.data })}
          </a>
          <p className="mb-4 text-center text-xs text-slate-500 dark:text-slate-400">
            {t('orLocal')}
          </p>
        </>
      ) : null}
    </>
  );
}
