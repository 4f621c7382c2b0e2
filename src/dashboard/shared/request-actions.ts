import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import type { OperationName, StatusSemantics } from '../../kit/index.ts';
import { useForbidden } from '../core/auth.ts';
import { statusClass, type Allowed } from '../core/status-semantics.ts';
import { useStatusSemantics } from './use-status-semantics.ts';

/** Whether an action is offered for a request, and if not, why (in words). */
export interface ActionReasons {
  /** Why retry is unavailable (the role first, then the status), undefined when it is offered. */
  readonly retry: string | undefined;
  readonly cancel: string | undefined;
  /** What the service's words say of each: `unknown` is offered, the service deciding. */
  readonly retryAllowed: Allowed;
  readonly cancelAllowed: Allowed;
}

/**
 * Why retry and cancel are unavailable for a request in this state on this service, if
 * they are: first the role (`forbidden`), then the service's status words (its contract's
 * for our engine, configured or learnt from its refusals for an upstream). A word in none
 * of its classes is offered, and the service decides.
 */
export function actionReasons(
  forbidden: (operation: OperationName) => string | undefined,
  status: string,
  semantics: StatusSemantics,
  t: TFunction<'actions'>,
  language: string,
): ActionReasons {
  const word = statusClass(semantics, status);
  const list = (words: readonly string[]) =>
    new Intl.ListFormat(language, { type: 'conjunction' }).format(words);
  const retryWhy =
    word.retry !== 'no'
      ? undefined
      : word.retryRefusal
        ? t('retryRefused', { status, message: word.retryRefusal })
        : semantics.retryable.length > 0
          ? t('retryNotAllowed', { status, list: list(semantics.retryable) })
          : t('retryNever', { status });
  const cancelWhy =
    word.cancel !== 'no'
      ? undefined
      : word.cancelRefusal
        ? t('cancelRefused', { status, message: word.cancelRefusal })
        : word.final
          ? t('cancelEnded', { status })
          : semantics.cancellable.length > 0
            ? t('cancelNotAllowed', { status, list: list(semantics.cancellable) })
            : t('cancelNever', { status });
  return {
    retry: forbidden('requestretry') ?? retryWhy,
    cancel: forbidden('requestcancel') ?? cancelWhy,
    retryAllowed: word.retry,
    cancelAllowed: word.cancel,
  };
}

/** actionReasons for the signed-in user and the service looked at, in the language shown. */
export function useActionReasons(status: string): ActionReasons {
  const { t, i18n } = useTranslation('actions');
  return actionReasons(useForbidden(), status, useStatusSemantics(), t, i18n.language);
}
