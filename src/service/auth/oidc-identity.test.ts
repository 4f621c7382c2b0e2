import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../app.ts';
import { queryAudit } from '../db/system/audit.ts';
import { startOidcProvider, TEST_CLIENT, type TestProvider } from '../testing/oidc-provider.ts';
import { startService, type TestService } from '../testing/service.ts';
import { parseRoleMapping } from './oidc-config.ts';
import { addUser, listUsers } from './users.ts';

/*
 * Who a single-sign-on person is (contract section 12): their provider account, the issuer
 * and `sub`; the name their claims give is only a label, unique regardless of case among
 * all users. Signed in through a real OpenID provider (oidc-provider), its own sign-in and
 * consent pages filled in as a browser would.
 */

/** Where the provider sends the browser back: this server's address as the proxy shows it. */
const PUBLIC_URL = 'http://pipeline.test';
const ADMIN_PASSWORD = 'admin-password-1';

/** The provider's accounts by login (which is their `sub`); tests change their claims. */
const accounts: Record<string, Record<string, unknown>> = {
  otto: { preferred_username: 'otto', groups: ['ops'] },
  // Another account that calls itself otto, in the administrators' group: the attack.
  mallory: { preferred_username: 'otto', groups: ['admins'] },
  'm-2': { preferred_username: 'OTTO', groups: ['ops'] },
  'k-1': { preferred_username: 'kim', groups: ['ops'] },
  'e-1': { email: 'eve@example.com', email_verified: false, groups: ['ops'] },
  'v-1': { email: 'vera@example.com', email_verified: true, groups: ['ops'] },
  'a-1': { preferred_username: 'Admin', groups: ['admins'] },
};

let provider: TestProvider;
let service: TestService;

beforeAll(async () => {
  provider = await startOidcProvider({
    redirectUris: [`${PUBLIC_URL}/mcapi/auth/oidc/callback`],
    accounts,
  });
  service = await startService({
    adminPassword: ADMIN_PASSWORD,
    notify: { targets: [], publicUrl: PUBLIC_URL },
    oidc: {
      issuer: provider.issuer,
      clientId: TEST_CLIENT.id,
      clientSecret: TEST_CLIENT.secret,
      roleClaim: 'groups',
      roles: parseRoleMapping('admins=administrator,ops=operator'),
      name: 'IdP',
    },
  });
});

afterAll(async () => {
  await service?.close();
  await provider?.close();
});

/** A browser's cookies at the provider, sent everywhere there (paths do not matter here). */
function providerBrowser() {
  const jar = new Map<string, string>();
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string> | undefined),
        cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; '),
      },
    });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(';')[0] ?? '';
      jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
    }
    return response;
  };
}

type SignedIn =
  | { sessionId: string; userName: string; role: string[]; refused?: undefined }
  | { refused: string };

/**
 * Signs in through the provider as `login` in a fresh browser: our start, the provider's
 * sign-in and consent forms, our callback, and the handoff's answer.
 */
async function signIn(login: string): Promise<SignedIn> {
  const start = await service.fetch('/mcapi/auth/oidc/start', { redirect: 'manual' });
  const stateCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const browse = providerBrowser();
  let url = start.headers.get('location') ?? '';
  for (let step = 0; !url.startsWith(PUBLIC_URL); step++) {
    if (step > 10) throw new Error(`the provider never sent the browser back (at ${url})`);
    let response = await browse(url);
    if (response.status === 200) {
      const page = await response.text();
      const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1] ?? '';
      const fields = new URLSearchParams();
      for (const [, name, value] of page.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g))
        fields.set(name ?? '', value ?? '');
      if (page.includes('name="login"')) {
        fields.set('login', login);
        fields.set('password', 'any password');
      }
      response = await browse(new URL(action, url).href, {
        method: 'POST',
        body: fields,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    }
    url = new URL(response.headers.get('location') ?? '', url).href;
  }
  const callback = await service.fetch(url.slice(PUBLIC_URL.length), {
    redirect: 'manual',
    headers: { cookie: stateCookie },
  });
  const handoff = (callback.headers.get('location') ?? '').split('#oidc=')[1] ?? '';
  const answer = await service.fetch(`/mcapi/auth/oidc/session?code=${handoff}`);
  const body = (await answer.json()) as {
    result: { status: string; message?: string; data?: SignedIn };
  };
  return answer.status === 200
    ? (body.result.data as SignedIn)
    : { refused: body.result.message ?? '' };
}

async function sessionOf(sessionId: string): Promise<{ userName: string; role: string[] }> {
  const response = await service.fetch('/mcapi/auth/session', {
    headers: { 'X-As-SessionId': sessionId },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { userName: string; role: string[] } } })
    .result.data;
}

const usersNamed = async (name: string) =>
  (await listUsers(service.app.context.shared)).filter(
    (u) => u.name.toLowerCase() === name.toLowerCase(),
  );

describe('a single-sign-on person is their provider account, not a name', () => {
  it("another account calling itself otto is refused, and otto's sessions keep otto's role", async () => {
    const otto = await signIn('otto');
    expect(otto).toMatchObject({ userName: 'otto', role: ['operator'] });
    const ottoSession = (otto as { sessionId: string }).sessionId;

    const mallory = await signIn('mallory');
    expect(mallory.refused).toBe(
      'Another single-sign-on account is already called otto here (names are unique regardless of case), so this account cannot sign in as otto. Ask an administrator.',
    );
    // Regardless of case as well.
    expect((await signIn('m-2')).refused).toContain('already called otto here');

    // otto is still otto, an operator: the newcomer's groups changed nothing.
    expect(await sessionOf(ottoSession)).toMatchObject({ userName: 'otto', role: ['operator'] });
    const settings = await service.fetch('/mcapi/pipeline/settings', {
      headers: { 'X-As-SessionId': ottoSession },
    });
    expect(settings.status).toBe(403);
    expect(await usersNamed('otto')).toEqual([
      expect.objectContaining({ name: 'otto', role: 'operator', issuer: provider.issuer }),
    ]);
    // The refusals are in the audit log, under the name that was tried.
    const audit = await queryAudit(service.app.context.shared, {
      operation: 'mc.oidc-login',
      index: 0,
      pageSize: 100,
    });
    const refusals = audit.entries.filter((e) => e.httpStatus === 403);
    expect(refusals.map((e) => e.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('already called otto here')]),
    );
  });

  it('the same account is the same user when its name changes; a taken name is not taken over', async () => {
    const first = await signIn('k-1');
    expect(first).toMatchObject({ userName: 'kim' });
    const [kim] = await usersNamed('kim');

    accounts['k-1'] = { ...accounts['k-1'], preferred_username: 'kimberly' };
    const renamed = await signIn('k-1');
    expect(renamed).toMatchObject({ userName: 'kimberly', role: ['operator'] });
    expect(await usersNamed('kim')).toEqual([]);
    expect(await usersNamed('kimberly')).toEqual([
      expect.objectContaining({ id: kim?.id, created: kim?.created }),
    ]);
    // The first session is the same person's: it follows the row, under its new name.
    expect(await sessionOf((first as { sessionId: string }).sessionId)).toMatchObject({
      userName: 'kimberly',
    });

    // A name someone else has is not given: the account signs in under the one it had.
    accounts['k-1'] = { ...accounts['k-1'], preferred_username: 'admin' };
    expect(await signIn('k-1')).toMatchObject({ userName: 'kimberly' });
    expect(await usersNamed('admin')).toEqual([expect.objectContaining({ external: false })]);
  });

  it('an email is a name only when the provider verified it', async () => {
    // No preferred_username or name: an unverified email is passed over for the sub.
    expect(await signIn('e-1')).toMatchObject({ userName: 'e-1' });
    expect(await usersNamed('eve@example.com')).toEqual([]);
    expect(await signIn('v-1')).toMatchObject({ userName: 'vera@example.com' });
  });

  it('Admin is refused beside the local admin, by single sign-on and by the users command', async () => {
    expect((await signIn('a-1')).refused).toBe(
      'A local user is called admin; that account signs in with its password.',
    );
    expect(await usersNamed('admin')).toEqual([
      expect.objectContaining({ name: 'admin', external: false }),
    ]);
    const db = service.app.context.shared;
    await expect(addUser(db, 'Admin', 'a-long-password', 'operator', 'now')).rejects.toThrow(
      'the name Admin is taken by user admin (names are unique regardless of case)',
    );
    await expect(addUser(db, 'admin', 'a-long-password', 'operator', 'now')).rejects.toThrow(
      'user admin already exists',
    );
    // Nor beside a single-sign-on user.
    expect(await signIn('otto')).toMatchObject({ userName: 'otto' });
    await expect(addUser(db, 'Otto', 'a-long-password', 'operator', 'now')).rejects.toThrow(
      'the name Otto is taken by user otto',
    );
  });

  it('the users command lists single-sign-on users with their provider', async () => {
    expect(await signIn('otto')).toMatchObject({ userName: 'otto' });
    const list = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'src/service/users-cli.ts'),
        'list',
        '--data',
        service.dataDir,
      ],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(list).toContain(`otto\toperator\t(single sign-on: ${provider.issuer})`);
    expect(list).toMatch(/^admin\tadministrator$/m);
  });
});
