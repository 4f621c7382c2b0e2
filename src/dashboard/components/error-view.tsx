import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { HttpError, NetworkError, PipelineKitError, TimeoutError } from '../../kit/index.ts';
import { i18n } from '../i18n/index.ts';
import { currentService } from '../app/current-service.ts';
import { upstreamFailureOf } from '../shared/upstream-message.ts';
import { failureText, WhatFailed } from '../shared/what-failed.tsx';

/** The parts of an error worth showing: the service's Code and Message when it sent them. */
export function describeError(
  error: unknown,
  t: TFunction<'common'> = i18n.t,
): {
  title: string;
  code?: number | undefined;
  message: string;
} {
  if (error instanceof HttpError) {
    const upstream = upstreamFailureOf(error);
    return {
      title: t('error.http', { status: error.status }),
      code: error.code,
      // Our server's sentence about the service behind it, in the reader's language (an
      // action's outcome is text, not markup); anything else as the service wrote it.
      message: upstream
        ? failureText(t, {
            message: upstream.message,
            name: currentService().name ?? '',
            code: upstream.code,
          })
        : (error.serviceMessage ?? error.message),
    };
  }
  if (error instanceof NetworkError)
    return {
      title: t('error.unreachableTitle'),
      message: t('error.unreachable'),
    };
  if (error instanceof TimeoutError) return { title: t('error.timeout'), message: error.message };
  if (error instanceof PipelineKitError || error instanceof Error)
    return { title: t('error.generic'), message: error.message };
  return { title: t('error.generic'), message: String(error) };
}

export function ErrorView({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const { t } = useTranslation();
  const { title, code, message } = describeError(error, t);
  const upstream = upstreamFailureOf(error);
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100"
    >
      <p className="font-semibold">
        {title}
        {code !== undefined ? (
          <span className="ml-2 font-mono">{t('error.code', { code })}</span>
        ) : null}
      </p>
      <p className="mt-1 wrap-break-word" data-testid="error-message">
        {/* Our server's answer that the service looked at failed: its own sentence in the
            user's language, the service's words as written. */}
        {upstream ? (
          <WhatFailed
            message={upstream.message}
            name={currentService().name ?? ''}
            code={upstream.code}
          />
        ) : (
          message
        )}
      </p>
      {onRetry ? (
        <button type="button" onClick={onRetry} className="mt-2 text-sm font-medium underline">
          {t('error.tryAgain')}
        </button>
      ) : null}
    </div>
  );
}
