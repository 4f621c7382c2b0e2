import { describe, expect, it } from 'vitest';
import {
  closeRange,
  daysInRange,
  isMultiDay,
  jumpTarget,
  openRange,
  rangeProblem,
  readRequestsView,
  serviceWordsOf,
  statusChoices,
  statusesFrom,
  toggledStatus,
} from './view.ts';
import { searchWith } from '../../shared/url-state.ts';

describe('readRequestsView', () => {
  it('reads date, pipeline, statuses, search, index and size from the URL', () => {
    const search = new URLSearchParams(
      'date=20261121&pipeline=pl_2&status=Error,Stop&q=orders&index=100&size=500',
    );
    expect(readRequestsView(search, 100, '20261122')).toEqual({
      date: '20261121',
      range: undefined,
      rangeProblem: undefined,
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

describe('a range of days', () => {
  it('counts both ends and refuses a range that is reversed or longer than 31 days', () => {
    expect(daysInRange('20261101', '20261101')).toBe(1);
    expect(daysInRange('20261101', '20261201')).toBe(31);
    // Across a month end and a daylight-saving change alike.
    expect(daysInRange('20260301', '20260331')).toBe(31);
    expect(rangeProblem('20261101', '20261201')).toBeUndefined();
    expect(rangeProblem('20261101', '20261202')).toEqual({
      kind: 'tooLong',
      from: '20261101',
      to: '20261202',
      days: 32,
    });
    expect(rangeProblem('20261122', '20261121')).toMatchObject({ kind: 'reversed' });
  });

  it('reads from and to from the URL: several days listed, one day a day’s list', () => {
    const several = readRequestsView(
      new URLSearchParams('from=20261116&to=20261122&date=20261101&q=x'),
      50,
      '20261122',
    );
    expect(several).toMatchObject({
      date: '20261116',
      range: { from: '20261116', to: '20261122' },
      rangeProblem: undefined,
      q: 'x',
    });
    expect(isMultiDay(several)).toBe(true);
    const one = readRequestsView(new URLSearchParams('from=20261120&to=20261120'), 50, '20261122');
    expect([one.date, isMultiDay(one)]).toEqual(['20261120', false]);
    const bad = readRequestsView(new URLSearchParams('from=20261001&to=20261122'), 50, '20261122');
    expect(bad.rangeProblem).toMatchObject({ kind: 'tooLong', days: 53 });
    expect(isMultiDay(bad)).toBe(false);
    // A half-given or malformed range is no range: the day as before.
    const half = readRequestsView(
      new URLSearchParams('from=20261120&to=2026-11-22'),
      50,
      '20261122',
    );
    expect([half.range, half.date]).toEqual([undefined, '20261122']);
  });

  it('opens on the week up to the day shown and closes on the range’s last day', () => {
    const shift = (ymd: string, days: number) => String(Number(ymd) + days); // enough for mid-month days
    expect(openRange('20261120', shift)).toEqual({
      date: undefined,
      from: '20261114',
      to: '20261120',
    });
    const view = readRequestsView(new URLSearchParams('from=20261114&to=20261120'), 50, '20261122');
    expect(closeRange(view)).toEqual({ from: undefined, to: undefined, date: '20261120' });
    const next = searchWith(
      new URLSearchParams('service=b&from=20261114&to=20261120&index=100'),
      closeRange(view),
    );
    expect(next.toString()).toBe('service=b&date=20261120');
  });
});

describe('jumpTarget', () => {
  const dayOf = (id: string) => (/-(\d{8})_\d{2}-/.exec(id) ?? [])[1];
  it('opens an id that names its day, and looks for any other text in the day shown', () => {
    expect(jumpTarget(' pl_2-20261101_04-000003 ', dayOf)).toEqual({
      kind: 'open',
      id: 'pl_2-20261101_04-000003',
    });
    expect(jumpTarget('r10', dayOf)).toEqual({ kind: 'find', id: 'r10' });
    expect(jumpTarget('   ', dayOf)).toBeUndefined();
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

  it("ticks a class's words together, leaving the others chosen", () => {
    const choices = ['Wait', 'Running', 'Finish', 'Error', 'Abort'];
    expect(toggledStatus(['Running'], ['Error', 'Abort'], true, choices)).toBe(
      'Running,Error,Abort',
    );
    expect(toggledStatus(['Running', 'Error', 'Abort'], ['Error', 'Abort'], false, choices)).toBe(
      'Running',
    );
  });
});

describe('statusChoices of a vendor', () => {
  it('keeps every word seen on the list when a filter hides its rows', () => {
    const words = serviceWordsOf({
      waiting: ['Wait'],
      running: ['Running'],
      final: ['Finish', 'Error', 'Abort'],
      failed: ['Error', 'Abort'],
    });
    expect(words).toEqual(['Wait', 'Running', 'Finish', 'Error', 'Abort']);
    // Filtered to Error, the page holds Error rows only; Cancel was seen on an earlier page.
    expect(statusChoices([{ status: 'Error' }], ['Error'], words, ['Cancel', 'Running'])).toEqual([
      'Wait',
      'Running',
      'Finish',
      'Error',
      'Abort',
      'Cancel',
    ]);
  });
});
