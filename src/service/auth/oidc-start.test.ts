import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.ts';
import { startOidcProvider, TEST_CLIENT, type TestProvider } from '../testing/oidc-provider.ts';
import { startService, type TestService } from '../testing/service.ts';
import { parseRoleMapping, START_LIMIT } from './oidc-config.ts';

// Nobody can lock everyone out of single sign-on (issue 24, item 5): each client address has
// its own limit on sign-ins started and not finished, and the set of them is bounded by
// forgetting its oldest, so no address (nor many) can make another one wait.

let provider: TestProvider;
let service: TestService;
let clock: ManualClock;

/** A start from this client address, in-process (the address is the connection's). */
async function start(address: string) {
  const answer = await service.app.server.inject({
    method: 'GET',
    url: '/mcapi/auth/oidc/start?next=/requests',
    remoteAddress: address,
  });
  return {
    status: answer.statusCode,
    location: String(answer.headers.location ?? ''),
    cookie: String(answer.headers['set-cookie'] ?? '').split(';')[0] ?? '',
    retryAfter: answer.headers['retry-after'],
    body: answer.body,
  };
}

beforeAll(async () => {
  provider = await startOidcProvider({
    redirectUris: ['http://127.0.0.1:1/mcapi/auth/oidc/callback'],
    accounts: {},
  });
  clock = new ManualClock(Date.parse('2026-11-22T09:00:00Z'));
  service = await startService({
    clock,
    oidc: {
      issuer: provider.issuer,
      clientId: TEST_CLIENT.id,
      clientSecret: TEST_CLIENT.secret,
      roleClaim: 'groups',
      roles: parseRoleMapping('*=operator'),
      name: 'IdP',
    },
  });
});

afterAll(async () => {
  await service.close();
  await provider.close();
});

describe('starting single sign-on', () => {
  it('10,000 unfinished starts from one address hold up only that address', async () => {
    const statuses = new Map<number, number>();
    for (let i = 0; i < 10_000; i += 1) {
      const { status } = await start('203.0.113.9');
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses).toEqual(
      new Map([
        [302, START_LIMIT],
        [429, 10_000 - START_LIMIT],
      ]),
    );
    const refused = await start('203.0.113.9');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('600');
    expect(JSON.parse(refused.body)).toEqual({
      result: {
        status: 'error',
        code: 4029,
        message:
          'Too many sign-ins started from this address and not finished; finish one, or try again in 600 s.',
      },
    });
    // Every other browser still goes to the provider.
    const other = await start('198.51.100.20');
    expect(other.status).toBe(302);
    expect(new URL(other.location).origin).toBe(provider.issuer);
    // Once its sign-ins expire, the address may start again.
    clock.advance(10 * 60_000);
    expect((await start('203.0.113.9')).status).toBe(302);
  }, 120_000);

  it('starts from very many addresses make room by forgetting the oldest, refusing nobody', async () => {
    clock.advance(10 * 60_000);
    const started: { cookie: string; location: string }[] = [];
    for (let i = 0; i < 10_050; i += 1) {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const answer = await start(address);
      expect(answer.status).toBe(302);
      started.push(answer);
    }
    expect((await start('198.51.100.21')).status).toBe(302);
    // The oldest was forgotten (its callback says to start again); the newest is kept (its
    // callback goes on to the provider, which refuses this made-up code).
    const outcome = async (flow: { cookie: string; location: string }) => {
      const state = new URL(flow.location).searchParams.get('state') ?? '';
      const back = await service.app.server.inject({
        method: 'GET',
        url: `/mcapi/auth/oidc/callback?code=made-up&state=${state}`,
        headers: { cookie: flow.cookie },
      });
      const handoff = String(back.headers.location).split('#oidc=')[1] ?? '';
      const answer = await service.app.server.inject({
        method: 'GET',
        url: `/mcapi/auth/oidc/session?code=${handoff}`,
      });
      return (JSON.parse(answer.body) as { result: { message: string } }).result.message;
    };
    expect(await outcome(started[0] as { cookie: string; location: string })).toBe(
      'This sign-in was not started from this browser, or took too long; start again.',
    );
    expect(await outcome(started.at(-1) as { cookie: string; location: string })).toMatch(
      /^The sign-in with IdP failed/,
    );
  }, 120_000);
});
