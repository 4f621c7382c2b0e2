import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, ManagementConsoleClient, ParseError, decodeServices } from '../../kit/index.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// The server's Part A extensions read back with the kit's own typed calls (issue 27, item
// 2): the routes build their answers from the kit's answer types and the kit decodes them,
// so a drift between the two fails here (and at compile time).

const ADMIN_PASSWORD = 'admin-password-wire-1';

let service: TestService;
let mc: ManagementConsoleClient;

beforeAll(async () => {
  service = await startService({ adminPassword: ADMIN_PASSWORD });
  mc = new ManagementConsoleClient({ baseUrl: service.url, fetch: service.checkedFetch });
  await mc.login({ userName: 'admin', password: ADMIN_PASSWORD });
});

afterAll(async () => {
  await service.close();
});

describe('the kit reading our Part A extensions', () => {
  it('reads the services', async () => {
    const [local, ...others] = await mc.services();
    expect(others).toEqual([]);
    expect(local).toMatchObject({ id: 'local', embedded: true, reachable: true, message: '' });
    expect(local?.statuses?.from).toBe('contract');
    expect(local?.capabilities).toBeUndefined();
  });

  it('pages the audit log by the kit’s filter, and the server names a filter it refuses', async () => {
    await mc.setApiEnabled(true);
    const page = await mc.audit({ operation: 'mc.settings', index: 0, pageSize: 10 });
    expect(page.entries.length).toBeGreaterThan(0);
    for (const entry of page.entries) {
      expect(entry).toMatchObject({ operation: 'mc.settings', userName: 'admin', via: 'session' });
      expect(JSON.parse(entry.parameters)).toEqual({ apiEnabled: 'true' });
    }
    expect(page.info).toMatchObject({ index: 0, count: page.entries.length, prev: -1 });
    const logins = await mc.audit({ operation: 'mc.login', user: 'admin', index: 0, pageSize: 1 });
    expect(logins.entries).toHaveLength(1);
    await expect(mc.audit({ from: '2026-11-01', index: 0, pageSize: 10 })).rejects.toMatchObject({
      name: 'HttpError',
      status: 400,
      serviceMessage: 'Parameter from must be a day as yyyymmdd.',
    });
    await expect(mc.audit({ index: 0, pageSize: 5000 })).rejects.toMatchObject({
      status: 400,
      serviceMessage: 'Parameter pagesize must be a whole number from 1 to 1000.',
    });
  });

  it('reads notifications and the test of none', async () => {
    expect(await mc.notifications()).toEqual({ targets: [], notifications: [] });
    expect(await mc.testNotifications()).toEqual([]);
  });

  it('creates, lists and revokes a personal token', async () => {
    const created = await mc.createToken({
      name: 'ci',
      expiresInDays: 7,
      role: 'operator',
      service: '',
    });
    expect(created).toMatchObject({ name: 'ci', role: 'operator', service: null });
    expect(created.token).toMatch(/\S{20,}/);
    const listed = (await mc.tokens()).tokens;
    expect(listed.map((t) => t.id)).toContain(created.id);
    expect(listed.find((t) => t.id === created.id)).not.toHaveProperty('token');
    await mc.revokeToken(created.id);
    await expect(mc.revokeToken(created.id)).rejects.toBeInstanceOf(HttpError);
    const after = await mc.tokens();
    expect(after.tokens.map((t) => t.id)).not.toContain(created.id);
    expect(after.revoked).toEqual([
      expect.objectContaining({ id: created.id, name: 'ci', why: 'revoked by its owner' }),
    ]);
  });

  it('reads the fleet, no provider of single sign-on, and the settings', async () => {
    const fleet = await mc.fleet();
    expect(fleet.services.map((s) => s.id)).toEqual(['local']);
    expect(await mc.oidcProvider()).toBeNull();
    expect(await mc.settings()).toMatchObject({ apiEnabled: true, apiKey: TEST_API_KEY });
  });

  it('names what it cannot read', () => {
    expect(() => decodeServices({ services: 'none' })).toThrow(ParseError);
    expect(() => decodeServices({ services: 'none' })).toThrow('services is not a list');
    expect(decodeServices({})).toEqual([]);
  });
});
