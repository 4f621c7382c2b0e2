import { describe, expect, it, vi } from 'vitest';
import { auditFilterData } from '../../../kit/index.ts';
import { exportFileName } from './export.ts';
import { readAuditView } from './view.ts';

vi.mock('../../core/auth.ts', () => ({ useAuth: () => null, NO_COOKIES: {} }));

describe('the audit download', () => {
  it('asks for the filtered range of the page, without its paging', () => {
    const view = readAuditView(
      new URLSearchParams(
        'from=20261101&to=20261122&user=alice&auditService=prod&index=200&size=50',
      ),
    );
    expect(auditFilterData(view)).toEqual({
      from: '20261101',
      to: '20261122',
      user: 'alice',
      service: 'prod',
      operation: undefined,
      requestid: undefined,
    });
    expect(exportFileName(view)).toBe('audit-20261101-20261122.csv');
    expect(exportFileName(readAuditView(new URLSearchParams('to=20261122')))).toBe(
      'audit-20261122.csv',
    );
  });
});
