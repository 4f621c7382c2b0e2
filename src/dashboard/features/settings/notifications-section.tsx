import { Button } from '../../components/button.tsx';
import { ErrorView } from '../../components/error-view.tsx';
import { Spinner } from '../../components/spinner.tsx';
import { useNotifications, useSendTestNotification } from './queries.ts';
import { strings } from './strings.ts';

const RECENT = 10;

/** Administrators: where notifications go, a test message, and what was sent lately. */
export function NotificationsSection() {
  const state = useNotifications();
  const test = useSendTestNotification();
  if (state.error) return <ErrorView error={state.error} />;
  if (!state.data) return <Spinner />;
  const { targets, notifications } = state.data;
  return (
    <div className="flex flex-col gap-3 py-2 text-sm">
      {targets.length === 0 ? (
        <p className="text-slate-600 dark:text-slate-300">{strings.notify.none}</p>
      ) : (
        <div>
          <p className="font-medium text-slate-600 dark:text-slate-300">{strings.notify.targets}</p>
          <ul
            className="mt-1 list-inside list-disc font-mono text-xs"
            aria-label={strings.notify.targets}
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
          disabled={test.isPending}
          disabledReason={targets.length === 0 ? strings.notify.none : undefined}
          onClick={() => test.mutate()}
        >
          {test.isPending ? strings.notify.sending : strings.notify.test}
        </Button>
      </div>
      {test.error ? <ErrorView error={test.error} /> : null}
      <div role="status" aria-live="polite">
        {test.data ? (
          <ul className="flex flex-col gap-1" aria-label={strings.notify.results}>
            {test.data.map((result) => (
              <li key={result.target}>
                <span className="font-mono text-xs">{result.target}</span>{' '}
                <span
                  className={
                    result.outcome === 'sent'
                      ? 'font-medium text-teal-800 dark:text-teal-300'
                      : 'font-medium text-red-800 dark:text-red-300'
                  }
                >
                  {strings.notify.outcome(result.outcome)}
                </span>{' '}
                <span className="text-slate-600 dark:text-slate-300">{result.message}</span>
              </li>
            ))}
          </ul>
        ) : null}
      </div>
      {notifications.length > 0 ? (
        <table className="w-full text-left text-xs">
          <caption className="py-1 text-left font-medium text-slate-600 dark:text-slate-300">
            {strings.notify.recent}
          </caption>
          <thead>
            <tr>
              <th scope="col">{strings.notify.time}</th>
              <th scope="col">{strings.notify.request}</th>
              <th scope="col">{strings.notify.receiver}</th>
              <th scope="col">{strings.notify.result}</th>
            </tr>
          </thead>
          <tbody>
            {notifications.slice(0, RECENT).map((n) => (
              <tr key={`${n.requestId}|${n.status}|${n.target}`}>
                <td>{n.time.replace('T', ' ').slice(0, 19)}</td>
                <td className="font-mono">
                  {n.requestId} {n.status}
                </td>
                <td className="font-mono">{n.target}</td>
                <td>
                  {strings.notify.outcome(n.outcome)} ({strings.notify.attempts(n.attempts)})
                  {n.message ? ` ${n.message}` : ''}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
