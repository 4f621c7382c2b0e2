import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { Button } from './button.tsx';
import { Dialog } from './dialog.tsx';
import { describeError } from '../shared/describe-error.ts';
import { CONTRACT_WORDS, EXECUTE_SUCCESS, retriedAs, type RequestDetail } from '../../kit/index.ts';
import { Link } from 'react-router';
import { paths } from '../paths.ts';
import { useClients } from '../core/auth.ts';
import { FOLLOWED_LOGS, useFollowedRequests, type FollowedRequest } from '../shared/follow.ts';
import { useRequestAction } from '../shared/queries.ts';
import { needsMarking, serviceTitle } from '../shared/environment.ts';
import { useServiceDown } from '../shared/service-down.ts';
import { useCurrentService, useServices } from '../shared/services.ts';
import { useStatusSemantics } from '../shared/use-status-semantics.ts';

type Action = 'retry' | 'cancel';
export type Call =
  | { state: 'sending' }
  | {
      state: 'accepted';
      /** The service's own words when they say more than interfaces.md's "Success". */
      said?: string;
      /** The request the service says runs the retry, when another (retriedAs). */
      as?: string;
    }
  | { state: 'refused'; text: string };

/** The request to follow for a call: the one the service says runs it, else the one asked. */
const followedId = (requestId: string, call: Call | undefined): string =>
  (call?.state === 'accepted' ? call.as : undefined) ?? requestId;
type Tone = 'neutral' | 'good' | 'bad';

// What each action sets out to reach: anything else it ends in is reported as it is.
const AIM: Record<Action, string> = { retry: 'Finish', cancel: 'Stop' };

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
  /** The service's words for a request that failed (ours: Error; a vendor's may be Abort). */
  failed: readonly string[] = CONTRACT_WORDS.failed,
): { text: string; tone: Tone } {
  const detail = followed?.detail;
  if (!followed || !detail) return { text: t('outcome.following'), tone: 'neutral' };
  const status = detail.status;
  if (followed.state === 'untouched')
    return { text: t('outcome.untouched', { status }), tone: 'neutral' };
  if (followed.state !== 'ended')
    return { text: t('outcome.followingNow', { status }), tone: 'neutral' };
  if (status === AIM[action]) return { text: t('outcome.ended', { status }), tone: 'good' };
  const message = followed.failure;
  // A retried request that fails again; a cancel that came too late ends as it ended.
  if (action === 'retry' && failed.includes(status))
    return {
      text: message ? t('outcome.againWhy', { status, message }) : t('outcome.again', { status }),
      tone: 'bad',
    };
  return {
    text: message ? t('outcome.endedWhy', { status, message }) : t('outcome.ended', { status }),
    tone: failed.includes(status) ? 'bad' : 'neutral',
  };
}

/**
 * The dialog's title: the question before it is asked ("Retry 39 requests on Tokyo prod?"),
 * then what happened ("Retried on Tokyo prod", "Retried 2 of 3 requests…", "Retry refused…"),
 * so that a dialog whose action is done never still asks. `service` is named when given.
 */
export function actionTitle(
  action: Action,
  count: number,
  service: string | undefined,
  calls: Readonly<Record<string, Call>> | undefined,
  t: TFunction<'actions'>,
): string {
  const on = service !== undefined;
  if (calls === undefined) {
    if (action === 'retry') {
      if (count === 1) return on ? t('confirm.retryThisOn', { service }) : t('confirm.retryThis');
      return on
        ? t('confirm.retryTitleOn', { count, service })
        : t('confirm.retryTitle', { count });
    }
    if (count === 1) return on ? t('confirm.cancelThisOn', { service }) : t('confirm.cancelThis');
    return on
      ? t('confirm.cancelTitleOn', { count, service })
      : t('confirm.cancelTitle', { count });
  }
  const states = Object.values(calls);
  const retry = action === 'retry';
  if (states.some((c) => c.state === 'sending'))
    return on
      ? t(retry ? 'doneTitle.retryingOn' : 'doneTitle.cancellingOn', { count, service })
      : t(retry ? 'doneTitle.retrying' : 'doneTitle.cancelling', { count });
  const accepted = states.filter((c) => c.state === 'accepted').length;
  if (accepted === 0)
    return on
      ? t(retry ? 'doneTitle.retryRefusedOn' : 'doneTitle.cancelRefusedOn', { count, service })
      : t(retry ? 'doneTitle.retryRefused' : 'doneTitle.cancelRefused', { count });
  if (accepted < count)
    return on
      ? t(retry ? 'doneTitle.retriedSomeOn' : 'doneTitle.cancelledSomeOn', {
          accepted,
          count,
          service,
        })
      : t(retry ? 'doneTitle.retriedSome' : 'doneTitle.cancelledSome', { accepted, count });
  return on
    ? t(retry ? 'doneTitle.retriedOn' : 'doneTitle.cancelledOn', { count, service })
    : t(retry ? 'doneTitle.retried' : 'doneTitle.cancelled', { count });
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
  returnFocusTo,
}: {
  action: Action;
  requestIds: readonly string[];
  onClose: (done: boolean) => void;
  /** Where focus goes on close when the button that opened the dialog is gone. */
  returnFocusTo?: () => HTMLElement | undefined;
}) {
  const { t } = useTranslation('actions');
  const mutation = useRequestAction();
  const { pipeline } = useClients();
  const [calls, setCalls] = useState<Record<string, Call>>();
  // Each request as it was before a retry: a service may answer OK and leave a failed
  // request as it was for a while (a queued retry), which is not the retry's outcome.
  const [before] = useState(() => new Map<string, RequestDetail>());
  const accepted = requestIds
    .filter((id) => calls?.[id]?.state === 'accepted')
    .map((id) => followedId(id, calls?.[id]));
  const followed = useFollowedRequests(accepted, before);
  const byId = new Map(followed.map((f) => [f.requestId, f]));
  const sending = calls !== undefined && Object.values(calls).some((c) => c.state === 'sending');
  const following = followed.filter((f) => f.state !== 'ended').length;
  const start = async () => {
    setCalls(Object.fromEntries(requestIds.map((id) => [id, { state: 'sending' } as Call])));
    for (const requestId of requestIds) {
      try {
        if (action === 'retry') {
          const was = await pipeline
            .requestDetail(requestId, FOLLOWED_LOGS, 'json')
            // Unread, the outcome is judged without it, as before; the retry says the rest.
            .catch(() => undefined);
          if (was) before.set(requestId, was);
        }
        const answer = await mutation.mutateAsync({ action, requestId });
        const said = answer.message.trim();
        const as = action === 'retry' ? retriedAs(answer, requestId) : undefined;
        setCalls((c) => ({
          ...c,
          [requestId]: {
            state: 'accepted',
            ...(said !== '' && said !== EXECUTE_SUCCESS.Message ? { said } : {}),
            ...(as === undefined ? {} : { as }),
          },
        }));
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
  const semantics = useStatusSemantics();
  const { services } = useServices();
  const current = useCurrentService();
  const down = useServiceDown();
  // The service is named wherever there is another it could be mistaken for, so that its
  // callers need not: "Retry 39 requests on Tokyo prod (production)?".
  const service = needsMarking(current, services.length) ? serviceTitle(current) : undefined;
  const title = actionTitle(action, count, service, calls, t);
  return (
    <Dialog
      open
      title={title}
      returnFocusTo={returnFocusTo}
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
              // A service that went down while the dialog was open refuses before it is asked.
              disabledReason={down?.reason}
              onClick={() => void start()}
            >
              {t(action === 'cancel' ? 'confirm.goCancel' : 'confirm.goRetry')}
            </Button>
          </>
        )
      }
    >
      <p className="mb-3 text-slate-600 dark:text-slate-300">
        {/* Only our engine is known to run a retry again from the stage where it stopped,
            and to leave nothing half-written on a cancel: interfaces.md says neither. */}
        {action === 'retry'
          ? t(current.embedded ? 'confirm.retryText' : 'confirm.retryTextUpstream')
          : t(current.embedded ? 'confirm.cancelText' : 'confirm.cancelTextUpstream')}
      </p>
      <ul className="flex flex-col gap-2" data-testid="action-targets" aria-live="polite">
        {requestIds.map((id) => {
          const call = calls?.[id];
          const outcome =
            call?.state === 'accepted'
              ? outcomeOf(action, byId.get(followedId(id, call)), t, semantics.failed)
              : undefined;
          return (
            <li key={id} data-request={id} className="flex flex-col gap-0.5 text-xs">
              <span className="flex flex-wrap items-baseline gap-x-2">
                <span className="font-mono">{id}</span>
                {call?.state === 'sending' ? (
                  <span className="text-slate-600 dark:text-slate-300">{t('outcome.sending')}</span>
                ) : null}
                {call?.state === 'accepted' ? (
                  <span className="text-slate-600 dark:text-slate-300">
                    {/* The service's words are data, shown as it wrote them. */}
                    {call.said === undefined
                      ? t('outcome.accepted')
                      : t('outcome.acceptedSaid', { message: call.said })}
                  </span>
                ) : null}
                {call?.state === 'refused' ? (
                  <span className="text-red-700 dark:text-red-400">{call.text}</span>
                ) : null}
              </span>
              {call?.state === 'accepted' && call.as !== undefined ? (
                <span data-testid="action-new-request">
                  {t('outcome.newRequest')}{' '}
                  <Link
                    to={paths.request(call.as)}
                    className="font-mono text-teal-700 hover:underline dark:text-teal-400"
                  >
                    {call.as}
                  </Link>
                </span>
              ) : null}
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
