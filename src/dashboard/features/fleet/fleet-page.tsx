import { Trans, useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { JUMP_RULES, type FleetClass, type FleetService } from '../../../kit/index.ts';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { inService, paths } from '../../paths.ts';
import { bandClasses, stripClass } from '../../shared/environment.ts';
import { useFleet } from '../../shared/fleet.ts';
import { WhatFailed } from '../../shared/what-failed.tsx';
import { secondsOf, useZonedFormat } from './fleet-time.ts';

const CARD =
  'flex min-w-0 flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 dark:border-slate-800 dark:bg-slate-900';

/** The classes a card counts, in this order: an operator's eye goes to failures first. */
const SHOWN: readonly FleetClass[] = ['failed', 'running', 'waiting', 'done'];

/** Each class's number, coloured where it asks for attention (never colour alone: its word). */
const CLASS_TONE: Record<FleetClass, string> = {
  failed: 'text-red-700 dark:text-red-300',
  running: 'text-blue-700 dark:text-blue-300',
  waiting: 'text-amber-800 dark:text-amber-200',
  done: 'text-emerald-700 dark:text-emerald-300',
  other: 'text-slate-700 dark:text-slate-300',
};

function Jumps({ service }: { service: FleetService }) {
  const { t, i18n } = useTranslation('fleet');
  const percent = new Intl.NumberFormat(i18n.resolvedLanguage, {
    style: 'percent',
    maximumFractionDigits: 1,
  });
  const seconds = (ms: number) => t('seconds', { value: secondsOf(ms) });
  if (service.jumps.length === 0)
    return <p className="text-xs text-slate-600 dark:text-slate-400">{t('noJumps')}</p>;
  return (
    <div>
      <h3 className="text-xs font-semibold text-red-800 dark:text-red-200">{t('jumps')}</h3>
      {/* Named with its service: a list read on its own says which service it is about. */}
      <ul
        className="mt-1 flex flex-col gap-1"
        aria-label={t('jumpsOn', { service: service.name })}
        data-testid="fleet-jumps"
      >
        {service.jumps.map((j) => (
          <li key={`${j.pipelineId}-${j.kind}`} className="text-xs" data-pipeline={j.pipelineId}>
            <span aria-hidden="true" className="mr-1 text-red-700 dark:text-red-300">
              ▲
            </span>
            <Link
              to={inService(paths.trends(j.pipelineId), service.id)}
              className="font-medium text-teal-800 underline hover:no-underline dark:text-teal-300"
            >
              {j.name || j.pipelineId}
            </Link>{' '}
            {j.kind === 'failureRate'
              ? t('jumpFailureRate', {
                  today: percent.format(j.today),
                  median: percent.format(j.median),
                })
              : t('jumpP95', { today: seconds(j.today), median: seconds(j.median) })}
          </li>
        ))}
      </ul>
    </div>
  );
}

function ServiceCard({ service }: { service: FleetService }) {
  const { t, i18n } = useTranslation('fleet');
  const { t: tc } = useTranslation('common');
  const format = useZonedFormat();
  const zone = format.zone(service);
  const failedWords = service.words.filter((w) => w.class === 'failed').map((w) => w.status);
  const others = service.words.filter((w) => w.class === 'other');
  const number = new Intl.NumberFormat(i18n.resolvedLanguage);
  const overview = inService(paths.overview(), service.id);
  return (
    <li className={CARD} data-testid="fleet-service" data-service={service.id}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="flex min-w-0 items-center gap-2 text-base font-semibold">
          <span
            aria-hidden="true"
            className={`inline-block h-5 w-1.5 rounded-sm ${stripClass(service)}`}
          />
          <Link
            to={overview}
            className="min-w-0 break-words text-teal-800 underline hover:no-underline dark:text-teal-300"
            data-testid="fleet-open"
          >
            {service.name}
          </Link>
          {service.label ? (
            <span
              className={`rounded px-1.5 py-0.5 text-[0.7rem] font-semibold tracking-wide uppercase ${bandClasses(service)}`}
            >
              {service.label}
            </span>
          ) : null}
        </h2>
        <span
          data-testid="fleet-reachable"
          className={`rounded px-2 py-0.5 text-xs font-medium ${
            service.reachable
              ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100'
              : 'bg-red-50 text-red-900 dark:bg-red-950 dark:text-red-100'
          }`}
        >
          <span aria-hidden="true">{service.reachable ? '● ' : '✕ '}</span>
          {service.reachable ? t('reachable') : t('unreachable')}
          {!service.reachable && service.since
            ? ` ${t('since', { time: format.instant(service.since, service) })}`
            : null}
        </span>
      </div>
      {!service.reachable && service.message ? (
        // The gateway's own failure in the user's language, the service's words as written.
        <p
          className="text-xs wrap-break-word text-red-800 dark:text-red-200"
          data-testid="fleet-why"
        >
          <WhatFailed message={service.message} name={service.name} cause={service.cause} />
        </p>
      ) : null}
      <p className="text-sm text-slate-700 dark:text-slate-300" data-testid="fleet-day">
        {service.day
          ? t('today', { day: format.day(service.day), zone: zone || tc('time.serviceClock') })
          : t('dayUnknown')}
      </p>
      <dl
        aria-label={t('countsLabel')}
        className="grid grid-cols-2 gap-2 min-[420px]:grid-cols-4"
        data-testid="fleet-counts"
      >
        {SHOWN.map((c) => (
          <div
            key={c}
            data-class={c}
            className="rounded-md bg-slate-50 px-2 py-1.5 dark:bg-slate-800/60"
          >
            <dt className="text-xs text-slate-600 dark:text-slate-300">{t(`class.${c}`)}</dt>
            <dd
              className={`text-xl font-semibold tabular-nums ${service.counts[c] > 0 ? CLASS_TONE[c] : ''}`}
            >
              {/* No round of its index yet: nothing was counted, which is not zero. */}
              {service.dayState === 'unwatched' ? '—' : number.format(service.counts[c])}
            </dd>
          </div>
        ))}
      </dl>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        {service.dayState === 'unwatched'
          ? t('notCounted')
          : t('total', { count: service.counts.total })}
        {others.length > 0 ? (
          <span className="block" data-testid="fleet-other">
            {t('otherWords', {
              list: new Intl.ListFormat(i18n.resolvedLanguage, { type: 'unit' }).format(
                others.map((w) => t('wordCount', { count: w.count, status: w.status })),
              ),
            })}
          </span>
        ) : null}
      </p>
      {service.counts.failed > 0 && service.day ? (
        <Link
          to={inService(
            paths.requests({ date: service.day, status: failedWords.join(',') }),
            service.id,
          )}
          className="text-sm font-medium text-red-800 underline hover:no-underline dark:text-red-200"
          data-testid="fleet-failed-link"
        >
          {t('failedLink', { count: service.counts.failed })}
        </Link>
      ) : null}
      <Jumps service={service} />
      <div className="mt-auto flex flex-col gap-0.5 border-t border-slate-100 pt-2 text-xs text-slate-600 dark:border-slate-800 dark:text-slate-400">
        <span data-testid="fleet-fresh">
          {service.embedded
            ? t('live')
            : service.indexedAt
              ? t('asOf', { time: format.instant(service.indexedAt, service) })
              : t('notIndexed')}
        </span>
        {service.dayState === 'missed' ? (
          <span className="text-amber-900 dark:text-amber-200">{t('missed')}</span>
        ) : null}
        {service.indexError ? (
          <span
            className="wrap-break-word text-amber-900 dark:text-amber-200"
            data-testid="fleet-index-error"
          >
            <Trans
              t={t}
              i18nKey="indexError"
              components={{
                what: (
                  <WhatFailed
                    message={service.indexError}
                    name={service.name}
                    cause={service.indexErrorCause}
                  />
                ),
              }}
            />
          </span>
        ) : null}
        <span>{t('role', { role: tc(`roles.${service.role}` as 'roles.viewer') })}</span>
        <Link to={overview} className="self-start text-teal-800 underline dark:text-teal-300">
          {t('openOverview')}
        </Link>
      </div>
    </li>
  );
}

/** Every service's today on one page: the landing page of a server of several. */
export function FleetPage() {
  const { t } = useTranslation('fleet');
  const fleet = useFleet();
  return (
    <>
      <PageHeader title={t('title')} />
      <p className="mb-4 max-w-3xl text-sm text-slate-700 dark:text-slate-300">{t('intro')}</p>
      {fleet.error ? <ErrorView error={fleet.error} onRetry={fleet.refetch} /> : null}
      {!fleet.fleet ? (
        fleet.error ? null : (
          <Spinner />
        )
      ) : fleet.fleet.services.length === 0 ? (
        <p className="text-sm">{t('noServices')}</p>
      ) : (
        <ul className="grid gap-4 md:grid-cols-2 2xl:grid-cols-3" data-testid="fleet">
          {fleet.fleet.services.map((s) => (
            <ServiceCard key={s.id} service={s} />
          ))}
        </ul>
      )}
      <p
        className="mt-5 max-w-3xl text-xs text-slate-600 dark:text-slate-400"
        data-testid="jump-rule"
      >
        {t('jumpRule', JUMP_RULES)}
      </p>
    </>
  );
}
