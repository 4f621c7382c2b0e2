import { CANCELLABLE_STATUSES, RETRYABLE_STATUSES, type RequestStatus } from '../../kit/index.ts';
import { forbiddenReason, type Auth } from '../app/auth.ts';
import { strings } from './strings.ts';

/** Why retry and cancel are unavailable for a request in this state, if they are. */
export function actionReasons(
  auth: Auth | null,
  status: string,
): { retry: string | undefined; cancel: string | undefined } {
  const state = status as RequestStatus;
  return {
    retry:
      forbiddenReason(auth, 'requestretry') ??
      (RETRYABLE_STATUSES.includes(state) ? undefined : strings.retryNotAllowed(status)),
    cancel:
      forbiddenReason(auth, 'requestcancel') ??
      (CANCELLABLE_STATUSES.includes(state) ? undefined : strings.cancelNotAllowed(status)),
  };
}
