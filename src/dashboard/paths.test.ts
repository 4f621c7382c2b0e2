import { matchRoutes } from 'react-router';
import { describe, expect, it } from 'vitest';
import { setCurrentService } from './core/current-service.ts';
import {
  dayOfRequest,
  inService,
  isRangeList,
  isoToYmd,
  paths,
  requestsListFrom,
  shiftDay,
  todayYmd,
  ymdToIso,
} from './paths.ts';

describe('paths', () => {
  it('builds links with only the parameters that are set', () => {
    expect(paths.requests({ date: '20261121', pipeline: 'pl_1', index: 0, size: 50 })).toBe(
      '/requests?date=20261121&pipeline=pl_1&size=50',
    );
    expect(paths.requests({ index: 100 })).toBe('/requests?index=100');
    expect(paths.request('pl_1-20261121_09-000001', 'app')).toBe(
      '/requests/pl_1-20261121_09-000001?tab=app',
    );
    expect(paths.database('status', 'STATUS20261121', { index: 0, size: 500 })).toBe(
      '/databases/status?table=STATUS20261121&size=500',
    );
    expect(paths.signIn('/requests?date=20261121')).toBe(
      '/sign-in?next=%2Frequests%3Fdate%3D20261121',
    );
  });

  it('encodes ids of any shape, and the routes read them back whole', () => {
    // A service behind the gateway names its requests and pipelines its own way.
    const requestId = 'REQ/2026/12/02#17 受付?x=1&y=+%';
    const pipelineId = 'Archive #7/old? a&b+c%';
    const request = paths.request(requestId, 'app');
    expect(request).toBe(`/requests/${encodeURIComponent(requestId)}?tab=app`);
    const trends = paths.trends(pipelineId, 7);
    expect(trends).toBe(`/pipelines/${encodeURIComponent(pipelineId)}/trends?days=7`);
    // As the router matches the address bar (the path without its query): one segment each.
    const routes = [{ path: '/requests/:requestId' }, { path: '/pipelines/:pipelineId/trends' }];
    const paramsOf = (link: string) =>
      matchRoutes(routes, link.split('?')[0] as string)?.[0]?.params;
    expect(paramsOf(request)).toEqual({ requestId });
    expect(paramsOf(trends)).toEqual({ pipelineId });
  });

  it('never builds a client route under the service prefixes', () => {
    for (const path of [
      paths.overview(),
      paths.pipelines(),
      paths.requests(),
      paths.database('action'),
      paths.settings(),
      paths.signIn(),
    ]) {
      expect(path).not.toMatch(/^\/(api|mcapi|pipelineapi)(\/|$)/);
    }
  });

  it('moves across days, months and years, and reads the day of a request id', () => {
    expect(shiftDay('20261231', 1)).toBe('20270101');
    expect(shiftDay('20240301', -1)).toBe('20240229');
    expect(todayYmd(new Date(2026, 10, 21))).toBe('20261121');
    expect(isoToYmd(ymdToIso('20261121'))).toBe('20261121');
    expect(dayOfRequest('pl_12-20261121_09-000001')).toBe('20261121');
    expect(dayOfRequest('nonsense')).toBeUndefined();
    // An id of a service's own shape: the day it began, when that is known.
    expect(dayOfRequest('REQ/2026/12/02#17', '2026-12-02 23:59:01')).toBe('20261202');
    expect(dayOfRequest('pl_1-20261121_09-000001', '2026-12-02 00:00:00')).toBe('20261121');
    expect(dayOfRequest('REQ/2026/12/02#17', '')).toBeUndefined();
  });
});

describe('the requests list a request was opened from', () => {
  it('travels in the request’s link and is read back as it was', () => {
    const list = '/requests?service=tokyo&date=20261121&status=Error,Stop&q=a b&index=100';
    const link = paths.request('pl_1-20261121_09-000001', undefined, list);
    const from = new URL(link, 'http://x.invalid').searchParams.get('from');
    expect(from).toBe(list);
    expect(requestsListFrom(from)).toBe(
      '/requests?service=tokyo&date=20261121&status=Error,Stop&q=a%20b&index=100',
    );
    expect(requestsListFrom('/requests')).toBe('/requests');
  });

  it('takes only the requests page of this dashboard, never another address', () => {
    for (const from of [
      null,
      '',
      'https://evil.example/requests?date=20261121',
      '//evil.example/requests',
      '/\\evil.example/requests',
      '/\t/evil.example/requests',
      'javascript:alert(1)',
      'requests?date=20261121',
      '/settings',
      '/requests/pl_1-20261121_09-000001',
      '/sign-in?next=/requests',
    ])
      expect(requestsListFrom(from), String(from)).toBeUndefined();
  });

  it('tells a range of days from one day', () => {
    expect(isRangeList('/requests?from=20261120&to=20261122')).toBe(true);
    expect(isRangeList('/requests?from=20261120&to=20261120')).toBe(false);
    expect(isRangeList('/requests?date=20261120&status=Error')).toBe(false);
  });
});

describe('links keep the service', () => {
  it('adds ?service=<id> to every link while a service is chosen, and inService changes it', () => {
    setCurrentService({ id: 'staging', param: 'staging' });
    try {
      expect(paths.overview()).toBe('/?service=staging');
      expect(paths.requests({ date: '20261122' })).toBe('/requests?service=staging&date=20261122');
      expect(paths.signIn('/x')).toBe('/sign-in?next=%2Fx');
      expect(inService(paths.requests({ pipeline: 'pl_1' }), 'prod')).toBe(
        '/requests?service=prod&pipeline=pl_1',
      );
      expect(inService(paths.services(), undefined)).toBe('/service-list');
    } finally {
      setCurrentService({ id: undefined, param: undefined });
    }
  });
});
