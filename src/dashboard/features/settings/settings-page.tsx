import type { UseMutateFunction } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../core/auth.ts';
import { notify } from '../../core/notices.ts';
import { usePreference, type ClockChoice } from '../../core/preferences.ts';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { PageHeader, Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useVersion } from '../../shared/queries.ts';
import { serviceTitle } from '../../shared/environment.ts';
import { useCurrentService, useServices } from '../../shared/services.ts';
import { NotificationsSection } from './notifications-section.tsx';
import { TokensSection } from './tokens-section.tsx';
import {
  useApiSettings,
  useReissueApiKey,
  useSetApiEnabled,
  useSetSharedKeyEnabled,
} from './queries.ts';

const SECTION =
  'rounded-lg border border-slate-200 bg-white px-4 py-2 dark:border-slate-800 dark:bg-slate-900';

function Row({ label, children }: { label: ReactNode; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-2 sm:grid-cols-[12rem_1fr]">
      <dt className="text-sm font-medium text-slate-600 dark:text-slate-300">{label}</dt>
      {/* Words wrap whole; only what has no spaces (ids, keys) may break inside. */}
      <dd className="min-w-0 text-sm wrap-break-word">{children}</dd>
    </div>
  );
}

/** What a confirmed switch says: its name, hint and the dialog that asks before "off". */
interface SwitchTexts {
  readonly label: string;
  readonly hint: string;
  readonly offTitle: string;
  readonly offText: string;
  readonly keep: string;
  readonly go: string;
}

/**
 * A setting switched on at once and off only after the app's own dialog: turning the API or
 * the shared key off can cut this dashboard or scripts off.
 */
function ConfirmedSwitch({
  enabled,
  toggle,
  texts,
}: {
  enabled: boolean;
  toggle: {
    isPending: boolean;
    error: Error | null;
    mutate: UseMutateFunction<unknown, Error, boolean>;
  };
  texts: SwitchTexts;
}) {
  const { t } = useTranslation('settings');
  const [confirm, setConfirm] = useState(false);
  return (
    <>
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          role="switch"
          // Named by what it switches; its On/Off beside it is its state, which it says itself.
          aria-label={texts.label}
          aria-checked={enabled}
          checked={enabled}
          disabled={toggle.isPending}
          onChange={(e) => {
            if (e.target.checked) toggle.mutate(true);
            else setConfirm(true);
          }}
        />
        <span>{enabled ? t('on') : t('off')}</span>
      </label>
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{texts.hint}</p>
      {toggle.error ? <ErrorView error={toggle.error} /> : null}
      <Dialog
        open={confirm}
        about="server"
        title={texts.offTitle}
        onClose={() => setConfirm(false)}
        footer={
          <>
            <Button onClick={() => setConfirm(false)}>{texts.keep}</Button>
            <Button
              variant="danger"
              disabled={toggle.isPending}
              onClick={() => toggle.mutate(false, { onSettled: () => setConfirm(false) })}
            >
              {texts.go}
            </Button>
          </>
        }
      >
        <p>{texts.offText}</p>
      </Dialog>
    </>
  );
}

function ApiSwitch({ enabled }: { enabled: boolean }) {
  const { t } = useTranslation('settings');
  const texts = {
    label: t('enabled'),
    hint: t('enabledHint'),
    offTitle: t('disableTitle'),
    offText: t('disableText'),
    keep: t('disableKeep'),
    go: t('disableGo'),
  };
  return <ConfirmedSwitch enabled={enabled} toggle={useSetApiEnabled()} texts={texts} />;
}

/** The shared key, or personal tokens alone (contract section 12). */
function SharedKeySwitch({ enabled }: { enabled: boolean }) {
  const { t } = useTranslation('settings');
  const texts = {
    label: t('sharedKey'),
    hint: t('sharedKeyHint'),
    offTitle: t('sharedKeyOffTitle'),
    offText: t('sharedKeyOffText'),
    keep: t('sharedKeyKeep'),
    go: t('sharedKeyOffGo'),
  };
  return <ConfirmedSwitch enabled={enabled} toggle={useSetSharedKeyEnabled()} texts={texts} />;
}

function ApiSettings() {
  const { t } = useTranslation('settings');
  const settings = useApiSettings();
  const [reveal, setReveal] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const reissue = useReissueApiKey();
  if (settings.error) return <ErrorView error={settings.error} />;
  if (!settings.data) return <Spinner />;
  const { apiEnabled, apiKey, sharedKeyEnabled } = settings.data;
  const masked = apiKey ? `${apiKey.slice(0, 4)}${'•'.repeat(24)}` : '';
  return (
    <>
      <dl className="divide-y divide-slate-100 dark:divide-slate-800">
        <Row label={t('enabled')}>
          <ApiSwitch enabled={apiEnabled} />
        </Row>
        <Row label={t('sharedKey')}>
          <SharedKeySwitch enabled={sharedKeyEnabled} />
        </Row>
        <Row label={t('key')}>
          {apiKey ? (
            <div className="flex flex-wrap items-center gap-2">
              <code
                data-testid="api-key"
                className="rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all dark:bg-slate-800"
              >
                {reveal ? apiKey : masked}
              </code>
              <Button size="sm" onClick={() => setReveal(!reveal)}>
                {reveal ? t('hide') : t('reveal')}
              </Button>
              <Button
                size="sm"
                onClick={() =>
                  void navigator.clipboard
                    .writeText(apiKey)
                    .then(() => notify({ kind: 'success', text: t('copied') }))
                }
              >
                {t('copy')}
              </Button>
              <Button size="sm" variant="danger" onClick={() => setConfirm(true)}>
                {t('update')}
              </Button>
            </div>
          ) : (
            <span className="text-slate-500 dark:text-slate-400">{t('noKey')}</span>
          )}
        </Row>
      </dl>
      <Dialog
        open={confirm}
        about="server"
        title={t('confirmTitle')}
        onClose={() => setConfirm(false)}
        footer={
          <>
            <Button onClick={() => setConfirm(false)}>{t('keep')}</Button>
            <Button
              variant="danger"
              disabled={reissue.isPending}
              onClick={() =>
                reissue.mutate(undefined, {
                  onSuccess: () => {
                    setConfirm(false);
                    notify({ kind: 'success', text: t('updated') });
                  },
                })
              }
            >
              {t('confirmGo')}
            </Button>
          </>
        }
      >
        <p>{t('confirmText')}</p>
        {reissue.error ? <ErrorView error={reissue.error} /> : null}
      </Dialog>
    </>
  );
}

const CLOCKS = [
  ['auto', 'time.clockAuto'],
  ['h23', 'time.clock24'],
  ['h12', 'time.clock12'],
] as const satisfies readonly (readonly [ClockChoice, string])[];

/** The clock timestamps are shown on: a view preference of this browser. */
function ClockChoiceRow() {
  const { t } = useTranslation('common');
  const [clock, setClock] = usePreference('clock');
  return (
    <Row label={<label htmlFor="settings-clock">{t('time.clock')}</label>}>
      <Select
        id="settings-clock"
        value={clock}
        onChange={(e) => setClock(CLOCKS.find(([c]) => c === e.target.value)?.[0] ?? 'auto')}
      >
        {CLOCKS.map(([value, key]) => (
          <option key={value} value={value}>
            {t(key)}
          </option>
        ))}
      </Select>
    </Row>
  );
}

/**
 * Settings keep apart what belongs to the service looked at and what belongs to this server.
 * Behind a gateway the pipeline API switch, its key, personal tokens and notifications are the
 * server's: every service's pages and scripts go through them. An operator looking at a
 * vendor's service must not take them for that service's (its own key stays on the server,
 * never shown), yet must still find them wherever they are: so they stay on every service's
 * Settings, under "This server", saying so, rather than only under one service.
 */
export function SettingsPage() {
  const { t } = useTranslation('settings');
  const auth = useAuth();
  const version = useVersion();
  const { services, known } = useServices();
  const service = useCurrentService();
  const administrator = auth?.kind === 'session' && auth.role === 'administrator';
  // A lone embedded service is this server: one page of settings, as it always was.
  const apart = known && (services.length > 1 || !service.embedded);
  const name = serviceTitle(service);
  return (
    <>
      <PageHeader title={t('title')} />
      <div className="flex max-w-3xl flex-col gap-5">
        <section
          aria-labelledby="settings-service"
          className={SECTION}
          data-testid="settings-service"
        >
          <h2 id="settings-service" className="py-2 text-sm font-semibold">
            {apart ? t('serviceNamed', { name }) : t('service')}
          </h2>
          <dl className="divide-y divide-slate-100 dark:divide-slate-800">
            <Row label={t('version')}>{version.data ?? '…'}</Row>
            {apart ? (
              <Row label={t('serviceKey')}>
                {service.embedded ? t('serviceKeyEmbedded') : t('serviceKeyUpstream', { name })}
              </Row>
            ) : (
              <ServerRows />
            )}
          </dl>
        </section>
        {apart ? (
          <div className="flex flex-col gap-3" data-testid="settings-server">
            <div>
              <h2 className="text-base font-semibold">{t('server')}</h2>
              <p className="text-sm text-slate-600 dark:text-slate-300">
                {service.embedded
                  ? t('serverHintEmbedded', { name })
                  : t('serverHintUpstream', { name })}
              </p>
            </div>
            <section aria-labelledby="settings-server-id" className={SECTION}>
              <h3 id="settings-server-id" className="py-2 text-sm font-semibold">
                {t('serverIdentity')}
              </h3>
              <dl className="divide-y divide-slate-100 dark:divide-slate-800">
                <ServerRows />
              </dl>
            </section>
            <ServerSections administrator={administrator} level={3} />
          </div>
        ) : (
          <ServerSections administrator={administrator} level={2} />
        )}
        <section aria-labelledby="settings-display" className={SECTION}>
          <h2 id="settings-display" className="pt-2 text-sm font-semibold">
            {t('display')}
          </h2>
          <p className="text-xs text-slate-500 dark:text-slate-400">{t('displayHint')}</p>
          <dl>
            <ClockChoiceRow />
          </dl>
        </section>
      </div>
    </>
  );
}

/** This server's name and id. */
function ServerRows() {
  const { t } = useTranslation('settings');
  const auth = useAuth();
  return (
    <>
      <Row label={t('serverName')}>
        {auth?.kind === 'session' ? auth.serverName : window.location.host}
      </Row>
      {auth?.kind === 'session' ? (
        <Row label={t('serverId')}>
          <span className="font-mono text-xs break-all">{auth.serverId}</span>
        </Row>
      ) : null}
    </>
  );
}

/** The server's own API, tokens and notifications, headed at the level they stand. */
function ServerSections({ administrator, level }: { administrator: boolean; level: 2 | 3 }) {
  const { t } = useTranslation('settings');
  const auth = useAuth();
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <>
      <section aria-labelledby="settings-api" className={SECTION} data-testid="settings-api">
        <Heading id="settings-api" className="py-2 text-sm font-semibold">
          {t('api')}
        </Heading>
        {administrator ? (
          <ApiSettings />
        ) : (
          <p className="py-2 text-sm text-slate-600 dark:text-slate-300">
            {auth?.kind === 'apiKey' ? t('viaKey') : t('readOnly')}
          </p>
        )}
      </section>
      {auth?.kind === 'session' ? (
        <section aria-labelledby="settings-tokens" className={SECTION}>
          <Heading id="settings-tokens" className="pt-2 text-sm font-semibold">
            {t('tokens.title')}
          </Heading>
          <TokensSection />
        </section>
      ) : null}
      {administrator ? (
        <section aria-labelledby="settings-notifications" className={SECTION}>
          <Heading id="settings-notifications" className="py-2 text-sm font-semibold">
            {t('notify.title')}
          </Heading>
          <NotificationsSection />
        </section>
      ) : null}
    </>
  );
}
