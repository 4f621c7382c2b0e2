import { describe, expect, it } from 'vitest';
import { setCurrentService } from './core/current-service.ts';
import { dayOfRequest, inService, isoToYmd, paths, shiftDay, todayYmd, ymdToIso } from './paths.ts';

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
