import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import type { Capabilities, LearntListAnswer, ServiceInfo } from '../../../kit/index.ts';
import { zoneLabelOf } from '../../i18n/time-format.ts';
import { WhatFailed } from '../../shared/what-failed.tsx';
import { ServiceMark } from '../../shared/service-mark.tsx';
import { byteSize, charsetName, pagingKind, roundedSeconds } from './capabilities.ts';

// Marks, the same in every language: a warning, and a link further down the page.
const WARNING_MARK = '⚠';
export const DOWN_MARK = '↓';

/** The id of a service's card, which the table's link leads to. */
export const capabilitiesId = (service: string) => `capabilities-${service}`;

type FactName =
  | 'paging'
  | 'index'
  | 'next'
  | 'total'
  | 'charset'
  | 'session'
  | 'concurrency'
  | 'largest'
  | 'compression'
  | 'zone'
  | 'poll'
  | 'probed'
  | 'lists'
  | 'probeError';

/** One fact: its name (the catalogue's `capabilities.<name>`), and what the gateway learnt of it. */
function Fact({
  name,
  testId = name,
  children,
}: {
  name: FactName;
  testId?: string;
  children: ReactNode;
}) {
  const { t } = useTranslation('services');
  return (
    <div
      className="grid grid-cols-1 gap-x-4 border-b border-slate-100 py-1.5 last:border-0 sm:grid-cols-[11rem_minmax(0,1fr)] dark:border-slate-800"
      data-fact={testId}
    >
      <dt className="text-xs font-semibold text-slate-600 sm:text-sm dark:text-slate-300">
        {t(`capabilities.${name}`)}
      </dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

/** The catalogue's word (`capabilities.<word>`) for each answer the gateway may learn of these facts. */
const LEARNT_WORDS = {
  index: { honoured: 'indexHonoured', pages: 'indexPages', ignored: 'indexIgnored' },
  next: { stated: 'nextStated', 'always -1': 'nextAlways', absent: 'nextAbsent' },
  total: { stated: 'totalStated', absent: 'totalAbsent' },
} as const satisfies {
  readonly [F in 'index' | 'next' | 'total']: Readonly<
    Record<Exclude<Capabilities[F], 'unknown'>, string>
  >;
};
type LearntWord = {
  [F in keyof typeof LEARNT_WORDS]: (typeof LEARNT_WORDS)[F][keyof (typeof LEARNT_WORDS)[F]];
}[keyof typeof LEARNT_WORDS];

/** A fact the gateway learns as one of a few answers (LEARNT_WORDS), or not yet. */
function LearntFact({
  name,
  capabilities,
}: {
  name: keyof typeof LEARNT_WORDS;
  capabilities: Capabilities;
}) {
  const { t } = useTranslation('services');
  const value = capabilities[name];
  const words: Readonly<Record<string, LearntWord>> = LEARNT_WORDS[name];
  const word = value === 'unknown' ? undefined : words[value];
  return (
    <Fact name={name}>{word === undefined ? <Unknown t={t} /> : t(`capabilities.${word}`)}</Fact>
  );
}

/** A fact not learnt yet, dimmed. */
function Unknown({ t }: { t: TFunction<'services'> }) {
  return (
    <span className="text-slate-500 italic dark:text-slate-400">{t('capabilities.unknown')}</span>
  );
}

function paging(t: TFunction<'services'>, c: Capabilities): ReactNode {
  switch (pagingKind(c)) {
    case 'whole':
      return t('capabilities.pagingWhole');
    case 'capped':
      return t('capabilities.pagingCapped', { count: c.cap ?? 0 });
    case 'asked':
      return t('capabilities.pagingAsked');
    default:
      return <Unknown t={t} />;
  }
}

/** What one list's own answers showed, in words (a cap, how it takes index and pagesize). */
function listFacts(t: TFunction<'services'>, learnt: LearntListAnswer): string {
  const facts = [
    learnt.pagesize === 'ignored' ? t('capabilities.pagingWhole') : '',
    learnt.cap === null ? '' : t('capabilities.pagingCapped', { count: learnt.cap }),
    learnt.index === null
      ? ''
      : `${t('capabilities.index')}: ${t(`capabilities.${LEARNT_WORDS.index[learnt.index]}`)}`,
  ].filter((fact) => fact !== '');
  return facts.length > 0
    ? facts.join(t('capabilities.listSeparator'))
    : t('capabilities.listNoCap');
}

function size(t: TFunction<'services'>, bytes: number | undefined): ReactNode {
  if (bytes === undefined || bytes === 0) return t('capabilities.noAnswer');
  const shown = byteSize(bytes);
  if (shown.unit === 'bytes') return t('capabilities.sizeExact', { count: bytes });
  return t(shown.exact ? 'capabilities.sizeUnit' : 'capabilities.sizeAbout', {
    value: shown.value,
    // Not `unit`: i18next hands the options to Intl.NumberFormat, which refuses unit "MB".
    symbol: shown.unit,
    bytes,
  });
}

function poll(t: TFunction<'services'>, c: Capabilities): ReactNode {
  if (c.pollSeconds === undefined) return <Unknown t={t} />;
  const seconds = roundedSeconds(c.pollSeconds);
  const every = t(seconds.exact ? 'capabilities.seconds' : 'capabilities.secondsAbout', {
    value: seconds.value,
  });
  return c.lastRoundMs === undefined
    ? t('capabilities.pollNoRound', { every })
    : t('capabilities.pollRound', { every, ms: Math.round(c.lastRoundMs) });
}

function zone(t: TFunction<'services'>, service: ServiceInfo, c: Capabilities): ReactNode {
  switch (c.zoneFrom) {
    case 'configured':
      return t('capabilities.zoneConfigured', { zone: service.timeZone || c.datesZone });
    case 'dates':
      return t('capabilities.zoneDates', { zone: c.datesZone || service.zoneName });
    case 'none':
      // The offset inferred so far, and whether a request seen to begin has told it yet; the
      // offset written as every timestamp writes it. (The configured name and the word its
      // dates carry above are the service's facts, shown as written.)
      if (service.utcOffsetMinutes === undefined) return t('capabilities.zoneNone');
      return t(
        service.utcOffsetEstimated ? 'capabilities.zoneEstimated' : 'capabilities.zoneInferred',
        {
          zone: zoneLabelOf(service.utcOffsetMinutes),
        },
      );
    default:
      return <Unknown t={t} />;
  }
}

/**
 * What the gateway learnt of how one upstream answers (contract section 12), as a list of
 * facts that reads top to bottom on a phone and as two columns wider. The probe's error is
 * the service's own text: shown as text, never as markup.
 */
export function CapabilitiesCard({
  service,
  capabilities: c,
  instant,
}: {
  service: ServiceInfo;
  capabilities: Capabilities;
  /** An ISO instant as the user reads times (useTimeFormat's), its zone named. */
  instant: (iso: string) => string;
}) {
  const { t } = useTranslation('services');
  const headingId = `${capabilitiesId(service.id)}-heading`;
  return (
    <section
      id={capabilitiesId(service.id)}
      aria-labelledby={headingId}
      data-capabilities={service.id}
      className="scroll-mt-4 rounded-lg border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 id={headingId} className="mb-2 text-base">
        <ServiceMark service={service} />
      </h3>
      {c.zoneFrom === 'none' ? (
        <p
          data-testid={`zone-warning-${service.id}`}
          className="mb-2 flex gap-2 rounded-md bg-amber-50 px-3 py-2 text-amber-900 dark:bg-amber-950 dark:text-amber-100"
        >
          <span aria-hidden="true">{WARNING_MARK}</span>
          <span>
            <Trans
              t={t}
              i18nKey="capabilities.zoneWarning"
              // The setting's names as written in a file or a command line, kept whole.
              components={{ code: <code className="font-mono text-xs whitespace-nowrap" /> }}
            />
          </span>
        </p>
      ) : null}
      <dl>
        <Fact name="paging">{paging(t, c)}</Fact>
        <LearntFact name="index" capabilities={c} />
        <LearntFact name="next" capabilities={c} />
        <LearntFact name="total" capabilities={c} />
        <Fact name="charset">
          {c.charset ? (
            t(`capabilities.charsetFrom.${c.charsetFrom}`, { charset: charsetName(c.charset) })
          ) : (
            <Unknown t={t} />
          )}
        </Fact>
        <Fact name="session">
          {c.setsSessionId ? t('capabilities.setsSession') : t('capabilities.noSession')}
        </Fact>
        <Fact name="concurrency">
          {c.concurrency === undefined ? (
            <Unknown t={t} />
          ) : c.concurrencyLimit === undefined ? (
            t('capabilities.concurrencyNow', { count: c.concurrency })
          ) : (
            t('capabilities.concurrencyLearnt', {
              count: c.concurrency,
              limit: c.concurrencyLimit,
            })
          )}
        </Fact>
        <Fact name="largest">{size(t, c.largestAnswerBytes)}</Fact>
        <Fact name="compression">
          {c.compressed ? t('capabilities.compressed') : t('capabilities.notCompressed')}
        </Fact>
        <Fact name="zone">{zone(t, service, c)}</Fact>
        <Fact name="poll">{poll(t, c)}</Fact>
        <Fact name="probed">
          {c.probedAt ? (
            <time dateTime={c.probedAt}>{instant(c.probedAt)}</time>
          ) : (
            t('capabilities.notProbed')
          )}
        </Fact>
        {c.lists && c.lists.length > 0 ? (
          <Fact name="lists">
            <ul className="space-y-1" data-testid="learnt-lists">
              {c.lists.map((learnt) => (
                <li key={learnt.list} data-list={learnt.list}>
                  {/* The list as the service's operation and table or pipeline name it. */}
                  <code className="font-mono text-xs break-all">{learnt.list}</code>{' '}
                  {t('capabilities.listLearnt', {
                    facts: listFacts(t, learnt),
                    when: instant(learnt.learnedAt),
                  })}
                </li>
              ))}
            </ul>
          </Fact>
        ) : null}
        {c.probeError ? (
          <Fact name="probeError" testId="probe-error">
            {/* The gateway's own failure in the user's language, the service's words as written. */}
            <span className="whitespace-pre-wrap">
              <WhatFailed message={c.probeError} name={service.name} cause={c.probeErrorCause} />
            </span>
          </Fact>
        ) : null}
      </dl>
    </section>
  );
}
