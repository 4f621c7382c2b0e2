import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { ServiceInfo } from '../../../kit/index.ts';
import { ServiceMark } from '../../shared/service-mark.tsx';
import { failureText, WhatFailed, type WhatFailedProps } from '../../shared/what-failed.tsx';
import { ScrollX } from '../../components/scroll-x.tsx';
import { Badge } from '../../components/badge.tsx';
import { DataTable, type ColumnDef } from '../../components/data-table.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { inService, paths } from '../../paths.ts';
import { useCurrentService, useServices } from '../../shared/services.ts';
import { useTimeFormat } from '../../shared/use-time.ts';
import { CapabilitiesCard, capabilitiesId, DOWN_MARK } from './capabilities-card.tsx';
import { StatusWordsCard } from './status-words-card.tsx';

type TimeFormat = ReturnType<typeof useTimeFormat>;

/** The service's last failure: why it is unreachable, else why its index's last round failed. */
function lastFailure(s: ServiceInfo): WhatFailedProps | undefined {
  if (s.message) return { message: s.message, name: s.name, cause: s.cause };
  if (s.indexError) return { message: s.indexError, name: s.name, cause: s.indexErrorCause };
  return undefined;
}

function columns(
  t: TFunction<'services'>,
  tc: TFunction,
  time: TimeFormat,
  first: string | undefined,
  current: string,
): ColumnDef<ServiceInfo>[] {
  // An instant with a phrase around it ("since …", "… 以降"): the phrase is the language's.
  const when = (iso: string, phrase?: (shown: string) => string) =>
    iso ? (
      <time dateTime={iso}>{phrase ? phrase(time.instant(iso)) : time.instant(iso)}</time>
    ) : null;
  const since = (shown: string) => t('since', { when: shown });
  const asOf = (shown: string) => t('asOf', { when: shown });
  return [
    {
      id: 'service',
      header: t('columns.service'),
      cell: (s) => (
        <span className="flex flex-wrap items-center gap-2">
          <ServiceMark service={s} wrap />
          {s.embedded ? (
            <span className="text-xs text-slate-500 dark:text-slate-400">({t('embedded')})</span>
          ) : null}
          {s.id === current ? (
            <span className="text-xs text-teal-700 dark:text-teal-400">· {t('current')}</span>
          ) : null}
          {s.capabilities ? (
            <a
              href={`#${capabilitiesId(s.id)}`}
              aria-label={t('capabilities.section', { name: s.name })}
              // A line of its own: the column stays as narrow as the service's name.
              className="basis-full text-xs whitespace-nowrap text-teal-700 hover:underline dark:text-teal-400"
            >
              {t('capabilities.details')} {DOWN_MARK}
            </a>
          ) : null}
        </span>
      ),
    },
    // On a phone the name, state and link stay; the id, the version and the time of the
    // request lists wait for more room: at 390 px no fourth column fits beside those three
    // without the table scrolling sideways (issue 38).
    {
      id: 'id',
      header: t('columns.id'),
      priority: 'medium',
      cellClassName: 'font-mono text-xs',
      cell: (s) => s.id,
    },
    {
      id: 'state',
      header: t('columns.state'),
      cellProps: (s) => ({ 'data-reachable': String(s.reachable) }),
      cell: (s) => (
        <span className="flex flex-wrap items-center gap-1">
          {/* Whole: a Japanese word would otherwise break after every character on a phone. */}
          <span className="whitespace-nowrap">
            <Badge tone={s.reachable ? 'green' : 'red'} symbol={s.reachable ? '✓' : '✕'}>
              {s.reachable ? t('reachable') : t('unreachable')}
            </Badge>
          </span>
          {s.since ? (
            <span className="text-xs text-slate-500 dark:text-slate-400">
              {when(s.since, since)}
            </span>
          ) : null}
        </span>
      ),
    },
    { id: 'version', header: t('columns.version'), priority: 'medium', cell: (s) => s.version },
    {
      id: 'checkedAt',
      header: t('columns.checkedAt'),
      priority: 'low',
      cellClassName: 'whitespace-nowrap text-xs',
      cell: (s) => when(s.checkedAt),
    },
    {
      id: 'indexedAt',
      header: t('columns.indexedAt'),
      priority: 'medium',
      cellClassName: 'whitespace-nowrap text-xs',
      cellProps: (s) => ({ 'data-testid': `indexed-${s.id}` }),
      cell: (s) => (s.embedded ? t('live') : s.indexedAt ? when(s.indexedAt, asOf) : t('notYet')),
    },
    {
      id: 'message',
      header: t('columns.message'),
      priority: 'low',
      cellClassName: 'max-w-sm text-xs',
      cell: (s) => {
        const failure = lastFailure(s);
        // Three lines at most; the whole of it, in the same words, on hover.
        return failure ? (
          <div className="line-clamp-3 wrap-break-word" title={failureText(tc, failure)}>
            <WhatFailed {...failure} />
          </div>
        ) : null;
      },
    },
    {
      id: 'open',
      header: t('columns.open'),
      cell: (s) => (
        <Link
          to={inService(paths.overview(), s.id === first ? undefined : s.id)}
          aria-label={t('open', { name: s.name })}
          className="text-teal-700 hover:underline dark:text-teal-400"
        >
          {t('columns.open')} ›
        </Link>
      ),
    },
  ];
}

export function ServicesPage() {
  const { t } = useTranslation('services');
  const { t: tc } = useTranslation();
  const time = useTimeFormat();
  const { services, error } = useServices();
  const current = useCurrentService();
  if (error) return <ErrorView error={error} />;
  if (services.length === 0) return <Spinner />;
  const upstreams = services.flatMap((s) => (s.capabilities ? [[s, s.capabilities] as const] : []));
  return (
    <>
      <PageHeader title={t('title')} />
      <p className="mb-3 text-sm text-slate-600 dark:text-slate-300">{t('intro')}</p>
      <ScrollX
        label={t('title')}
        className="rounded-lg border border-slate-200 bg-white dark:border-slate-800 dark:bg-slate-900"
      >
        <DataTable
          columns={columns(t, tc, time, services[0]?.id, current.id)}
          rows={services}
          rowKey={(s) => s.id}
          rowProps={(s) => ({ 'data-service': s.id })}
          testId="services"
          empty={t('empty')}
        />
      </ScrollX>
      {upstreams.length > 0 ? (
        <CardsSection
          id="capabilities-title"
          title={t('capabilities.title')}
          intro={t('capabilities.intro')}
        >
          {upstreams.map(([s, capabilities]) => (
            <CapabilitiesCard
              key={s.id}
              service={s}
              capabilities={capabilities}
              instant={time.instant}
            />
          ))}
        </CardsSection>
      ) : null}
      <CardsSection
        id="status-words-title"
        title={t('statusWords.title')}
        intro={t('statusWords.intro')}
      >
        {services.map((s) => (
          <StatusWordsCard key={s.id} service={s} instant={time.instant} />
        ))}
      </CardsSection>
    </>
  );
}

/** A titled section of one card per service, two abreast on a wide screen. */
function CardsSection({
  id,
  title,
  intro,
  children,
}: {
  /** The heading's id, which names the section. */
  id: string;
  title: string;
  intro: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="mt-6 flex flex-col gap-3">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-300">{intro}</p>
      <div className="grid gap-3 xl:grid-cols-2">{children}</div>
    </section>
  );
}
