import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type TestService } from '../testing/service.ts';

// Sign-in and sign-out take POST alone (issue 24, item 5): a password or session id in a
// URL stays in browser histories and proxies' logs. Another method is 405, not 404.

const ADMIN_PASSWORD = 'admin-password-method-1';

let service: TestService;

beforeAll(async () => {
  service = await startService({ adminPassword: ADMIN_PASSWORD });
});

afterAll(async () => {
  await service.close();
});

describe('Part A sign-in and sign-out', () => {
  it('answer 405 with Allow: POST to any other method, signing nobody in or out', async () => {
    const login = await service.fetch('/mcapi/auth/login', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD }).toString(),
    });
    const sessionId = ((await login.json()) as { result: { data: { sessionId: string } } }).result
      .data.sessionId;
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const query = new URLSearchParams({ userName: 'admin', password: ADMIN_PASSWORD });
      const refused = await service.fetch(`/mcapi/auth/login?${query.toString()}`, { method });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
      expect(await refused.json()).toEqual({
        result: {
          status: 'error',
          code: 4005,
          message: 'Sign in with POST and a form body: a password never goes in a URL.',
        },
      });
      const out = await service.fetch(`/mcapi/auth/logout?sessionId=${sessionId}`, { method });
      expect(out.status, method).toBe(405);
      expect(out.headers.get('allow')).toBe('POST');
    }
    expect((await service.fetch('/mcapi/auth/login', { method: 'HEAD' })).status).toBe(405);
    // The session is still open: nothing was signed out.
    const session = await service.fetch('/mcapi/auth/session', {
      headers: { 'X-As-SessionId': sessionId },
    });
    expect(session.status).toBe(200);
    // Only the POST sign-in is in the audit log.
    const audit = service.app.context.dbs.system
      .prepare("SELECT OPERATION FROM AUDIT WHERE OPERATION LIKE 'mc.%'")
      .all();
    expect(audit).toEqual([{ OPERATION: 'mc.login' }]);
  });
});

describe('Part B sign-in and sign-out', () => {
  it('answer 405 with Allow: POST to any other method, in the flow service XML', async () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const query = new URLSearchParams({ user: 'admin', password: ADMIN_PASSWORD });
      const refused = await service.fetch(`/api/auth/login?${query.toString()}`, { method });
      expect(refused.status, method).toBe(405);
      expect(refused.headers.get('allow')).toBe('POST');
      expect(await refused.text()).toContain('<code>4005</code>');
      expect((await service.fetch('/api/auth/logout?sessionId=x', { method })).status).toBe(405);
    }
  });
});
