import { forbiddenReason, type Auth } from '../app/auth.ts';
import { strings } from './strings.ts';

/**
 * Statuses our own contract refuses each action in. Statuses are an open set (a vendor
 * says Running, Abort, Queued...), so the rule is what is forbidden, not what is allowed:
 * anything else is offered, and the service's answer is shown if it refuses.
 */
const RETRY_FORBIDDEN: readonly string[] = ['Finish', 'Wait', 'Start', 'Process'];
const CANCEL_FORBIDDEN: readonly string[] = ['Finish', 'Error', 'Stop'];

/**
 * Why retry and cancel are unavailable for a request in this state, if they are. Only our
 * embedded service's rules are known here; for an upstream both are offered whatever the
 * status, and the upstream decides.
 */
export function actionReasons(
  auth: Auth | null,
  status: string,
  embedded: boolean,
): { retry: string | undefined; cancel: string | undefined } {
  return {
    retry:
      forbiddenReason(auth, 'requestretry') ??
      (embedded && RETRY_FORBIDDEN.includes(status) ? strings.retryNotAllowed(status) : undefined),
    cancel:
      forbiddenReason(auth, 'requestcancel') ??
      (embedded && CANCEL_FORBIDDEN.includes(status)
        ? strings.cancelNotAllowed(status)
        : undefined),
  };
}
