import { describe, expect, it } from 'vitest';
import type { RequestList, RequestSummary } from '../../../kit/index.ts';
import { mergeChanges, type RefreshedList } from './refresh.ts';

const request = (n: number, status = 'Finish', second = n): RequestSummary => ({
  requestId: `pl_1-20261122_10-${String(n).padStart(6, '0')}`,
  pipelineId: 'pl_1',
  name: 'Orders',
  status,
  stage: status === 'Finish' ? 'Complete' : 'Sensor',
  beginDate: `2026-11-22 10:00:${String(second).padStart(2, '0')}`,
  begin: null,
});

const list = (rows: RequestSummary[], total: number, asOf = '20261122100100'): RefreshedList => ({
  requests: rows,
  info: {
    index: 0,
    prev: -1,
    next: rows.length < total ? rows.length : -1,
    count: rows.length,
    total,
    error: false,
    date: '20261122',
    id: '',
    asOf,
  },
});

const changes = (rows: RequestSummary[], asOf = '20261122100105'): RequestList =>
  list(rows, rows.length, asOf);

// Newest first, as the service lists: 5, 4, 3 on the page of 3, out of 5.
const page = list([request(5, 'Wait'), request(4, 'Error'), request(3)], 5);
const all = { status: [] as string[], size: 3, index: 0 };

describe('a refresh that reads only what changed', () => {
  it('keeps the page, moves its AsOf on, when nothing changed or a change is read twice', () => {
    const merged = mergeChanges(page, changes([request(4, 'Error')]), all);
    expect(merged?.requests).toBe(page.requests);
    expect(merged?.info.asOf).toBe('20261122100105');
    expect(merged?.info.total).toBe(5);
  });

  it('updates a row of the page where it is', () => {
    const merged = mergeChanges(page, changes([request(5, 'Finish')]), all);
    expect(merged?.requests.map((r) => r.status)).toEqual(['Finish', 'Error', 'Finish']);
    expect(merged?.info.total).toBe(5);
  });

  it('puts new requests on top of the first page and counts them in the Total', () => {
    const merged = mergeChanges(page, changes([request(7, 'Wait'), request(6, 'Wait')]), all);
    expect(merged?.requests.map((r) => r.requestId.slice(-1))).toEqual(['7', '6', '5']);
    expect(merged?.info.total).toBe(7);
    expect(merged?.info.next).toBe(3);
  });

  it('leaves a request elsewhere on the day alone, once and when seen again', () => {
    const once = mergeChanges(page, changes([request(1, 'Error')]), all);
    expect(once?.requests).toBe(page.requests);
    const again = mergeChanges(once as RefreshedList, changes([request(1, 'Error')]), all);
    expect(again?.info.total).toBe(5);
  });

  it('reads the page again where merging cannot stay exact', () => {
    const errors = { status: ['Error'], size: 3, index: 0 };
    const errorPage = list([request(4, 'Error')], 1);
    // The one error was retried: it left the filter.
    expect(mergeChanges(errorPage, changes([request(4, 'Wait')]), errors)).toBeUndefined();
    // A request not on the page, whose earlier status is unknown, may have entered or left.
    expect(mergeChanges(errorPage, changes([request(2, 'Finish')]), errors)).toBeUndefined();
    // New requests shift a later page.
    expect(mergeChanges(page, changes([request(6, 'Wait')]), { ...all, index: 3 })).toBeUndefined();
    // More changes than one answer holds.
    const many = changes([request(6)]);
    expect(mergeChanges(page, { ...many, info: { ...many.info, next: 1 } }, all)).toBeUndefined();
  });

  it('with a status filter, ignores a request known to stay outside it', () => {
    const errors = { status: ['Error'], size: 3, index: 0 };
    const errorPage = list([request(4, 'Error')], 1);
    const withKnown: RefreshedList = {
      ...errorPage,
      seen: new Map([[request(2).requestId, `Wait\u0000Sensor\u0000Orders`]]),
    };
    const merged = mergeChanges(withKnown, changes([request(2, 'Finish')]), errors);
    expect(merged?.info.total).toBe(1);
  });
});
