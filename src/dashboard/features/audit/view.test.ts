import { describe, expect, it, vi } from 'vitest';
import { decodeAudit } from '../../shared/audit.ts';
import { readAuditView } from './view.ts';

vi.mock('../../app/auth.ts', () => ({ useAuth: () => null, NO_COOKIES: {} }));

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
      { index: 0, size: 2 },
    );
    expect(page.info).toMatchObject({ index: 0, count: 2, total: 3, prev: -1, next: 2 });
    expect(page.entries[1]?.httpStatus).toBe(409);
  });
});
