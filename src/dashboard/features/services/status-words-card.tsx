import { useTranslation } from 'react-i18next';
import type { ServiceInfo } from '../../../kit/index.ts';
import { semanticsOf } from '../../shared/use-status-semantics.ts';
import { ServiceMark } from '../../shared/service-mark.tsx';

const CLASSES = ['failed', 'waiting', 'running', 'final', 'retryable', 'cancellable'] as const;

/**
 * What a service's status words mean, in plain words: which say a request failed, waits,
 * runs or has ended, which can be retried or cancelled, where that comes from, and what the
 * service refused (learnt from its answers, with when and its own words).
 */
export function StatusWordsCard({
  service,
  instant,
}: {
  service: ServiceInfo;
  instant: (iso: string) => string;
}) {
  const { t, i18n } = useTranslation('services');
  const semantics = semanticsOf(service);
  const list = (words: readonly string[]) =>
    words.length === 0
      ? t('statusWords.none')
      : new Intl.ListFormat(i18n.language, { type: 'conjunction' }).format(words);
  // The name, not the label: two services may share a label such as "production".
  const name = service.name;
  return (
    <section
      aria-label={t('statusWords.section', { name })}
      data-testid={`status-words-${service.id}`}
      className="rounded-lg border border-slate-200 bg-white p-4 text-sm dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 className="mb-1 font-semibold">
        <ServiceMark service={service} />
      </h3>
      <p className="mb-2 text-slate-600 dark:text-slate-300">
        {t(`statusWords.from.${semantics.from}`)}
      </p>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
        {CLASSES.map((c) => (
          <div key={c} className="contents" data-class={c}>
            <dt className="text-slate-600 dark:text-slate-400">{t(`statusWords.class.${c}`)}</dt>
            <dd className="font-mono text-xs leading-5">{list(semantics[c])}</dd>
          </div>
        ))}
      </dl>
      <p className="mt-2 text-slate-600 dark:text-slate-300">
        {service.embedded ? t('statusWords.embeddedPromise') : t('statusWords.upstreamPromise')}
      </p>
      {semantics.learned.length > 0 ? (
        <>
          <h4 className="mt-3 mb-1 font-medium">{t('statusWords.learned')}</h4>
          <ul className="flex flex-col gap-1" data-testid={`learned-${service.id}`}>
            {semantics.learned.map((l) => (
              <li key={`${l.action}|${l.status}`}>
                {t(
                  l.action === 'retry' ? 'statusWords.refusedRetry' : 'statusWords.refusedCancel',
                  {
                    status: l.status,
                    when: l.at ? instant(l.at) : '—',
                  },
                )}{' '}
                <q className="text-slate-600 dark:text-slate-400">{l.message}</q>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}
