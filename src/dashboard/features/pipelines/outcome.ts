import type { TFunction } from 'i18next';
import { CONTRACT_WORDS } from '../../../kit/index.ts';
import type { FollowedRequest } from '../../shared/follow.ts';

/**
 * What became of the run, in the service's words: its status, rows or failure message.
 * `failed`: the service's words for a failed request (ours: Error; a vendor's may be Abort);
 * a stopped run (ours: Stop) did not end well either.
 */
export function outcomeText(
  followed: FollowedRequest,
  t: TFunction<'pipelines'>,
  failed: readonly string[] = CONTRACT_WORDS.failed,
): { text: string; tone: 'busy' | 'good' | 'bad' } {
  const { detail, failure } = followed;
  if (detail === undefined) return { text: t('exec.waiting'), tone: 'busy' };
  const { status, stage } = detail;
  if (followed.state !== 'ended')
    return { text: t('exec.running', { status, stage }), tone: 'busy' };
  if (status !== 'Finish' && (failure !== undefined || [...failed, 'Stop'].includes(status))) {
    return {
      text:
        failure === undefined
          ? t('exec.failedNoReason', { status })
          : t('exec.failed', { status, message: failure }),
      tone: 'bad',
    };
  }
  const { sensorRows: read, filterKept: kept, jointRows: written } = detail;
  if (read !== undefined && kept !== undefined) {
    return {
      text:
        written === undefined
          ? t('exec.finishedKept', { status, read, kept })
          : t('exec.finishedRows', { status, read, kept, written }),
      tone: 'good',
    };
  }
  return { text: t('exec.ended', { status }), tone: 'good' };
}
