import { describe, expect, it, vi } from 'vitest';
import type { Auth } from '../app/auth.ts';
import { actionReasons } from './request-actions.ts';

// auth.ts reads the browser's storage as it loads; only the role check is needed here.
vi.mock('../app/auth.ts', () => ({ forbiddenReason: () => undefined }));

const operator: Auth = {
  kind: 'session',
  sessionId: 's',
  userName: 'op',
  role: 'administrator',
  serverName: '',
  serverId: '',
};

describe('actionReasons', () => {
  it('follows our contract for the embedded service', () => {
    expect(actionReasons(operator, 'Finish', true).retry).toBeDefined();
    expect(actionReasons(operator, 'Process', true).retry).toBeDefined();
    expect(actionReasons(operator, 'Error', true).retry).toBeUndefined();
    expect(actionReasons(operator, 'Error', true).cancel).toBeDefined();
    expect(actionReasons(operator, 'Wait', true).cancel).toBeUndefined();
  });

  it('offers both for a status it does not know', () => {
    expect(actionReasons(operator, 'Abort', true)).toEqual({
      retry: undefined,
      cancel: undefined,
    });
  });

  it('offers both for any status of an upstream, which decides', () => {
    expect(actionReasons(operator, 'Finish', false)).toEqual({
      retry: undefined,
      cancel: undefined,
    });
  });
});
