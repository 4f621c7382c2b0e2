import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from '../../components/button.tsx';
import { Dialog } from '../../components/dialog.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { Instant } from '../../components/time.tsx';
import { useNotifications, useSendTestNotification } from './queries.ts';
import { SettingsTable } from './settings-table.tsx';

const RECENT = 10;

/** The server's outcome word in the language shown; one it has no name for stays as sent. */
function useOutcome(): (outcome: string) => string {
  const { t } = useTranslation('settings');
  return (outcome) =>
    outcome === 'sent' ? t('notify.sent') : outcome === 'failed' ? t('notify.failed') : outcome;
}

/** Asks before sending, then shows each receiver's answer until closed. */
function TestDialog({ targets, onClose }: { targets: readonly string[]; onClose: () => void }) {
  const { t } = useTranslation('settings');
  const outcome = useOutcome();
  const test = useSendTestNotification();
  const done = test.data !== undefined;
  return (
    <Dialog
      open
      about="server"
      title={t('notify.testTitle')}
      onClose={onClose}
      footer={
        done ? (
          <Button onClick={onClose}>{t('notify.close')}</Button>
        ) : (
          <>
            <Button onClick={onClose}>{t('notify.keep')}</Button>
            <Button variant="primary" disabled={test.isPending} onClick={() => test.mutate()}>
              {test.isPending ? t('notify.sending') : t('notify.send')}
            </Button>
          </>
        )
      }
    >
      <p>{t('notify.testText', { count: targets.length })}</p>
      <ul className="mt-1 mb-2 list-inside list-disc font-mono text-xs break-all">
        {targets.map((target) => (
          <li key={target}>{target}</li>
        ))}
      </ul>
      {test.error ? <ErrorView error={test.error} /> : null}
      <div role="status" aria-live="polite">
        {test.data ? (
          <ul className="flex flex-col gap-1" aria-label={t('notify.results')}>
            {test.data.map((result) => (
              <li key={result.target} className="break-words">
                <span className="font-mono text-xs break-all">{result.target}</span>{' '}
                <span
                  className={
                    result.outcome === 'sent'
                      ? 'font-medium text-teal-800 dark:text-teal-300'
                      : 'font-medium text-red-800 dark:text-red-300'
                  }
                >
                  {outcome(result.outcome)}
                </span>{' '}
                <span className="text-slate-600 dark:text-slate-300">{result.message}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </Dialog>
  );
}

/** Administrators: where notifications go, a test message, and what was sent lately. */
export function NotificationsSection() {
  const { t } = useTranslation('settings');
  const outcome = useOutcome();
  const state = useNotifications();
  const [testing, setTesting] = useState(false);
  if (state.error) return <ErrorView error={state.error} />;
  if (!state.data) return <Spinner />;
  const { targets, notifications } = state.data;
  return (
    <div className="flex flex-col gap-3 py-2 text-sm">
      {targets.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-300">{t('notify.none')}</p>
      ) : (
        <div>
          <p className="font-medium text-slate-600 dark:text-slate-300">{t('notify.targets')}</p>
          <ul
            className="mt-1 list-inside list-disc font-mono text-xs break-all"
            aria-label={t('notify.targets')}
          >
            {targets.map((target) => (
              <li key={target}>{target}</li>
            ))}
          </ul>
        </div>
      )}
      <div>
        <Button
          size="sm"
          disabledReason={targets.length === 0 ? t('notify.none') : undefined}
          onClick={() => setTesting(true)}
        >
          {t('notify.test')}
        </Button>
      </div>
      {testing ? (
        <TestDialog
          targets={targets}
          onClose={() => {
            setTesting(false);
            // What the test sent joins the list below.
            void state.refetch();
          }}
        />
      ) : null}
      {notifications.length > 0 ? (
        <SettingsTable
          caption={t('notify.recent')}
          headers={(['time', 'request', 'receiver', 'result'] as const).map((column) =>
            t(`notify.${column}`),
          )}
        >
          {notifications.slice(0, RECENT).map((n) => (
            <tr key={`${n.requestId}|${n.status}|${n.target}`}>
              <td>
                <Instant iso={n.time} />
              </td>
              <td className="font-mono">
                {n.requestId} {n.status}
              </td>
              <td className="font-mono break-all">{n.target}</td>
              <td>
                {outcome(n.outcome)} ({t('notify.attempts', { count: n.attempts })})
                {n.message ? ` ${n.message}` : ''}
              </td>
            </tr>
          ))}
        </SettingsTable>
      ) : null}
    </div>
  );
}
