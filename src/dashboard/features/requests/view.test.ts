import { describe, expect, it } from 'vitest';
import {
  readRequestsView,
  searchWith,
  statusChoices,
  statusesFrom,
  toggledStatus,
} from './view.ts';

describe('readRequestsView', () => {
  it('reads date, pipeline, statuses, search, index and size from the URL', () => {
    const search = new URLSearchParams(
      'date=20261121&pipeline=pl_2&status=Error,Stop&q=orders&index=100&size=500',
    );
    expect(readRequestsView(search, 100, '20261122')).toEqual({
      date: '20261121',
      pipeline: 'pl_2',
      status: ['Error', 'Stop'],
      q: 'orders',
      index: 100,
      size: 500,
    });
  });

  it('takes the preferred size when the URL has none, and leaves empty filters out', () => {
    const view = readRequestsView(new URLSearchParams('pipeline=&status=&q=+'), 50, '20261122');
    expect([view.pipeline, view.status, view.q, view.index, view.size]).toEqual([
      undefined,
      [],
      undefined,
      0,
      50,
    ]);
    expect(view.date).toBe('20261122');
  });
});

describe('statusChoices', () => {
  it('offers our statuses, then the words the service used and the URL asks for', () => {
    const rows = [{ status: 'Running' }, { status: 'Error' }, { status: 'Abort' }];
    expect(statusChoices(rows, ['Queued'])).toEqual([
      'Wait',
      'Start',
      'Process',
      'Finish',
      'Error',
      'Stop',
      'Abort',
      'Queued',
      'Running',
    ]);
  });
});

describe('searchWith', () => {
  it('goes back to the first page on any change but paging', () => {
    const search = new URLSearchParams('date=20261121&index=100');
    expect(searchWith(search, { pipeline: 'pl_1' }).toString()).toBe('date=20261121&pipeline=pl_1');
  });

  it('pages, and leaves out Index 0 and empty values', () => {
    const search = new URLSearchParams('date=20261121&pipeline=pl_1');
    expect(searchWith(search, { index: 50 }).toString()).toBe(
      'date=20261121&pipeline=pl_1&index=50',
    );
    expect(searchWith(search, { index: 0, pipeline: '' }).toString()).toBe('date=20261121');
  });
});

describe('statusesFrom and toggledStatus', () => {
  it('reads comma-separated statuses without blanks or repeats', () => {
    expect(statusesFrom(' Error,,Stop,Error ')).toEqual(['Error', 'Stop']);
    expect(statusesFrom(null)).toEqual([]);
  });

  it('turns one status on or off, keeping the order of the choices', () => {
    const choices = ['Wait', 'Error', 'Stop'];
    expect(toggledStatus(['Stop'], 'Error', true, choices)).toBe('Error,Stop');
    expect(toggledStatus(['Error', 'Stop'], 'Error', false, choices)).toBe('Stop');
    expect(toggledStatus(['Running'], 'Wait', true, choices)).toBe('Wait,Running');
  });
});
