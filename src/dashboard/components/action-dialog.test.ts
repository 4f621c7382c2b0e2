import { describe, expect, it, vi } from 'vitest';
import type { RequestDetail } from '../../kit/index.ts';
import { i18n } from '../i18n/index.ts';
import type { FollowedRequest } from '../shared/follow.ts';

// Japanese loads on demand, as in the browser.
await i18n.loadLanguages('ja');

// The dialog's hooks read the signed-in session as they load; outcomeOf and actionTitle
// need none of them.
vi.mock('../core/auth.ts', () => ({}));
vi.mock('../shared/queries.ts', () => ({}));
vi.mock('../shared/follow.ts', () => ({}));
vi.mock('../shared/services.ts', () => ({}));
vi.mock('../shared/service-down.ts', () => ({}));
vi.mock('./dialog.tsx', () => ({}));
const { actionTitle, outcomeOf } = await import('./action-dialog.tsx');

const t = i18n.getFixedT('en', 'actions');
const followed = (
  status: string,
  state: FollowedRequest['state'],
  failure?: string,
): FollowedRequest => ({
  requestId: 'r12',
  state,
  detail: { status } as RequestDetail,
  failure,
});

describe('outcomeOf', () => {
  it('says a retry failed again in the service’s own failed word', () => {
    expect(outcomeOf('retry', followed('Abort', 'ended', 'bad input'), t, ['Abort'])).toEqual({
      text: 'Abort again — bad input',
      tone: 'bad',
    });
  });

  it('does not take a request left as it was for the retry’s outcome', () => {
    expect(outcomeOf('retry', followed('Error', 'untouched'), t)).toEqual({
      text: 'waiting for the service to take it up: still Error',
      tone: 'neutral',
    });
  });

  it('says a retried request failed again, with the service’s reason', () => {
    expect(outcomeOf('retry', followed('Error', 'ended', 'File x is missing'), t)).toEqual({
      text: 'Error again — File x is missing',
      tone: 'bad',
    });
    expect(outcomeOf('retry', followed('Error', 'ended'), t).text).toBe('Error again');
  });

  it('reports the status each action aims for as success', () => {
    expect(outcomeOf('retry', followed('Finish', 'ended'), t)).toEqual({
      text: 'Finish',
      tone: 'good',
    });
    expect(outcomeOf('cancel', followed('Stop', 'ended'), t)).toEqual({
      text: 'Stop',
      tone: 'good',
    });
  });

  it('tells a cancel that came too late as the request ended', () => {
    expect(outcomeOf('cancel', followed('Finish', 'ended'), t)).toEqual({
      text: 'Finish',
      tone: 'neutral',
    });
  });

  it('says it is following while the request runs, and before the service tells it', () => {
    expect(outcomeOf('retry', followed('Process', 'following'), t).text).toBe(
      'following… now Process',
    );
    expect(outcomeOf('retry', undefined, t).text).toBe('following…');
  });

  it('says it in Japanese', () => {
    const ja = i18n.getFixedT('ja', 'actions');
    expect(outcomeOf('retry', followed('Error', 'ended', 'File x is missing'), ja).text).toBe(
      '再び Error — File x is missing',
    );
  });
});

describe('actionTitle', () => {
  it('asks before and says what happened after, naming the service', () => {
    expect(actionTitle('retry', 1, 'Tokyo prod', undefined, t)).toBe(
      'Retry this request on Tokyo prod?',
    );
    expect(actionTitle('retry', 1, 'Tokyo prod', { r1: { state: 'sending' } }, t)).toBe(
      'Retrying on Tokyo prod…',
    );
    expect(actionTitle('retry', 1, 'Tokyo prod', { r1: { state: 'accepted' } }, t)).toBe(
      'Retried on Tokyo prod',
    );
    expect(actionTitle('cancel', 1, undefined, { r1: { state: 'accepted' } }, t)).toBe('Cancelled');
    const some = {
      r1: { state: 'accepted' },
      r2: { state: 'refused', text: 'no' },
      r3: { state: 'accepted' },
    } as const;
    expect(actionTitle('retry', 3, 'Tokyo prod', some, t)).toBe(
      'Retried 2 of 3 requests on Tokyo prod',
    );
    expect(
      actionTitle('cancel', 1, 'Tokyo prod', { r1: { state: 'refused', text: 'no' } }, t),
    ).toBe('Cancel refused by Tokyo prod');
    const ja = i18n.getFixedT('ja', 'actions');
    expect(actionTitle('retry', 1, '東京本番', { r1: { state: 'accepted' } }, ja)).toBe(
      '東京本番 で 1 件を再実行しました',
    );
  });
});
