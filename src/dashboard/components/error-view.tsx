import { useTranslation } from 'react-i18next';
import { currentService } from '../core/current-service.ts';
import { upstreamFailureOf } from '../shared/upstream-message.ts';
import { describeError } from '../shared/describe-error.ts';
import { WhatFailed } from '../shared/what-failed.tsx';

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
