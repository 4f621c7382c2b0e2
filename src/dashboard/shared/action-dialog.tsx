import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Button } from '../components/button.tsx';
import { Dialog } from '../components/dialog.tsx';
import { describeError } from '../components/error-view.tsx';
import { useFollowedRequests, type FollowedRequest } from './follow.ts';
import { useRequestAction } from './queries.ts';

type Action = 'retry' | 'cancel';
type Call = { state: 'sending' } | { state: 'accepted' } | { state: 'refused'; text: string };
type Tone = 'neutral' | 'good' | 'bad';

// What each action sets out to reach: anything else it ends in is reported as it is.
const AIM: Record<Action, string> = { retry: 'Finish', cancel: 'Stop' };
const FAILED: readonly string[] = ['Error', 'Stop'];

const TONE_STYLE: Record<Tone, string> = {
  neutral: 'text-slate-600 dark:text-slate-300',
  good: 'text-emerald-700 dark:text-emerald-400',
  bad: 'text-red-700 dark:text-red-400',
};

/** What became of a request the service accepted the action for, in words and a tone. */
export function outcomeOf(
  action: Action,
  followed: FollowedRequest | undefined,
  t: TFunction<'actions'>,
): { text: string; tone: Tone } {
  const detail = followed?.detail;
  if (!followed || !detail) return { text: t('outcome.following'), tone: 'neutral' };
  const status = detail.status;
  if (followed.state !== 'ended')
    return { text: t('outcome.followingNow', { status }), tone: 'neutral' };
  if (status === AIM[action]) return { text: t('outcome.ended', { status }), tone: 'good' };
  const message = followed.failure;
  // A retried request that fails again; a cancel that came too late ends as it ended.
  if (action === 'retry' && FAILED.includes(status))
    return {
      text: message ? t('outcome.againWhy', { status, message }) : t('outcome.again', { status }),
      tone: 'bad',
    };
  return {
    text: message ? t('outcome.endedWhy', { status, message }) : t('outcome.ended', { status }),
    tone: FAILED.includes(status) ? 'bad' : 'neutral',
  };
}

/**
 * Confirms a retry or cancel of the named requests, runs it for each one, and then follows
 * each request the service accepted until it ends, reporting what it ended as (a retry that
 * fails again says so, with the service's reason); a refusal shows the service's Code and
 * Message. It names exactly the requests it was given. Closing stops the following.
 */
export function ActionDialog({
  action,
  requestIds,
  onClose,
}: {
  action: Action;
  requestIds: readonly string[];
  onClose: (done: boolean) => void;
}) {
  const { t } = useTranslation('actions');
  const mutation = useRequestAction();
  const [calls, setCalls] = useState<Record<string, Call>>();
  const accepted = requestIds.filter((id) => calls?.[id]?.state === 'accepted');
  const followed = useFollowedRequests(accepted);
  const byId = new Map(followed.map((f) => [f.requestId, f]));
  const sending = calls !== undefined && Object.values(calls).some((c) => c.state === 'sending');
  const following = followed.filter((f) => f.state !== 'ended').length;
  const start = async () => {
    setCalls(Object.fromEntries(requestIds.map((id) => [id, { state: 'sending' } as Call])));
    for (const requestId of requestIds) {
      try {
        await mutation.mutateAsync({ action, requestId });
        setCalls((c) => ({ ...c, [requestId]: { state: 'accepted' } }));
      } catch (error) {
        const { code, message } = describeError(error);
        setCalls((c) => ({
          ...c,
          [requestId]: {
            state: 'refused',
            text:
              code !== undefined
                ? t('outcome.refusedCode', { code, message })
                : t('outcome.refused', { message }),
          },
        }));
      }
    }
  };
  const count = requestIds.length;
  const title =
    action === 'retry'
      ? count === 1
        ? t('confirm.retryThis')
        : t('confirm.retryTitle', { count })
      : count === 1
        ? t('confirm.cancelThis')
        : t('confirm.cancelTitle', { count });
  return (
    <Dialog
      open
      title={title}
      onClose={() => onClose(calls !== undefined)}
      footer={
        calls ? (
          <Button onClick={() => onClose(true)} disabled={sending}>
            {t('confirm.done')}
          </Button>
        ) : (
          <>
            <Button onClick={() => onClose(false)}>{t('confirm.keep')}</Button>
            <Button
              variant={action === 'cancel' ? 'danger' : 'primary'}
              onClick={() => void start()}
            >
              {t('confirm.go')}
            </Button>
          </>
        )
      }
    >
      <p className="mb-3 text-slate-600 dark:text-slate-300">
        {action === 'retry' ? t('confirm.retryText') : t('confirm.cancelText')}
      </p>
      <ul className="flex flex-col gap-2" data-testid="action-targets" aria-live="polite">
        {requestIds.map((id) => {
          const call = calls?.[id];
          const outcome =
            call?.state === 'accepted' ? outcomeOf(action, byId.get(id), t) : undefined;
          return (
            <li key={id} data-request={id} className="flex flex-col gap-0.5 text-xs">
              <span className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-mono">{id}</span>
                {call?.state === 'sending' ? (
                  <span className="text-slate-600 dark:text-slate-300">{t('outcome.sending')}</span>
                ) : null}
                {call?.state === 'accepted' ? (
                  <span className="text-slate-600 dark:text-slate-300">
                    {t('outcome.accepted')}
                  </span>
                ) : null}
                {call?.state === 'refused' ? (
                  <span className="text-red-700 dark:text-red-400">{call.text}</span>
                ) : null}
              </span>
              {outcome ? (
                <span
                  data-testid="action-outcome"
                  data-tone={outcome.tone}
                  className={`break-words ${TONE_STYLE[outcome.tone]}`}
                >
                  {outcome.text}
                </span>
              ) : null}
            </li>
          );
        })}
      </ul>
      {accepted.length > 0 ? (
        <p className="mt-3 text-xs text-slate-600 dark:text-slate-300" role="status">
          {following > 0
            ? t('outcome.stillFollowing', { count: following })
            : t('outcome.allEnded')}
        </p>
      ) : null}
    </Dialog>
  );
}
