import { Trans, useTranslation } from 'react-i18next';
import { useTimeFormat } from './use-time.ts';
import { serviceTitle } from './environment.ts';
import { useServiceDown } from './service-down.ts';
import { WhatFailed } from './what-failed.tsx';

/** A catalogue text with one instant in it, kept a `<time>` whatever the language's word order. */
export function WithTime({
  i18nKey,
  iso,
  name,
  testId,
}: {
  i18nKey: 'down.titleSince' | 'down.asOf' | 'down.shownAsOf';
  iso: string;
  name?: string;
  testId?: string;
}) {
  const { t } = useTranslation();
  const time = useTimeFormat();
  return (
    <span data-testid={testId}>
      <Trans
        t={t}
        i18nKey={i18nKey}
        // The service's name is configuration, not upstream text; its message stays outside.
        values={{ time: time.instant(iso), name }}
        components={{
          time: <time dateTime={iso} className="whitespace-nowrap" />,
          strong: <strong className="font-semibold" />,
        }}
      />
    </span>
  );
}

/**
 * Above every page of a service the server cannot reach: what failed (its words, as text),
 * since when, how old what is still shown is, and that actions are off until it answers.
 */
export function ServiceDownBanner() {
  const { t } = useTranslation();
  const down = useServiceDown();
  if (!down) return null;
  const name = serviceTitle(down.service);
  return (
    <div
      role="alert"
      data-testid="service-down"
      data-service={down.service.id}
      className="border-b border-red-300 bg-red-50 px-4 py-2 text-sm text-red-950 dark:border-red-800 dark:bg-red-950 dark:text-red-50"
    >
      <div className="mx-auto flex max-w-screen-2xl flex-col gap-0.5">
        <p>
          {down.since ? (
            <WithTime
              i18nKey="down.titleSince"
              iso={down.since}
              name={name}
              testId="service-down-since"
            />
          ) : (
            <strong className="font-semibold">{t('down.title', { name })}</strong>
          )}
        </p>
        {down.message ? (
          <p className="wrap-break-word" data-testid="service-down-message">
            <WhatFailed message={down.message} name={down.service.name} cause={down.cause} />
          </p>
        ) : null}
        <p>
          {down.asOf ? (
            <WithTime i18nKey="down.asOf" iso={down.asOf} testId="service-down-as-of" />
          ) : (
            t('down.asOfUnknown')
          )}
        </p>
      </div>
    </div>
  );
}

/**
 * Beside data a page still shows while its service is down: the time it was read. Nothing
 * while the service answers.
 */
export function AsOf({ updatedAt }: { updatedAt: number }) {
  const down = useServiceDown();
  if (!down || !updatedAt) return null;
  return (
    <p
      data-testid="as-of"
      className="mb-2 inline-block rounded bg-amber-100 px-2 py-0.5 text-xs text-amber-950 dark:bg-amber-950 dark:text-amber-50"
    >
      <WithTime i18nKey="down.shownAsOf" iso={new Date(updatedAt).toISOString()} />
    </p>
  );
}
