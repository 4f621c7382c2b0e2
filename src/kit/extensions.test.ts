import { describe, expect, it } from 'vitest';
import {
  AuditParameterError,
  ParseError,
  auditFilterData,
  auditPageData,
  decodeAudit,
  decodeNotifications,
  decodeOidcSession,
  decodeServices,
  decodeTokens,
  encodeForm,
  readAuditFilter,
  readAuditPaging,
  type AuditFilter,
} from './index.ts';

// The kit's decoders of our server's Part A extensions read liberally (a field missing or
// of another type is unknown, a word it does not know is not taken for a known one) and
// name what they cannot read; the audit filter goes to query parameters and back.

describe('the audit filter', () => {
  const filter: AuditFilter = {
    from: '20261101',
    to: '20261130',
    user: 'alice',
    service: 'prod',
    operation: 'requestretry',
    requestId: 'pl_1-20261121_09-000001',
  };

  it('goes to query parameters and is read back the same', () => {
    const query = new URLSearchParams(encodeForm(auditFilterData(filter)));
    expect(query.get('requestid')).toBe(filter.requestId);
    expect(readAuditFilter((name) => query.get(name) ?? undefined)).toEqual(filter);
    expect(encodeForm(auditPageData({ operation: 'mc.login', index: 100, pageSize: 50 }))).toBe(
      'operation=mc.login&index=100&pagesize=50',
    );
  });

  it('names a parameter it refuses, and gives page defaults', () => {
    const read = (values: Record<string, string>) => (name: string) => values[name];
    expect(() => readAuditFilter(read({ to: '2026-11-30' }))).toThrow(
      new AuditParameterError('to', 'Parameter to must be a day as yyyymmdd.'),
    );
    expect(readAuditPaging(read({}), 'pageSize')).toBe(100);
    expect(() => readAuditPaging(read({ index: '-1' }), 'index')).toThrow(
      'Parameter index must be a whole number from 0 to 1000000000.',
    );
  });
});

describe('the decoders of the extensions', () => {
  it('read a service liberally, leaving out one without an id', () => {
    const [service, ...rest] = decodeServices({
      services: [
        { id: 'prod', reachable: false, code: 5002, capabilities: { pagesize: 'sideways' } },
        { name: 'no id' },
        'not an object',
      ],
    });
    expect(rest).toEqual([]);
    expect(service).toMatchObject({ id: 'prod', name: 'prod', reachable: false, code: 5002 });
    expect(service?.capabilities?.pagesize).toBe('unknown');
    expect(service?.statuses?.from).toBe('defaults');
  });

  it('name what they cannot read', () => {
    expect(() => decodeServices(null)).toThrow(
      new ParseError('/mcapi/services answered no object', 'null'),
    );
    expect(() => decodeAudit({ entries: {} }, { index: 0, pageSize: 10 })).toThrow(
      'entries is not a list',
    );
    expect(() => decodeNotifications({ targets: 'x' })).toThrow('targets is not a list');
  });

  it('page the audit by what was asked when the answer does not say', () => {
    const page = decodeAudit(
      { entries: [{ time: 't', parameters: { id: '3' }, httpStatus: null, userName: null }] },
      { index: 20, pageSize: 10 },
    );
    expect(page.entries[0]).toMatchObject({
      parameters: '{"id":"3"}',
      httpStatus: null,
      userName: '',
    });
    expect(page.info).toEqual({ index: 20, count: 1, total: 1, prev: 10, next: -1 });
  });

  it('read a role they do not know as the least one', () => {
    expect(decodeTokens({ tokens: [{ id: 3, role: 'owner' }] }).tokens[0]).toMatchObject({
      id: 3,
      role: 'viewer',
      service: null,
      lastUsedAt: null,
    });
    expect(decodeOidcSession({ sessionId: 's', role: ['superuser'] }).role).toBe('operator');
  });

  it('read the tokens revoked lately with why, and none from a server that keeps no such list', () => {
    const answer = decodeTokens({
      tokens: [],
      revoked: [
        { id: 4, name: 'ci', revokedAt: '2026-12-01T10:00:00Z', revokedBy: 'reset', why: 'w' },
        { id: 5, name: 'cd', revokedBy: 'administrator', revokedByName: 'ada' },
        { id: 6, name: 'ab', revokedBy: 'a newer word' },
      ],
    });
    expect(answer.revoked).toEqual([
      expect.objectContaining({
        id: 4,
        revokedAt: '2026-12-01T10:00:00Z',
        revokedBy: 'reset',
        why: 'w',
      }),
      expect.objectContaining({ id: 5, revokedBy: 'administrator', revokedByName: 'ada' }),
      expect.objectContaining({ id: 6, revokedBy: 'unknown', revokedByName: null }),
    ]);
    expect(decodeTokens({ tokens: [] }).revoked).toEqual([]);
  });
});
