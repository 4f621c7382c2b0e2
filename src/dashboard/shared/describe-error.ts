import type { TFunction } from 'i18next';
import { HttpError, NetworkError, PipelineKitError, TimeoutError } from '../../kit/index.ts';
import { currentService } from '../core/current-service.ts';
import { i18n } from '../i18n/index.ts';
import { upstreamFailureOf } from './upstream-message.ts';
import { failureText } from './what-failed.tsx';

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
