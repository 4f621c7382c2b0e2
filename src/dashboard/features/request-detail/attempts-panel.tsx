import { Trans, useTranslation } from 'react-i18next';
import type { AttemptActor, RequestAttempt } from '../../../kit/index.ts';
import { StatusBadge } from '../../components/badge.tsx';
import { describeError } from '../../shared/describe-error.ts';
import { Instant, ServiceTime } from '../../components/time.tsx';
import { useTimeFormat } from '../../shared/use-time.ts';
import { appLogStamps } from './app-log-time.ts';
import { attemptTime } from './attempt-time.ts';
import { useAttempts } from './attempts-query.ts';
import { ClockTime } from './log-view.tsx';
import { SeenTimeText } from './seen-time.tsx';

// A request's attempts, like Airflow's tries (issue 25): each run with its status, its
// start and end (each with its zone; behind a gateway the service's own, or when this server
// saw it, said so, where the service states none: issue 38), who retried or cancelled it
// through this server, and
// for a failure the service's words and last log lines as they were when it failed, still
// readable after a retry that succeeded and rewrote the service's own log.

type ActorKey = 'attempts.retriedBy' | 'attempts.cancelledBy';

/** "Retried by olga at 09:14 JST": the time kept a `<time>` whatever the word order. */
function ActorLine({ actor, i18nKey }: { actor: AttemptActor; i18nKey: ActorKey }) {
  const { t } = useTranslation('requestDetail');
  const time = useTimeFormat();
  // A person's name is data; the shared key or a cookie it started has none.
  const user = actor.userName ?? t('attempts.byKey');
  return (
    <p className="text-sm" data-testid="attempt-actor">
      <Trans
        t={t}
        i18nKey={i18nKey}
        values={{ user, time: time.instant(actor.at) }}
        components={{ time: <time dateTime={actor.at} className="whitespace-nowrap" /> }}
      />
      {actor.bulkJob !== null ? ` · ${t('attempts.bulkJob', { id: actor.bulkJob })}` : ''}
      {actor.reason ? ` · ${t('attempts.reason', { reason: actor.reason })}` : ''}
    </p>
  );
}

function When({ iso }: { iso: string | null }) {
  const { t } = useTranslation('requestDetail');
  return iso ? <Instant iso={iso} /> : <span>{t('attempts.unknownTime')}</span>;
}

function SeenTime({ iso }: { iso: string }) {
  const time = useTimeFormat();
  return <SeenTimeText iso={iso} text={time.instant(iso)} />;
}

/** An attempt's begin or end as attempt-time.ts chooses it. */
function AttemptWhen({ attempt, which }: { attempt: RequestAttempt; which: 'begin' | 'end' }) {
  const { t } = useTranslation('requestDetail');
  const shown = attemptTime(attempt, which);
  switch (shown.kind) {
    case 'stated':
      return <ServiceTime stamp={shown.stamp} />;
    case 'recorded':
      return <Instant iso={shown.iso} />;
    case 'seen':
      return <SeenTime iso={shown.iso} />;
    case 'running':
      return t('attempts.running');
    case 'unknown':
      return <span>{t('attempts.unknownTime')}</span>;
  }
}

function Failure({ attempt, requestId }: { attempt: RequestAttempt; requestId: string }) {
  const { t } = useTranslation('requestDetail');
  const stamps = appLogStamps(
    attempt.log.map((l) => l.date),
    attempt.beginTime,
    requestId,
  );
  if (attempt.evidence === 'due') return <p className="text-sm">{t('attempts.due')}</p>;
  if (attempt.evidence === 'lost') return <p className="text-sm">{t('attempts.lost')}</p>;
  return (
    <div className="flex flex-col gap-1">
      <h4 className="text-sm font-semibold">{t('attempts.failure')}</h4>
      {/* The service's own words: data, shown as it wrote them. */}
      <p
        className="rounded border border-red-300 bg-red-50 p-2 text-sm break-words whitespace-pre-wrap text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50"
        data-testid="attempt-message"
      >
        {attempt.message || t('attempts.noMessage')}
      </p>
      {attempt.log.length > 0 && (
        <details>
          <summary className="cursor-pointer text-sm">
            {t('attempts.logLines', { n: attempt.log.length })}
          </summary>
          <ol
            className="mt-1 overflow-x-auto rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-800"
            data-testid="attempt-log"
          >
            {attempt.log.map((line, i) => {
              const whole = stamps[i];
              return (
                <li key={i} className="break-words whitespace-pre-wrap">
                  {/* Its time with the service's zone; the rest the service's words. */}
                  {whole !== undefined ? <ClockTime whole={whole} /> : line.date}
                  {[line.type, line.message]
                    .filter((part) => part !== '')
                    .map((part) => `  ${part}`)
                    .join('')}
                </li>
              );
            })}
          </ol>
        </details>
      )}
    </div>
  );
}

function Attempt({
  attempt,
  latest,
  requestId,
}: {
  attempt: RequestAttempt;
  latest: boolean;
  requestId: string;
}) {
  const { t } = useTranslation('requestDetail');
  return (
    <li
      className="flex flex-col gap-2 rounded border border-slate-200 p-3 dark:border-slate-700"
      data-testid="attempt"
      data-attempt={attempt.attempt}
    >
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="font-semibold">
          {t(latest ? 'attempts.attemptLatest' : 'attempts.attempt', { n: attempt.attempt })}
        </h3>
        <StatusBadge status={attempt.status} />
      </div>
      {attempt.retriedBy && <ActorLine actor={attempt.retriedBy} i18nKey="attempts.retriedBy" />}
      <dl className="grid grid-cols-[auto_1fr] gap-x-3 text-sm">
        <dt>{t('attempts.started')}</dt>
        <dd>
          <AttemptWhen attempt={attempt} which="begin" />
        </dd>
        <dt>{t('attempts.ended')}</dt>
        <dd>
          <AttemptWhen attempt={attempt} which="end" />
        </dd>
      </dl>
      {attempt.cancelledBy && (
        <ActorLine actor={attempt.cancelledBy} i18nKey="attempts.cancelledBy" />
      )}
      {attempt.failed && <Failure attempt={attempt} requestId={requestId} />}
      {attempt.changes.length > 1 && (
        <details>
          <summary className="cursor-pointer text-sm">{t('attempts.changes')}</summary>
          {attempt.observed && (
            <p className="mt-1 text-xs text-slate-600 dark:text-slate-300">
              {t('attempts.changesSeen')}
            </p>
          )}
          <ol className="mt-1 text-sm">
            {attempt.changes.map((change, i) => (
              <li key={i} className="flex flex-wrap gap-2">
                {/* Status words are the service's: data. */}
                <span className="font-mono">{change.status}</span>
                <When iso={change.at} />
              </li>
            ))}
          </ol>
        </details>
      )}
    </li>
  );
}

/**
 * The attempts of a request, newest first. Shown to a signed-in person (an API key
 * sign-in has no session to ask with); `live` polls while the request may still change,
 * and a change of `status` reads them again at once.
 */
export function AttemptsPanel({
  requestId,
  live,
  status,
}: {
  requestId: string;
  live: boolean;
  /** The request's status as the page shows it: a change reads the attempts again. */
  status?: string;
}) {
  const { t } = useTranslation('requestDetail');
  const query = useAttempts(requestId, live, status);
  if (query.fetchStatus === 'idle' && query.data === undefined && !query.isError) return null;
  return (
    <section
      aria-labelledby="attempts-title"
      className="flex flex-col gap-2 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900"
      data-testid="attempts"
    >
      <h2 id="attempts-title" className="text-base font-semibold">
        {t('attempts.title')}
      </h2>
      {query.isError ? (
        <p className="text-sm" role="status">
          {t('attempts.unavailable', { message: describeError(query.error).message })}
        </p>
      ) : query.data === undefined ? (
        <p className="text-sm" role="status">
          {t('attempts.loading')}
        </p>
      ) : (
        <>
          <p className="text-sm text-slate-600 dark:text-slate-300">{t('attempts.intro')}</p>
          <ol className="flex flex-col gap-2">
            {[...query.data.attempts].reverse().map((attempt, i) => (
              <Attempt
                key={attempt.attempt}
                attempt={attempt}
                latest={i === 0}
                requestId={requestId}
              />
            ))}
          </ol>
        </>
      )}
    </section>
  );
}
