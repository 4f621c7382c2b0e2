import { useState } from 'react';
import { useAuth, useClients } from '../../app/auth.ts';
import { notify } from '../../app/notices.ts';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { DETAIL_PARAMS, useRawDetail } from './queries.ts';
import { strings } from './strings.ts';

const shellQuote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export function RawView({ requestId }: { requestId: string }) {
  const [format, setFormat] = useState<'xml' | 'json'>('xml');
  const [reveal, setReveal] = useState(false);
  const raw = useRawDetail(requestId, format);
  const { pipeline } = useClients();
  const auth = useAuth();
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
    notify({ kind: 'success', text: strings.raw.curlCopied });
  };
  return (
    <div className="flex flex-col gap-3">
      <p className="text-sm text-slate-600 dark:text-slate-300">{strings.raw.intro}</p>
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex flex-col gap-1 text-sm">
          <span className="font-medium">{strings.raw.format}</span>
          <Select value={format} onChange={(e) => setFormat(e.target.value as 'xml' | 'json')}>
            <option value="xml">XML</option>
            <option value="json">JSON</option>
          </Select>
        </label>
        <Button size="sm" onClick={() => void copyCurl()}>
          {strings.raw.curl}
        </Button>
        {auth ? (
          <Button size="sm" variant="ghost" onClick={() => setReveal(!reveal)}>
            {reveal ? strings.raw.hide : strings.raw.reveal}
          </Button>
        ) : null}
      </div>
      <pre
        data-testid="curl"
        // Scroll regions take focus so keyboard users can scroll them (WCAG 2.1.1).
        tabIndex={0}
        role="region"
        aria-label={strings.raw.curlRegion}
        className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs text-slate-100"
      >
        {curl}
      </pre>
      {raw.error ? <ErrorView error={raw.error} /> : null}
      {raw.isPending ? (
        <Spinner />
      ) : (
        <pre
          data-testid="raw"
          tabIndex={0}
          role="region"
          aria-label={strings.raw.region}
          className="max-h-[32rem] overflow-auto rounded-md border border-slate-200 bg-white p-3 text-xs whitespace-pre-wrap dark:border-slate-800 dark:bg-slate-900"
        >
          {format === 'json' && raw.data ? JSON.stringify(JSON.parse(raw.data), null, 2) : raw.data}
        </pre>
      )}
    </div>
  );
}
