import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth, useClients } from '../../core/auth.ts';
import { notify } from '../../core/notices.ts';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useCurrentService } from '../../shared/services.ts';
import { DETAIL_PARAMS, useRawDetail } from './queries.ts';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function RawView({ requestId }: { requestId: string }) {
  const { t } = useTranslation('requestDetail');
  const [format, setFormat] = useState<'xml' | 'json'>('xml');
  const [reveal, setReveal] = useState(false);
  const raw = useRawDetail(requestId, format);
  const { pipeline } = useClients();
  const auth = useAuth();
  const service = useCurrentService();
  const url = new URL(
    pipeline.urlOf(`/requestdetail/${format}`, DETAIL_PARAMS(requestId)),
    window.location.origin,
  ).toString();
  const headers = Object.entries(pipeline.authHeaders()).map(
    ([name, value]) => `-H ${shellQuote(`${name}: ${reveal ? value : '••••••••'}`)}`,
  );
  const curl = ['curl', ...headers, shellQuote(url)].join(' ');
  const copyCurl = async () => {
    await navigator.clipboard.writeText(curl);
    notify({ kind: 'success', text: t('raw.curlCopied') });
  };
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-600 dark:text-slate-300">
        {service.embedded ? t('raw.intro') : t('raw.introGateway', { name: service.name })}
      </p>
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{t('raw.format')}</span>
          <Select value={format} onChange={(e) => setFormat(e.target.value as 'xml' | 'json')}>
            <option value="xml">{t('raw.xml')}</option>
            <option value="json">{t('raw.json')}</option>
          </Select>
        </label>
        <Button size="sm" onClick={() => void copyCurl()}>
          {t('raw.curl')}
        </Button>
        {auth ? (
          <Button size="sm" variant="ghost" onClick={() => setReveal(!reveal)}>
            {reveal ? t('raw.hide') : t('raw.reveal')}
          </Button>
        ) : null}
      </div>
      <ScrollRegion
        testId="curl"
        label={t('raw.curlRegion')}
        className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100"
      >
        {curl}
      </ScrollRegion>
      {raw.error ? <ErrorView error={raw.error} /> : null}
      {raw.isPending ? (
        <Spinner />
      ) : (
        <ScrollRegion
          testId="raw"
          label={t('raw.region')}
          className="max-h-[32rem] overflow-auto rounded-md border border-slate-200 bg-white p-3 text-xs whitespace-pre-wrap dark:border-slate-800 dark:bg-slate-900"
        >
          {format === 'json' && raw.data ? JSON.stringify(JSON.parse(raw.data), null, 2) : raw.data}
        </ScrollRegion>
      )}
    </div>
  );
}

/** Text that may overflow its box, named for screen readers. */
function ScrollRegion({
  testId,
  label,
  className,
  children,
}: {
  testId: string;
  label: string;
  className: string;
  children: ReactNode;
}) {
  return (
    <pre
      data-testid={testId}
      // Scroll regions take focus so keyboard users can scroll them (WCAG 2.1.1).
      tabIndex={0}
      role="region"
      aria-label={label}
      className={className}
    >
      {children}
    </pre>
  );
}
