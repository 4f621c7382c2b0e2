import { describe, expect, it } from 'vitest';
import { readConfig } from '../config.ts';
import { startChild } from '../testing/child.ts';
import { startOidcProvider, TEST_CLIENT } from '../testing/oidc-provider.ts';
import { startService } from '../testing/service.ts';
import { discoverProvider } from './oidc.ts';
import { parseRoleMapping, readOidcSettings, roleFor } from '../auth/oidc-config.ts';
import { ProviderSignOut } from '../auth/oidc-sign-out.ts';

/** Settings for the test provider's client, everyone an operator. */
const testSettings = (issuer: string) => ({
  issuer,
  clientId: TEST_CLIENT.id,
  clientSecret: TEST_CLIENT.secret,
  roleClaim: 'groups',
  roles: parseRoleMapping('*=operator'),
  name: 'IdP',
});

const BASE = {
  'oidc-issuer': 'https://id.example.com/realms/ops',
  'oidc-client-id': 'dashboard',
  'oidc-client-secret': 'a-secret-value',
  'oidc-roles': 'admins=administrator,devs=developer,*=operator',
};

describe('single sign-on settings', () => {
  it('reads the flags, with defaults for the claim and the name', () => {
    const settings = readOidcSettings(BASE);
    expect(settings).toMatchObject({
      issuer: 'https://id.example.com/realms/ops',
      clientId: 'dashboard',
      roleClaim: 'groups',
      name: 'id.example.com',
    });
    expect(readOidcSettings({})).toBeUndefined();
    const fromEnv = readConfig([], {
      PIPELINE_OIDC_ISSUER: BASE['oidc-issuer'],
      PIPELINE_OIDC_CLIENT_ID: 'dashboard',
      PIPELINE_OIDC_CLIENT_SECRET: 'from-the-environment',
      PIPELINE_OIDC_ROLES: 'ops=operator',
      PIPELINE_OIDC_ROLE_CLAIM: 'realm_access.roles',
    });
    expect(fromEnv.oidc).toMatchObject({
      clientSecret: 'from-the-environment',
      roleClaim: 'realm_access.roles',
    });
  });

  it('refuses a wrong configuration naming the setting', () => {
    const problem = (flags: Record<string, string | undefined>) => () =>
      readOidcSettings({ ...BASE, ...flags });
    expect(problem({ 'oidc-issuer': undefined })).toThrow(/--oidc-issuer is needed/);
    expect(problem({ 'oidc-issuer': 'not a url' })).toThrow(/--oidc-issuer must be a URL/);
    expect(problem({ 'oidc-issuer': 'http://id.example.com' })).toThrow(
      /--oidc-issuer must be an https URL/,
    );
    expect(problem({ 'oidc-client-id': undefined })).toThrow(/--oidc-client-id is required/);
    expect(problem({ 'oidc-client-secret': '' })).toThrow(/--oidc-client-secret is required/);
    expect(problem({ 'oidc-roles': undefined })).toThrow(/--oidc-roles is required/);
    expect(problem({ 'oidc-roles': 'admins=root' })).toThrow(/--oidc-roles: "root" is not one of/);
    expect(problem({ 'oidc-roles': 'admins' })).toThrow(/--oidc-roles: "admins" is not value=role/);
    expect(problem({ 'oidc-role-claim': 'a b' })).toThrow(/--oidc-role-claim/);
    expect(() => readOidcSettings({ 'oidc-client-id': 'x' })).toThrow(
      '--oidc-issuer is needed with --oidc-client-id',
    );
  });

  it('maps claim values to the highest role they give; no claim gives none, whatever `*` says', () => {
    const settings = {
      roleClaim: 'groups',
      roles: parseRoleMapping(BASE['oidc-roles']),
      name: 'IdP',
    };
    expect(roleFor({ groups: ['devs', 'admins'] }, settings)).toEqual({
      role: 'administrator',
      services: [],
    });
    expect(roleFor({ groups: ['devs'] }, settings)).toEqual({ role: 'developer', services: [] });
    expect(roleFor({ groups: 'devs staff' }, settings)).toEqual({
      role: 'developer',
      services: [],
    });
    expect(roleFor({ groups: ['staff'] }, settings)).toEqual({ role: 'operator', services: [] });
    expect(roleFor({ sub: 'x' }, settings)).toEqual({
      refused:
        'IdP sent no groups claim for this account, so it has no role here. Ask an administrator to give it one.',
    });
    expect(roleFor({ groups: [] }, settings)).toHaveProperty('refused');
    const strict = { ...settings, roles: parseRoleMapping('admins=administrator') };
    expect(roleFor({ groups: ['staff'] }, strict)).toEqual({
      refused:
        "None of this account's groups (staff) gives a role here. Ask an administrator to give it one.",
    });
    const nested = { ...strict, roleClaim: 'realm_access.roles' };
    expect(roleFor({ realm_access: { roles: ['admins'] } }, nested)).toEqual({
      role: 'administrator',
      services: [],
    });
  });

  it('a server whose provider does not answer refuses to start, naming the flag and not the secret', async () => {
    const secret = 'never-print-this-secret-7d1e';
    await expect(
      startService({
        oidc: {
          issuer: 'http://127.0.0.1:9',
          clientId: 'dashboard',
          clientSecret: secret,
          roleClaim: 'groups',
          roles: parseRoleMapping('*=operator'),
          name: 'IdP',
        },
      }),
    ).rejects.toThrow(/^--oidc-issuer: no OpenID provider answered at http:\/\/127\.0\.0\.1:9/);
    const child = startChild([
      '--no-demo',
      '--data',
      '/nonexistent-never-created',
      '--oidc-issuer',
      'http://127.0.0.1:9',
      '--oidc-client-id',
      'dashboard',
      '--oidc-client-secret',
      secret,
      '--oidc-roles',
      '*=operator',
    ]);
    const failure = await child.then(
      () => 'started',
      (error: unknown) => String(error),
    );
    expect(failure).toContain('--oidc-issuer: no OpenID provider answered');
    expect(failure).not.toContain(secret);
  });

  it('a callback from another browser signs nobody in, and a handoff works once', async () => {
    // Nobody signs in at the provider here: its discovery document is all the server reads.
    const provider = await startOidcProvider({
      redirectUris: ['http://127.0.0.1:1/mcapi/auth/oidc/callback'],
      accounts: {},
    });
    const service = await startService({ oidc: testSettings(provider.issuer) });
    try {
      const start = await service.fetch('/mcapi/auth/oidc/start?next=/requests', {
        redirect: 'manual',
      });
      expect(start.status).toBe(302);
      const location = new URL(start.headers.get('location') ?? '');
      expect(location.origin).toBe(provider.issuer);
      expect(location.searchParams.get('code_challenge_method')).toBe('S256');
      expect(location.searchParams.get('client_id')).toBe(TEST_CLIENT.id);
      expect(location.href).not.toContain(TEST_CLIENT.secret);
      expect(start.headers.get('set-cookie')).toMatch(
        /^oidc_state=[^;]+;.*HttpOnly.*SameSite=Lax/i,
      );
      // The state, but not this browser's cookie: someone else's sign-in link.
      const state = location.searchParams.get('state') ?? '';
      const callback = await service.fetch(`/mcapi/auth/oidc/callback?code=stolen&state=${state}`, {
        redirect: 'manual',
      });
      expect(callback.status).toBe(302);
      const back = callback.headers.get('location') ?? '';
      expect(back).toMatch(/^\/sign-in\?next=%2Frequests#oidc=[\w-]+$/);
      const handoff = back.split('#oidc=')[1] ?? '';
      const first = await service.fetch(`/mcapi/auth/oidc/session?code=${handoff}`);
      expect(first.status).toBe(403);
      expect(await first.text()).toContain('This sign-in was not started from this browser');
      const again = await service.fetch(`/mcapi/auth/oidc/session?code=${handoff}`);
      expect(await again.text()).toContain('This sign-in has expired; start again.');
      // The refusal is in the audit log, without the code.
      const audit = service.app.context.dbs.system
        .prepare("SELECT PARAMETERS, HTTPSTATUS FROM AUDIT WHERE OPERATION = 'mc.oidc-login'")
        .all();
      expect(audit).toEqual([{ PARAMETERS: JSON.stringify({ provider: 'IdP' }), HTTPSTATUS: 403 }]);
    } finally {
      await service.close();
      await provider.close();
    }
  });

  it("signing out gives the provider's end-session URL for its own sessions only, once", async () => {
    const provider = await startOidcProvider({ redirectUris: [], accounts: {} });
    try {
      const configuration = await discoverProvider(testSettings(provider.issuer));
      const signOut = new ProviderSignOut(configuration, 'https://ops.example');
      expect(signOut.supported).toBe(true);
      signOut.remember('from-provider');
      expect(signOut.endSessionUrl('local-password-session', 'http://x')).toBeUndefined();
      const url = new URL(signOut.endSessionUrl('from-provider', 'http://x') ?? '');
      expect(url.origin).toBe(provider.issuer);
      expect(url.searchParams.get('post_logout_redirect_uri')).toBe('https://ops.example/sign-in');
      expect(url.searchParams.get('client_id')).toBe(TEST_CLIENT.id);
      expect(url.href).not.toContain(TEST_CLIENT.secret);
      // Forgotten once signed out: a second logout of the same id is not the provider's.
      expect(signOut.endSessionUrl('from-provider', 'http://x')).toBeUndefined();
    } finally {
      await provider.close();
    }
  });

  it('without single sign-on, its endpoints say so', async () => {
    const service = await startService();
    try {
      const state = await service.fetch('/mcapi/auth/oidc');
      expect(await state.json()).toEqual({
        result: { status: 'success', data: { enabled: false } },
      });
      const start = await service.fetch('/mcapi/auth/oidc/start');
      expect(start.status).toBe(404);
      expect(await start.text()).toContain('Single sign-on is not configured');
    } finally {
      await service.close();
    }
  });
});
