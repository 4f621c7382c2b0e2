import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import type { BulkJob } from '../../../kit/index.ts';
import { bulkSelectionOf, bulkStillRunning, bulkTitle } from './bulk.ts';

// A viewer, who may neither retry nor cancel: the sign-in is stood in for here; the page
// asks forbiddenReason as every action button does.
vi.mock('../../core/auth.ts', () => ({
  useAuth: () => ({ kind: 'session', role: 'viewer' }),
  useClients: () => ({}),
  useForbidden: () => (operation: string) =>
    `The viewer role may not ${operation === 'requestretry' ? 'retry' : 'cancel'} requests.`,
}));
// Whether the service is down reads the browser's stored preferences (its times' zone):
// the service answers here.
vi.mock('../../shared/service-down.ts', () => ({ useServiceDown: () => undefined }));
const { i18n } = await import('../../i18n/index.ts');
await i18n.loadLanguages('ja');

const { BulkBar } = await import('./bulk-bar.tsx');

const view = {
  date: '20261122',
  range: undefined,
  rangeProblem: undefined,
  pipeline: 'pl_2',
  status: [],
  q: undefined,
  index: 0,
  size: 50,
};

describe('bulkSelectionOf', () => {
  it('takes the view’s statuses when the action takes them all, else its default or none', () => {
    expect(bulkSelectionOf('retry', { ...view, status: ['Error', 'Stop'] })?.statuses).toEqual([
      'Error',
      'Stop',
    ]);
    expect(bulkSelectionOf('retry', view)?.statuses).toEqual(['Error']);
    expect(bulkSelectionOf('cancel', view)?.statuses).toEqual(['Wait']);
    expect(bulkSelectionOf('retry', { ...view, status: ['Error', 'Wait'] })).toBeUndefined();
    expect(bulkSelectionOf('cancel', { ...view, q: 'x' })).toMatchObject({ id: 'pl_2', q: 'x' });
  });
});

describe('bulkStillRunning', () => {
  const job = (statuses: string[] | undefined) =>
    ({
      now:
        statuses &&
        ({
          accepted: 3,
          unknown: 0,
          statuses: statuses.map((status) => ({ status, count: 1 })),
        } as const),
    }) as unknown as BulkJob;
  it('is true while an accepted request is in a status that may still change', () => {
    expect(bulkStillRunning(job(['Finish', 'Error', 'Stop']))).toBe(false);
    expect(bulkStillRunning(job(['Finish', 'Wait']))).toBe(true);
    // A vendor's own word is not known to be final: it is followed.
    expect(bulkStillRunning(job(['Finish', 'Queued']))).toBe(true);
    expect(bulkStillRunning(job(undefined))).toBe(false);
    expect(bulkStillRunning(undefined)).toBe(false);
  });
});

describe('BulkBar', () => {
  it('shows a role that may not act its buttons disabled and why, as text', () => {
    const html = renderToStaticMarkup(
      <QueryClientProvider client={new QueryClient()}>
        <BulkBar view={{ ...view, status: ['Error'] }} total={39} />
      </QueryClientProvider>,
    );
    expect(html).toContain('Retry all 39 requests in Error of pl_2 on 2026-11-22…');
    // Disabled for acting, still focusable, its reason named to assistive technology.
    expect(html).toMatch(
      /<button[^>]*aria-disabled="true" aria-describedby="[^"]+"[^>]*>(<span[^>]*>)?Retry all 39/,
    );
    expect(html).toContain('Bulk actions: The viewer role may not retry requests.');
  });
});

describe('bulkTitle', () => {
  const t = i18n.getFixedT('en', 'requests');
  const job = (state: BulkJob['state'], succeeded: number) => ({ state, total: 39, succeeded });
  it('asks before, names the service, and says what happened once the job is done', () => {
    expect(bulkTitle('retry', undefined, undefined, 'Tokyo prod (production)', t)).toBe(
      'Retry by filter on Tokyo prod (production)',
    );
    expect(bulkTitle('retry', 39, undefined, 'Tokyo prod', t)).toBe(
      'Retry 39 requests on Tokyo prod?',
    );
    expect(bulkTitle('cancel', 1, undefined, undefined, t)).toBe('Cancel 1 request?');
    expect(bulkTitle('retry', 39, job('running', 3), 'Tokyo prod', t)).toBe(
      'Retrying 39 requests on Tokyo prod…',
    );
    expect(bulkTitle('retry', 39, job('done', 39), 'Tokyo prod', t)).toBe(
      'Retried 39 requests on Tokyo prod',
    );
    expect(bulkTitle('cancel', 39, job('done', 37), undefined, t)).toBe(
      'Cancelled 37 of 39 requests',
    );
    expect(bulkTitle('retry', 39, job('stopped', 12), 'Tokyo prod', t)).toBe(
      'Retry stopped on Tokyo prod: 12 of 39 requests retried',
    );
    // Never the question again once done, in Japanese too.
    const ja = i18n.getFixedT('ja', 'requests');
    expect(bulkTitle('retry', 39, job('done', 39), '東京本番', ja)).toBe(
      '東京本番 のリクエスト 39 件を再実行しました',
    );
  });
});
