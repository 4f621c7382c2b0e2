import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../app.ts';
import { startService, type TestService } from '../testing/service.ts';
import { addUser } from './users.ts';

/*
 * A reset ends everything (issue 39, item 2): `npm run users -- passwd` ends the person's
 * sessions and personal tokens, unless --keep-tokens says otherwise out loud; the same command
 * lists and revokes a person's tokens. The service runs while the command changes its store.
 */

const PASSWORD = 'reset-password-1';
/** The password every reset here sets. */
const NEW_PASSWORD = 'a-new-password-2';
let service: TestService;

beforeAll(async () => {
  service = await startService();
  await addUser(service.app.context.shared, 'rita', PASSWORD, 'operator', 'now');
});

afterAll(() => service?.close());

function users(...args: string[]) {
  return spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'src/service/users-cli.ts'), ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, PIPELINE_USER_PASSWORD: NEW_PASSWORD },
      encoding: 'utf8',
    },
  );
}

async function signIn(password = PASSWORD): Promise<string> {
  const response = await service.fetch('/mcapi/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ userName: 'rita', password }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { sessionId: string } } }).result.data
    .sessionId;
}

async function makeToken(sessionId: string, name: string): Promise<{ id: number; token: string }> {
  const response = await service.fetch('/mcapi/tokens', {
    method: 'POST',
    headers: {
      'X-As-SessionId': sessionId,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ name, expiresInDays: '365' }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: { data: { id: number; token: string } } }).result
    .data;
}

/** A Part C read with a token: its status and message. */
async function readWith(token: string): Promise<{ status: number; message: string }> {
  const response = await service.fetch('/services/local/pipelineapi/requestlist/json', {
    headers: { 'X-Pipelinewebapi': token },
  });
  const body = (await response.json()) as { ExecuteResponse?: { Message?: string } };
  return { status: response.status, message: body.ExecuteResponse?.Message ?? '' };
}

describe('the users command', () => {
  it('passwd ends the sessions and every personal token, each refused saying why', async () => {
    const session = await signIn();
    const first = await makeToken(session, 'nightly');
    const second = await makeToken(session, 'laptop');
    expect((await readWith(first.token)).status).toBe(200);

    const reset = users('passwd', 'RITA', '--data', service.dataDir);
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stdout).toContain('password of rita changed; their sessions ended');
    expect(reset.stdout).toContain('2 personal tokens of rita ended');
    for (const made of [first, second]) {
      const refused = await readWith(made.token);
      expect(refused.status).toBe(401);
      expect(refused.message).toContain('(ended by a password reset)');
    }
    const sessionGone = await service.fetch('/mcapi/tokens', {
      headers: { 'X-As-SessionId': session },
    });
    expect(sessionGone.status).toBe(401);

    const listed = users('tokens', 'rita', '--data', service.dataDir);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(`^${first.id}\\tnightly\\trevoked .*\\tended by a password reset$`, 'm'),
    );
  });

  it('passwd --keep-tokens keeps them and warns; revoke-token ends one, and names what it cannot', async () => {
    const kept = await makeToken(await signIn(NEW_PASSWORD), 'kept');
    const reset = users('passwd', 'rita', '--keep-tokens', '--data', service.dataDir);
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stderr).toContain(
      'warning: 1 personal token of rita kept (--keep-tokens): they still act as rita',
    );
    expect((await readWith(kept.token)).status).toBe(200);

    const revoked = users('revoke-token', 'rita', String(kept.id), '--data', service.dataDir);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect((await readWith(kept.token)).message).toContain('(revoked with the users command)');
    const again = users('revoke-token', 'rita', String(kept.id), '--data', service.dataDir);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain(`rita has no live token "${kept.id}"`);
    const nobody = users('tokens', 'nobody', '--data', service.dataDir);
    expect(nobody.status).toBe(1);
    expect(nobody.stderr).toContain('user nobody does not exist');
  });
});
