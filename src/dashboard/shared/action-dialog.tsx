import { useState } from 'react';
import { Button } from '../components/button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { describeError } from '../components/error-view.tsx';
import { useRequestAction } from './queries.ts';
import { strings } from './strings.ts';

type Outcome = { state: 'pending' } | { state: 'ok' } | { state: 'error'; text: string };

/**
 * Confirms a retry or cancel of the named requests, then runs it for each one and reports
 * each one's result; it names exactly the requests it was given.
 */
export function ActionDialog({
  action,
  requestIds,
  onClose,
}: {
  action: 'retry' | 'cancel';
  requestIds: readonly string[];
  onClose: (done: boolean) => void;
}) {
  const mutation = useRequestAction();
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>();
  const running =
    outcomes !== undefined && Object.values(outcomes).some((o) => o.state === 'pending');
  const start = async () => {
    setOutcomes(Object.fromEntries(requestIds.map((id) => [id, { state: 'pending' } as Outcome])));
    for (const requestId of requestIds) {
      try {
        await mutation.mutateAsync({ action, requestId });
        setOutcomes((o) => ({ ...o, [requestId]: { state: 'ok' } }));
      } catch (error) {
        const { code, message } = describeError(error);
        setOutcomes((o) => ({
          ...o,
          [requestId]: {
            state: 'error',
            text: `${code !== undefined ? `[${code}] ` : ''}${message}`,
          },
        }));
      }
    }
  };
  const title =
    action === 'retry'
      ? strings.confirm.retryTitle(requestIds.length)
      : strings.confirm.cancelTitle(requestIds.length);
  return (
    <Dialog
      open
      title={title}
      onClose={() => onClose(outcomes !== undefined)}
      footer={
        outcomes ? (
          <Button onClick={() => onClose(true)} disabled={running}>
            {strings.confirm.done}
          </Button>
        ) : (
          <>
            <Button onClick={() => onClose(false)}>{strings.confirm.keep}</Button>
            <Button
              variant={action === 'cancel' ? 'danger' : 'primary'}
              onClick={() => void start()}
            >
              {strings.confirm.go}
            </Button>
          </>
        )
      }
    >
      <p className="mb-3 text-slate-600 dark:text-slate-300">
        {action === 'retry' ? strings.confirm.retryText : strings.confirm.cancelText}
      </p>
      <ul className="flex flex-col gap-1" data-testid="action-targets">
        {requestIds.map((id) => {
          const outcome = outcomes?.[id];
          return (
            <li
              key={id}
              className="flex flex-wrap items-baseline justify-between gap-2 font-mono text-xs"
            >
              <span>{id}</span>
              {outcome?.state === 'pending' ? (
                <span className="text-slate-500 dark:text-slate-400">…</span>
              ) : null}
              {outcome?.state === 'ok' ? (
                <span className="font-sans text-emerald-700 dark:text-emerald-400">
                  ✓ {strings.confirm.ok}
                </span>
              ) : null}
              {outcome?.state === 'error' ? (
                <span className="font-sans text-red-700 dark:text-red-400">✕ {outcome.text}</span>
              ) : null}
            </li>
          );
        })}
      </ul>
    </Dialog>
  );
}
