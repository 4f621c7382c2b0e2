import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ServiceInfo, UpstreamCause } from '../../kit/index.ts';
import { useTimeFormat } from './use-time.ts';
import { serviceTitle } from './environment.ts';
import { servicesKeys, useCurrentService, useServices } from './services.ts';
import { isUpstreamFailure } from './upstream-message.ts';

// What a message about a service behind the gateway says: read without hooks or storage.
export {
  isUpstreamFailure,
  readUpstreamMessage,
  upstreamFailureOf,
  type FailureTold,
  type UpstreamMessage,
} from './upstream-message.ts';

/** The service looked at, when the server found it unreachable: what failed and since when. */
export interface ServiceDown {
  readonly service: ServiceInfo;
  /** Why, in the words of the service or of the call that met it: untrusted text, or ''. */
  readonly message: string;
  /** The message's cause when it is the gateway's own sentence (read with WhatFailed). */
  readonly cause: UpstreamCause | undefined;
  /** Since when it has not answered (ISO), or '' when the server has not said. */
  readonly since: string;
  /** The server's copy of its request lists is as of this time (ISO), or ''. */
  readonly asOf: string;
  /** Why an action is off, for a Button's `disabledReason`: names the service and the time. */
  readonly reason: string;
}

/**
 * Whether the service every page shows is down, by the server's own check and by the first
 * call that met it stopped (`GET /mcapi/services`). Pages disable their actions with
 * `reason` and mark what they still show as of its time:
 *
 * @example
 * const down = useServiceDown();
 * <Button disabledReason={forbidden('exec') ?? down?.reason}>Execute</Button>
 */
export function useServiceDown(): ServiceDown | undefined {
  const { t } = useTranslation();
  const time = useTimeFormat();
  const { known } = useServices();
  const service = useCurrentService();
  // Only a list the server gave can say a service is down (an API key sign-in has none);
  // the server itself not answering is the shell's own banner (core/connection.ts).
  if (!known || service.reachable || service.embedded) return undefined;
  const name = serviceTitle(service);
  return {
    service,
    message: service.message,
    cause: service.cause,
    since: service.since,
    asOf: service.indexedAt,
    reason: service.since
      ? t('down.reasonSince', { name, time: time.instant(service.since) })
      : t('down.reason', { name }),
  };
}

/**
 * For the shell: a call that meets an upstream failure asks the server's list again at once
 * (the server has just learnt it, see gateway/directory.ts), so that the banner shows within
 * the upstream timeout rather than at the list's next refresh; and when the service answers
 * again, everything shown is read again, so that nothing stays marked "as of".
 */
export function useWatchUpstreamFailures(): void {
  const queryClient = useQueryClient();
  const down = useServiceDown() !== undefined;
  const wasDown = useRef(down);
  // Read by the subscriptions below, which outlive a render.
  const isDown = useRef(down);
  useEffect(() => {
    const refresh = () => {
      if (queryClient.isFetching({ queryKey: servicesKeys.list() }) > 0) return;
      void queryClient.invalidateQueries({ queryKey: servicesKeys.list() });
    };
    // A failure of the upstream, or an answer of a service said to be down: either may
    // change what the list says.
    const seen = (action: { type: string; error?: unknown }, key: unknown) => {
      if (action.type === 'error' && isUpstreamFailure(action.error)) refresh();
      else if (action.type === 'success' && isDown.current && key !== 'services') refresh();
    };
    const queries = queryClient.getQueryCache().subscribe((event) => {
      if (event.type === 'updated') seen(event.action, event.query.queryKey[0]);
    });
    const mutations = queryClient.getMutationCache().subscribe((event) => {
      if (event.type === 'updated') seen(event.action, undefined);
    });
    return () => {
      queries();
      mutations();
    };
  }, [queryClient]);
  useEffect(() => {
    if (wasDown.current && !down)
      void queryClient.invalidateQueries({
        predicate: (query) => query.queryKey[0] !== 'services',
      });
    wasDown.current = down;
    isDown.current = down;
  }, [down, queryClient]);
}
