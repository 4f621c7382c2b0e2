import { useEffect, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Spinner } from '../../components/spinner.tsx';
import { useTimeFormat } from '../../shared/use-time.ts';
import { serviceTitle } from '../../shared/environment.ts';
import { WhatFailed } from '../../shared/what-failed.tsx';
import type { FailureTold } from '../../shared/upstream-message.ts';
import { useCurrentService } from '../../shared/services.ts';

/** Seconds since this was first drawn, counted each second. */
function useSecondsWaited(): number {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    const started = Date.now();
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000);
    return () => clearInterval(timer);
  }, []);
  return seconds;
}

/**
 * While the day is not there yet and its service is not known to be down: a wait beyond 2 s
 * names the service (unambiguously: two services may share a label) and how long it has
 * taken, never a bare spinner.
 */
export function DayPending() {
  const { t } = useTranslation('overview');
  const name = serviceTitle(useCurrentService());
  const seconds = useSecondsWaited();
  return <Spinner label={seconds >= 2 ? t('waiting', { name, seconds }) : undefined} />;
}

/**
 * The day's counts cannot be read because the service behind the gateway does not answer,
 * said in words: which service, since when (when the server knows), whether what follows is
 * as last read (`kept`), and why, the gateway's own words worded in the user's language and
 * the service's verbatim (WhatFailed).
 */
export function ServiceUnreachable({
  message,
  told,
  since,
  kept,
  onRetry,
}: {
  /** Why, as the server said it (an error answer's Message, or the services list's). */
  message: string;
  /** The error answer's code, or the services list's cause of its message. */
  told: FailureTold;
  /** Since when it has not answered (ISO), or ''. */
  since: string;
  /** Whether counts read before are still shown below. */
  kept: boolean;
  onRetry?: (() => void) | undefined;
}) {
  const { t } = useTranslation('overview');
  const time = useTimeFormat();
  const service = useCurrentService();
  const key = kept
    ? since
      ? 'unreachableKeptSince'
      : 'unreachableKept'
    : since
      ? 'unreachableSince'
      : 'unreachable';
  return (
    <div
      role="status"
      data-testid="overview-unreachable"
      data-service={service.id}
      className="mb-4 rounded-md border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50"
    >
      <p>
        <Trans
          t={t}
          i18nKey={key}
          values={{ name: serviceTitle(service), time: since ? time.instant(since) : '' }}
          components={{
            strong: <strong className="font-semibold" />,
            time: <time dateTime={since} className="whitespace-nowrap" />,
          }}
        />
      </p>
      {message ? (
        <p className="wrap-break-word" data-testid="overview-unreachable-why">
          <WhatFailed message={message} name={service.name} {...told} />
        </p>
      ) : null}
      {onRetry ? (
        <button type="button" onClick={onRetry} className="mt-1 text-sm font-medium underline">
          {t('error.tryAgain', { ns: 'common' })}
        </button>
      ) : null}
    </div>
  );
}
