import { describe, expect, it, vi } from 'vitest';
import { decodeAudit } from '../../../kit/index.ts';
import { readAuditView, viaKey } from './view.ts';

vi.mock('../../core/auth.ts', () => ({ useAuth: () => null, NO_COOKIES: {} }));

describe('readAuditView', () => {
  it('reads the filters from the URL and drops malformed days', () => {
    const view = readAuditView(new URLSearchParams('from=20261101&to=bad&user=alice&index=100'));
    expect(view).toEqual({
      from: '20261101',
      to: undefined,
      user: 'alice',
      service: undefined,
      operation: undefined,
      index: 100,
      size: 100,
    });
  });
});

describe('decodeAudit', () => {
  it('pages by total, index and pageSize', () => {
    const page = decodeAudit(
      {
        total: 3,
        index: 0,
        pageSize: 2,
        entries: [
          { time: '2026-11-22T10:00:00.000Z', userName: 'a', httpStatus: 200 },
          { time: '2026-11-22T09:00:00.000Z', userName: 'b', httpStatus: 409 },
        ],
      },
      { index: 0, pageSize: 2 },
    );
    expect(page.info).toMatchObject({ index: 0, count: 2, total: 3, prev: -1, next: 2 });
    expect(page.entries[1]?.httpStatus).toBe(409);
  });
});

describe('the service filter', () => {
  it('is its own parameter: the service the pages show is never taken for it', () => {
    expect(readAuditView(new URLSearchParams('service=prod')).service).toBeUndefined();
    expect(readAuditView(new URLSearchParams('service=prod&auditService=local')).service).toBe(
      'local',
    );
  });
});

describe('viaKey', () => {
  it('names the known ways to call, and a token by its name', () => {
    expect(viaKey('session')).toEqual({ key: 'via.session' });
    expect(viaKey('none')).toEqual({ key: 'via.none' });
    expect(viaKey('token ci deploy')).toEqual({ key: 'via.token', name: 'ci deploy' });
    expect(viaKey('carrier pigeon')).toBeUndefined();
  });
});
