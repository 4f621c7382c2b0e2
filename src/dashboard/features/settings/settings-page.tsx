import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useAuth } from '../../core/auth.ts';
import { notify } from '../../core/notices.ts';
import { usePreference, type ClockChoice } from '../../core/preferences.ts';
import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Options, PageHeader, Select } from '../../components/fields.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useVersion } from '../../shared/queries.ts';
import { serviceTitle } from '../../shared/environment.ts';
import { useCurrentService, useServices } from '../../shared/services.ts';
import { NotificationsSection } from './notifications-section.tsx';
import { ServerConfirm } from './server-confirm.tsx';
import { TokensSection } from './tokens-section.tsx';
import { useApiSettings, useReissueApiKey, useSetSetting, type SettingSwitch } from './queries.ts';

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

/**
 * What a confirmed switch says, by its keys in the catalogue: its name, hint and the dialog
 * that asks before "off".
 */
const SWITCH_TEXTS = {
  apiEnabled: {
    label: 'enabled',
    hint: 'enabledHint',
    offTitle: 'disableTitle',
    offText: 'disableText',
    keep: 'disableKeep',
    go: 'disableGo',
  },
  sharedKeyEnabled: {
    label: 'sharedKey',
    hint: 'sharedKeyHint',
    offTitle: 'sharedKeyOffTitle',
    offText: 'sharedKeyOffText',
    keep: 'sharedKeyKeep',
    go: 'sharedKeyOffGo',
  },
} as const;

/**
 * A setting switched on at once and off only after the app's own dialog: turning the API or
 * the shared key off can cut this dashboard or scripts off. The shared key's switch chooses
 * between it and personal tokens alone (contract section 12).
 */
function ConfirmedSwitch({ setting, enabled }: { setting: SettingSwitch; enabled: boolean }) {
  const { t } = useTranslation('settings');
  const toggle = useSetSetting(setting);
  const keys = SWITCH_TEXTS[setting];
  const [confirm, setConfirm] = useState(false);
  return (
    <>
      <label className="flex items-center gap-2">
        <input
          type="checkbox"
          role="switch"
          // Named by what it switches; its On/Off beside it is its state, which it says itself.
          aria-label={t(keys.label)}
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
      <p className="mt-1 text-xs text-slate-500 dark:text-slate-400">{t(keys.hint)}</p>
      {toggle.error ? <ErrorView error={toggle.error} /> : null}
      <ServerConfirm
        open={confirm}
        words={{
          title: t(keys.offTitle),
          text: t(keys.offText),
          keep: t(keys.keep),
          go: t(keys.go),
        }}
        change={toggle}
        onClose={() => setConfirm(false)}
        onGo={() => toggle.mutateAsync(false)}
      />
    </>
  );
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
          <ConfirmedSwitch setting="apiEnabled" enabled={apiEnabled} />
        </Row>
        <Row label={t('sharedKey')}>
          <ConfirmedSwitch setting="sharedKeyEnabled" enabled={sharedKeyEnabled} />
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
      <ServerConfirm
        open={confirm}
        words={{
          title: t('confirmTitle'),
          text: t('confirmText'),
          keep: t('keep'),
          go: t('confirmGo'),
        }}
        change={reissue}
        onClose={() => setConfirm(false)}
        onGo={() => reissue.mutateAsync()}
        done={t('updated')}
      />
    </>
  );
}

/** Each clock and the words that name it. */
const CLOCKS = {
  auto: 'time.clockAuto',
  h23: 'time.clock24',
  h12: 'time.clock12',
} as const satisfies Record<ClockChoice, string>;
const CLOCK_CHOICES = Object.keys(CLOCKS) as ClockChoice[];

/** The clock timestamps are shown on: a view preference of this browser. */
function ClockChoiceRow() {
  const { t } = useTranslation('common');
  const [clock, setClock] = usePreference('clock');
  return (
    <Row label={<label htmlFor="settings-clock">{t('time.clock')}</label>}>
      <Select
        id="settings-clock"
        value={clock}
        onChange={(e) =>
          setClock(CLOCK_CHOICES.find((choice) => choice === e.target.value) ?? 'auto')
        }
      >
        <Options values={CLOCK_CHOICES} label={(choice) => t(CLOCKS[choice])} />
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

/** One section of the server's own settings, headed at the level it stands. */
function ServerSection({
  id,
  title,
  level,
  headingSpace = 'py-2',
  children,
}: {
  id: string;
  title: string;
  level: 2 | 3;
  /** The heading's own space: a section whose table brings its own below says pt-2. */
  headingSpace?: 'py-2' | 'pt-2';
  children: ReactNode;
}) {
  const Heading = level === 2 ? 'h2' : 'h3';
  return (
    <section aria-labelledby={id} className={SECTION} data-testid={id}>
      <Heading id={id} className={`${headingSpace} text-sm font-semibold`}>
        {title}
      </Heading>
      {children}
    </section>
  );
}

/** The server's own API, tokens and notifications, headed at the level they stand. */
function ServerSections({ administrator, level }: { administrator: boolean; level: 2 | 3 }) {
  const { t } = useTranslation('settings');
  const auth = useAuth();
  return (
    <>
      <ServerSection id="settings-api" title={t('api')} level={level}>
        {administrator ? (
          <ApiSettings />
        ) : (
          <p className="py-2 text-sm text-slate-600 dark:text-slate-300">
            {auth?.kind === 'apiKey' ? t('viaKey') : t('readOnly')}
          </p>
        )}
      </ServerSection>
      {auth?.kind === 'session' ? (
        <ServerSection
          id="settings-tokens"
          title={t('tokens.title')}
          level={level}
          headingSpace="pt-2"
        >
          <TokensSection />
        </ServerSection>
      ) : null}
      {administrator ? (
        <ServerSection id="settings-notifications" title={t('notify.title')} level={level}>
          <NotificationsSection />
        </ServerSection>
      ) : null}
    </>
  );
}
