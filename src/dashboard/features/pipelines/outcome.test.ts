import { describe, expect, it } from 'vitest';
import type { RequestDetail } from '../../../kit/index.ts';
import { i18n } from '../../i18n/index.ts';
import type { FollowedRequest } from '../../shared/follow.ts';
import { outcomeText } from './outcome.ts';

// Japanese loads on demand, as in the browser.
await i18n.loadLanguages('ja');

const en = i18n.getFixedT('en', 'pipelines');
const ja = i18n.getFixedT('ja', 'pipelines');

const detail = (fields: Partial<RequestDetail>): RequestDetail =>
  ({
    requestId: 'pl_1-x',
    status: 'Finish',
    stage: 'Joint',
    endTime: 'x',
    ...fields,
  }) as RequestDetail;

const followed = (
  state: FollowedRequest['state'],
  d: Partial<RequestDetail> | undefined,
  failure?: string,
): FollowedRequest => ({
  requestId: 'pl_1-x',
  state,
  detail: d === undefined ? undefined : detail(d),
  failure,
});

describe('outcomeText', () => {
  it('says a run is still going, with the service’s status and stage', () => {
    expect(outcomeText(followed('unknown', undefined), en).tone).toBe('busy');
    expect(outcomeText(followed('following', { status: 'Process', stage: 'Filter' }), en)).toEqual({
      text: 'Process at stage Filter…',
      tone: 'busy',
    });
  });

  it('reports a finished run with the rows it read, kept and wrote, as far as known', () => {
    const rows = { sensorRows: 1200, filterKept: 0, jointRows: 0 };
    expect(outcomeText(followed('ended', rows), en).text).toBe(
      'Finish — kept 0 of 1,200 rows, wrote 0',
    );
    expect(outcomeText(followed('ended', rows), ja).text).toBe(
      'Finish — 1,200 行中 0 行を残し、0 行を書き込みました',
    );
    expect(outcomeText(followed('ended', { sensorRows: 5, filterKept: 2 }), en).text).toBe(
      'Finish — kept 2 of 5 rows',
    );
    expect(outcomeText(followed('ended', {}), en)).toEqual({ text: 'Finish', tone: 'good' });
  });

  it('reports a failure in the service’s words, or that it gave none', () => {
    expect(
      outcomeText(followed('ended', { status: 'Error' }, 'Input file x was not found'), en),
    ).toEqual({ text: 'Error — Input file x was not found', tone: 'bad' });
    expect(outcomeText(followed('ended', { status: 'Stop' }), en).text).toBe(
      'Stop — the service wrote no reason',
    );
    // A vendor's own word for failure is known by the reason it logged.
    expect(outcomeText(followed('ended', { status: 'Abort' }, 'disk full'), en).text).toBe(
      'Abort — disk full',
    );
    // Or by the service's failed words, when it logged no reason: not a good end.
    expect(outcomeText(followed('ended', { status: 'Abort' }), en, ['Abort'])).toEqual({
      text: 'Abort — the service wrote no reason',
      tone: 'bad',
    });
  });
});
