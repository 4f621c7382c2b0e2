import { useState, type ReactNode } from 'react';
import { useAuth } from '../../app/auth.ts';
import { notify } from '../../app/notices.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useVersion } from '../../shared/queries.ts';
import { NotificationsSection } from './notifications-section.tsx';
import { useApiSettings, useReissueApiKey, useSetApiEnabled } from './queries.ts';
import { strings } from './strings.ts';

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-2 sm:grid-cols-[12rem_1fr]">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-300">{label}</dt>
      <dd className="text-sm break-all">{children}</dd>
    </div>
  );
}

function ApiSettings() {
  const settings = useApiSettings();
  const [reveal, setReveal] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const toggle = useSetApiEnabled();
  const reissue = useReissueApiKey();
  if (settings.error) return <ErrorView error={settings.error} />;
  if (!settings.data) return <Spinner />;
  const { apiEnabled, apiKey } = settings.data;
  const masked = apiKey ? `${apiKey.slice(0, 4)}${'•'.repeat(24)}` : '';
  return (
    <>
      <Row label={strings.enabled}>
        <label className="flex items-center gap-2">
          <input
            type="checkbox"
            role="switch"
            aria-checked={apiEnabled}
            checked={apiEnabled}
            disabled={toggle.isPending}
            onChange={(e) => {
              if (!e.target.checked && !window.confirm(strings.disableConfirm)) return;
              toggle.mutate(e.target.checked);
            }}
          />
          <span>{apiEnabled ? strings.on : strings.off}</span>
        </label>
        <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{strings.enabledHint}</p>
        {toggle.error ? <ErrorView error={toggle.error} /> : null}
      </Row>
      <Row label={strings.key}>
        {apiKey ? (
          <div className="flex flex-wrap items-center gap-2">
            <code
              data-testid="api-key"
              className="rounded bg-slate-100 px-2 py-1 font-mono text-xs dark:bg-slate-800"
            >
              {reveal ? apiKey : masked}
            </code>
            <Button size="sm" onClick={() => setReveal(!reveal)}>
              {reveal ? strings.hide : strings.reveal}
            </Button>
            <Button
              size="sm"
              onClick={() =>
                void navigator.clipboard
                  .writeText(apiKey)
                  .then(() => notify({ kind: 'success', text: strings.copied }))
              }
            >
              {strings.copy}
            </Button>
            <Button size="sm" variant="danger" onClick={() => setConfirm(true)}>
              {strings.update}
            </Button>
          </div>
        ) : (
          <span className="text-slate-500 dark:text-slate-400">{strings.noKey}</span>
        )}
      </Row>
      {confirm ? (
        <Dialog
          open
          title={strings.confirmTitle}
          onClose={() => setConfirm(false)}
          footer={
            <>
              <Button onClick={() => setConfirm(false)}>{strings.keep}</Button>
              <Button
                variant="danger"
                disabled={reissue.isPending}
                onClick={() =>
                  reissue.mutate(undefined, {
                    onSuccess: () => {
                      setConfirm(false);
                      notify({ kind: 'success', text: strings.updated });
                    },
                  })
                }
              >
                {strings.confirmGo}
              </Button>
            </>
          }
        >
          <p>{strings.confirmText}</p>
          {reissue.error ? <ErrorView error={reissue.error} /> : null}
        </Dialog>
      ) : null}
    </>
  );
}

export function SettingsPage() {
  const auth = useAuth();
  const version = useVersion();
  return (
    <>
      <PageHeader title={strings.title} />
      <div className="flex max-w-3xl flex-col gap-5">
        <section className="rounded-lg border border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
          <h2 className="py-2 text-sm font-semibold">{strings.service}</h2>
          <dl className="divide-y divide-slate-100 dark:divide-slate-800">
            <Row label={strings.version}>{version.data ?? '…'}</Row>
            <Row label={strings.serverName}>
              {auth?.kind === 'session' ? auth.serverName : window.location.host}
            </Row>
            {auth?.kind === 'session' ? (
              <Row label={strings.serverId}>
                <span className="font-mono text-xs">{auth.serverId}</span>
              </Row>
            ) : null}
          </dl>
        </section>
        <section className="rounded-lg border border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900">
          <h2 className="py-2 text-sm font-semibold">{strings.api}</h2>
          {auth?.kind === 'session' && auth.role === 'administrator' ? (
            <dl className="divide-y divide-slate-100 dark:divide-slate-800">
              <ApiSettings />
            </dl>
          ) : (
            <p className="py-2 text-sm text-slate-600 dark:text-slate-300">
              {auth?.kind === 'apiKey' ? strings.viaKey : strings.readOnly}
            </p>
          )}
        </section>
        {auth?.kind === 'session' && auth.role === 'administrator' ? (
          <section
            aria-labelledby="settings-notifications"
            className="rounded-lg border border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900"
          >
            <h2 id="settings-notifications" className="py-2 text-sm font-semibold">
              {strings.notify.title}
            </h2>
            <NotificationsSection />
          </section>
        ) : null}
      </div>
    </>
  );
}
