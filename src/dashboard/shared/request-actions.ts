import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { OperationName } from '../../kit/index.ts';
import { useForbidden } from '../app/auth.ts';
import { useCurrentService } from './services.ts';

/**
 * Statuses our own contract refuses each action in. Statuses are an open set (a vendor
 * says Running, Abort, Queued...), so the rule is what is forbidden, not what is allowed:
 * anything else is offered, and the service's answer is shown if it refuses.
 */
const RETRY_FORBIDDEN: readonly string[] = ['Finish', 'Wait', 'Start', 'Process'];
const CANCEL_FORBIDDEN: readonly string[] = ['Finish', 'Error', 'Stop'];

/**
 * Why retry and cancel are unavailable for a request in this state, if they are: first the
 * role (`forbidden`), then the status. Only our embedded service's rules are known here;
 * for an upstream both are offered whatever the status, and the upstream decides.
 */
export function actionReasons(
  forbidden: (operation: OperationName) => string | undefined,
  status: string,
  embedded: boolean,
  t: TFunction<'actions'>,
): { retry: string | undefined; cancel: string | undefined } {
  return {
    retry:
      forbidden('requestretry') ??
      (embedded && RETRY_FORBIDDEN.includes(status) ? t('retryNotAllowed', { status }) : undefined),
    cancel:
      forbidden('requestcancel') ??
      (embedded && CANCEL_FORBIDDEN.includes(status)
        ? t('cancelNotAllowed', { status })
        : undefined),
  };
}

/** actionReasons for the signed-in user and the service looked at, in the language shown. */
export function useActionReasons(status: string) {
  const { t } = useTranslation('actions');
  return actionReasons(useForbidden(), status, useCurrentService().embedded, t);
}
