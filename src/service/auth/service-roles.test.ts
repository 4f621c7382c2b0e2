import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, ROLE_OPERATIONS, roleNeeded, type OperationName } from '../../kit/wire.ts';
import { REPO_ROOT } from '../app.ts';
import { queryAudit } from '../db/system/audit.ts';
import { grantRole, revokeRole } from '../db/system/service-roles.ts';
import { startOidcProvider, TEST_CLIENT, type TestProvider } from '../testing/oidc-provider.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { signIn as signInAs, startService, type TestService } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';
import { mappedServices, parseRoleMapping, readOidcSettings, roleFor } from './oidc-config.ts';
import { addUser } from './users.ts';

/*
 * Roles per service (issue 24, item 2; contract section 12): a person's role on a service is
 * the one granted there, else their default; the embedded service (`local`) is a service
 * like the others. The real server in front of the embedded service and a vendor-like one
 * (`prod`), its people signed in with passwords, from the users command and through a real
 * OpenID provider.
 */

const PASSWORD = 'service-roles-password-1';

const form = (method: string, fields: Record<string, string>, sessionId: string) => ({
  method,
  headers: {
    'Content-Type': 'application/x-www-form-urlencoded',
    'X-As-SessionId': sessionId,
  },
  body: new URLSearchParams(fields).toString(),
});

interface Answer {
  readonly status: number;
  readonly code: number | undefined;
  readonly message: string;
}

/** A Part C call by a signed-in person on a service, its fields as its method sends them. */
async function partC(
  server: TestService,
  service: string,
  op: OperationName,
  fields: Record<string, string>,
  sessionId: string,
): Promise<Answer> {
  const method = OPERATIONS[op];
  const path = `/services/${service}/pipelineapi/${op}/json`;
  const response =
    method === 'POST' || method === 'PUT'
      ? await server.fetch(path, form(method, fields, sessionId))
      : await server.fetch(`${path}?${new URLSearchParams(fields).toString()}`, {
          method,
          headers: { 'X-As-SessionId': sessionId },
        });
  const body = (await response.json()) as {
    ExecuteResponse?: { Code?: number; Message?: string };
  };
  return {
    status: response.status,
    code: body.ExecuteResponse?.Code,
    message: body.ExecuteResponse?.Message ?? '',
  };
}

const signIn = (server: TestService, userName: string) => signInAs(server, userName, PASSWORD);

async function mcapi<T>(server: TestService, path: string, sessionId: string): Promise<T> {
  const response = await server.fetch(path, { headers: { 'X-As-SessionId': sessionId } });
  expect(response.status, path).toBe(200);
  return ((await response.json()) as { result: { data: T } }).result.data;
}

/** Fields that make each operation a real call (unknown names are the service's to refuse). */
function fieldsOf(op: OperationName, requestId: string): Record<string, string> {
  switch (op) {
    case 'exec':
      return { pipelineid: 'pl_1', filename: 'orders.csv' };
    case 'requestdetail':
    case 'requestretry':
    case 'requestcancel':
      return { requestid: requestId };
    case 'resume':
    case 'suspend':
      return { pipelineid: 'pl_1' };
    case 'pipelinecache':
      return { pipelineid: 'pl_1', sensor: 'true' };
    case 'deletetable':
    case 'droptable':
      return { table: 'ORDERS' };
    default:
      return {};
  }
}

describe('roles per service, behind one server', () => {
  let vendor: VendorService;
  let server: TestService;
  /** A request in Error on the embedded service, and one in the vendor's failed status on prod. */
  let localFailed: string;
  let prodFailed: string[];

  beforeAll(async () => {
    vendor = await startVendorService();
    server = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'service-roles-'))),
      services: [
        { id: 'local', name: 'Embedded', embedded: true },
        { id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey },
      ],
      pollScheduled: false,
    });
    const db = server.app.context.shared;
    await addUser(db, 'olivia', PASSWORD, 'operator', 'now');
    await addUser(db, 'vera', PASSWORD, 'viewer', 'now');
    // An operator everywhere but production, where she may only look.
    expect(await grantRole(db, 'olivia', 'prod', 'viewer')).toBe(true);
    localFailed = (await server.client.exec('pl_1', 'missing.csv')).requestId as string;
    await server.app.engine.whenIdle();
    vendor.addRequests('pl_2', 3, 'broken.csv', 'failed');
    prodFailed = vendor.requests().map((r) => r.requestId);
  });

  afterAll(async () => {
    await server?.close();
    await vendor?.close();
  });

  it('an operator who is a viewer on prod is refused a retry there, naming the role and the service, and retries elsewhere', async () => {
    const olivia = await signIn(server, 'olivia');
    const refused = await partC(
      server,
      'prod',
      'requestretry',
      { requestid: prodFailed[0] as string },
      olivia,
    );
    expect(refused).toEqual({
      status: 403,
      code: 1104,
      message:
        'requestretry on service prod needs the operator role; the viewer role there may not call it.',
    });
    expect(vendor.calls().requestretry).toBeUndefined();
    // A bulk retry there follows the same rule, preview and start alike.
    const preview = await server.fetch(
      `/services/prod/pipelineapi/bulk/json?action=retry&date=20260101&status=Abort`,
      { headers: { 'X-As-SessionId': olivia } },
    );
    expect(preview.status).toBe(403);
    expect(await preview.text()).toContain('needs the operator role');
    // She reads production as anyone may.
    expect((await partC(server, 'prod', 'requestlist', {}, olivia)).status).toBe(200);

    // On the embedded service her default role holds: the retry is done.
    const retried = await partC(
      server,
      'local',
      'requestretry',
      { requestid: localFailed },
      olivia,
    );
    expect(retried).toMatchObject({ status: 200 });
    await server.app.engine.whenIdle();

    // The session tells the dashboard her role per service; so does the list of services.
    const session = await mcapi<{ role: string[]; serviceRoles: unknown }>(
      server,
      '/mcapi/auth/session',
      olivia,
    );
    expect(session.role).toEqual(['operator']);
    expect(session.serviceRoles).toEqual([
      { service: 'local', role: 'operator' },
      { service: 'prod', role: 'viewer' },
    ]);
    const services = await mcapi<{ services: { id: string; role: string }[] }>(
      server,
      '/mcapi/services',
      olivia,
    );
    expect(services.services.map((s) => [s.id, s.role])).toEqual([
      ['local', 'operator'],
      ['prod', 'viewer'],
    ]);
    // The refusal is in the audit log under her name and the service.
    const audit = await queryAudit(server.app.context.shared, {
      user: 'olivia',
      service: 'prod',
      operation: 'requestretry',
      index: 0,
      pageSize: 10,
    });
    expect(audit.entries.map((e) => e.httpStatus)).toEqual([403]);
  });

  it('a grant or a revoke holds from the next call of an open session', async () => {
    const db = server.app.context.shared;
    const olivia = await signIn(server, 'olivia');
    const retry = () =>
      partC(server, 'prod', 'requestretry', { requestid: prodFailed[1] as string }, olivia);
    expect((await retry()).status).toBe(403);
    expect(await revokeRole(db, 'olivia', 'prod')).toBe(true);
    expect(await retry()).toMatchObject({ status: 200 });
    expect(vendor.calls().requestretry).toBe(1);
    await grantRole(db, 'olivia', 'prod', 'viewer');
    expect(
      (await partC(server, 'prod', 'requestretry', { requestid: prodFailed[2] as string }, olivia))
        .status,
    ).toBe(403);
    expect(vendor.calls().requestretry).toBe(1);
    // A higher role on one service than the default: administrator there alone.
    await grantRole(db, 'vera', 'local', 'administrator');
    const vera = await signIn(server, 'vera');
    expect((await partC(server, 'local', 'suspend', { pipelineid: 'pl_2' }, vera)).status).toBe(
      200,
    );
    expect((await partC(server, 'prod', 'suspend', { pipelineid: 'pl_1' }, vera)).code).toBe(1104);
    await revokeRole(db, 'vera', 'local');
    expect((await partC(server, 'local', 'resume', { pipelineid: 'pl_2' }, vera)).code).toBe(1104);
    await server.client.resume('pl_2');
  });

  it('a viewer reads everything on every service and changes nothing', async () => {
    const vera = await signIn(server, 'vera');
    const before = {
      local: (await server.client.requestList({})).info.total,
      pipelines: JSON.stringify(await server.client.listPipelines()),
      vendorCalls: JSON.stringify(vendor.calls()),
    };
    for (const service of ['local', 'prod']) {
      for (const op of Object.keys(OPERATIONS) as OperationName[]) {
        const requestId = service === 'local' ? localFailed : (prodFailed[2] as string);
        const answer = await partC(server, service, op, fieldsOf(op, requestId), vera);
        const what = `${service} ${op}`;
        if (OPERATIONS[op] === 'GET') {
          expect(ROLE_OPERATIONS.viewer.has(op), what).toBe(true);
          expect(answer.status, `${what}: ${answer.message}`).not.toBe(403);
          expect(answer.status, `${what}: ${answer.message}`).toBeLessThan(500);
        } else {
          expect(answer, what).toEqual({
            status: 403,
            code: 1104,
            message: `${op} on service ${service} needs the ${roleNeeded(op)} role; the viewer role there may not call it.`,
          });
        }
      }
    }
    // Nothing changed: no request, no run mode, no call to the vendor but reads.
    expect((await server.client.requestList({})).info.total).toBe(before.local);
    expect(JSON.stringify(await server.client.listPipelines())).toBe(before.pipelines);
    const changes = ['exec', 'requestretry', 'requestcancel', 'resume', 'suspend'];
    const calls = vendor.calls();
    const callsBefore = JSON.parse(before.vendorCalls) as Record<string, number>;
    for (const op of changes) expect(calls[op] ?? 0, op).toBe(callsBefore[op] ?? 0);

    // Bulk: no preview or start of a change, but the jobs are there to read.
    const bulk = await server.fetch('/services/local/pipelineapi/bulk/json', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-As-SessionId': vera },
      body: new URLSearchParams({ action: 'cancel', date: '20260101', reason: 'x' }).toString(),
    });
    expect(bulk.status).toBe(403);
    expect(await bulk.text()).toContain(
      'requestcancel on service local needs the operator role; the viewer role there may not call it.',
    );
    const jobs = await server.fetch('/services/local/pipelineapi/bulkjobs/json', {
      headers: { 'X-As-SessionId': vera },
    });
    expect(jobs.status).toBe(200);
    // Nor the administrators' pages of the management console.
    const settings = await server.fetch('/mcapi/pipeline/settings', {
      headers: { 'X-As-SessionId': vera },
    });
    expect(settings.status).toBe(403);
  });
});

describe('the users command, roles per service', () => {
  it('adds a viewer, grants and revokes a role on a service, and lists them; an open session follows', async () => {
    const data = mkdtempSync(join(tmpdir(), 'users-roles-'));
    const server = await startService({
      dataDir: data,
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'users-roles-defs-'))),
    });
    const users = (...args: string[]) =>
      spawnSync(
        process.execPath,
        ['--import', 'tsx', join(REPO_ROOT, 'src/service/users-cli.ts'), ...args, '--data', data],
        {
          cwd: REPO_ROOT,
          env: { ...process.env, PIPELINE_USER_PASSWORD: PASSWORD },
          encoding: 'utf8',
        },
      );
    const ok = (...args: string[]) => {
      const run = users(...args);
      expect(run.stderr, args.join(' ')).toBe('');
      expect(run.status, args.join(' ')).toBe(0);
      return run.stdout;
    };
    try {
      expect(ok('add', 'vic', '--role', 'viewer')).toBe('added vic (viewer)\n');
      expect(ok('add', 'otto', '--role', 'operator')).toBe('added otto (operator)\n');
      const otto = await signIn(server, 'otto');
      const suspend = () => partC(server, 'local', 'suspend', { pipelineid: 'pl_2' }, otto);

      expect(ok('grant', 'otto', '--service', 'local', '--role', 'viewer')).toBe(
        'otto is viewer on local\n',
      );
      expect(ok('grant', 'vic', '--service', 'prod', '--role', 'developer')).toBe(
        'vic is developer on prod\n',
      );
      expect(ok('grant', 'vic', '--service', 'local', '--role', 'operator')).toBe(
        'vic is operator on local\n',
      );
      expect(ok('list')).toBe(
        [
          'admin\tadministrator',
          'otto\toperator\tlocal:viewer',
          'vic\tviewer\tlocal:operator,prod:developer',
          '',
        ].join('\n'),
      );
      // Written by another process while the server runs: its next call reads it.
      expect(await suspend()).toMatchObject({ status: 403, code: 1104 });
      expect(ok('revoke', 'otto', '--service', 'local')).toBe(
        'otto has their default role on local again\n',
      );
      expect(await suspend()).toMatchObject({ status: 200 });
      await server.client.resume('pl_2');

      const refused = (args: string[], message: RegExp) => {
        const run = users(...args);
        expect(run.status, args.join(' ')).toBe(1);
        expect(run.stderr, args.join(' ')).toMatch(message);
      };
      refused(['revoke', 'otto', '--service', 'local'], /otto has no role of their own on local/);
      refused(
        ['grant', 'nobody', '--service', 'local', '--role', 'viewer'],
        /user nobody does not exist/,
      );
      refused(
        ['grant', 'otto', '--service', 'Prod!', '--role', 'viewer'],
        /--service must be a service id/,
      );
      refused(['grant', 'otto', '--role', 'viewer'], /--service <id> is needed/);
      refused(
        ['grant', 'otto', '--service', 'prod', '--role', 'king'],
        /--role must be one of administrator, developer, operator, viewer/,
      );
      // A removed user's roles go with them.
      expect(ok('remove', 'vic')).toBe('removed vic\n');
      expect(ok('list')).toBe('admin\tadministrator\notto\toperator\n');
      expect(
        server.app.context.dbs.system
          .prepare('SELECT COUNT(*) FROM USER_SERVICE_ROLE')
          .pluck()
          .get(),
      ).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('single sign-on roles per service', () => {
  it('reads service:role entries; refuses a malformed one and a service the server does not have', async () => {
    const mapping = parseRoleMapping(
      'ops=operator,prod-ops=prod:operator,prod-ops=staging:developer,readers=prod:viewer,*=viewer',
    );
    expect(mappedServices(mapping)).toEqual(new Set(['prod', 'staging']));
    const settings = { roleClaim: 'groups', roles: mapping, name: 'IdP' };
    expect(roleFor({ groups: ['prod-ops'] }, settings)).toEqual({
      role: 'viewer',
      services: [
        { service: 'prod', role: 'operator' },
        { service: 'staging', role: 'developer' },
      ],
    });
    // The highest per service; a service role may be below the default (a narrower one).
    expect(roleFor({ groups: ['readers', 'prod-ops', 'ops'] }, settings)).toEqual({
      role: 'operator',
      services: [
        { service: 'prod', role: 'operator' },
        { service: 'staging', role: 'developer' },
      ],
    });
    expect(roleFor({ groups: ['ops', 'readers'] }, settings)).toEqual({
      role: 'operator',
      services: [{ service: 'prod', role: 'viewer' }],
    });
    // Service roles alone, with no default role mapped: the viewer elsewhere.
    const strict = { ...settings, roles: parseRoleMapping('prod-ops=prod:operator') };
    expect(roleFor({ groups: ['prod-ops'] }, strict)).toEqual({
      role: 'viewer',
      services: [{ service: 'prod', role: 'operator' }],
    });
    expect(roleFor({ groups: ['staff'] }, strict)).toHaveProperty('refused');

    const flags = (roles: string) => ({
      'oidc-issuer': 'https://id.example',
      'oidc-client-id': 'c',
      'oidc-client-secret': 's',
      'oidc-roles': roles,
    });
    expect(() => readOidcSettings(flags('a=prod:root'))).toThrow(
      '--oidc-roles: "root" is not one of administrator, developer, operator, viewer',
    );
    expect(() => readOidcSettings(flags('a=Prod!:viewer'))).toThrow(
      '--oidc-roles: "Prod!" in "a=Prod!:viewer" is not a service id',
    );
    expect(() => readOidcSettings(flags('*=prod:viewer'))).toThrow(
      '--oidc-roles: * gives a default role only, not one on prod',
    );
    expect(() => readOidcSettings(flags('a=b:c:viewer'))).toThrow(
      'is not value=role or value=service:role',
    );
    await expect(
      startService({
        oidc: {
          issuer: 'http://127.0.0.1:9',
          clientId: 'c',
          clientSecret: 's',
          roleClaim: 'groups',
          roles: parseRoleMapping('ops=operator,prod-ops=prod:operator'),
          name: 'IdP',
        },
      }),
    ).rejects.toThrow('--oidc-roles: no service "prod" here (its services: local)');
  });

  describe('through a real provider', () => {
    const PUBLIC_URL = 'http://pipeline.test';
    const accounts: Record<string, Record<string, unknown>> = {
      'p-1': { preferred_username: 'petra', groups: ['prod-ops'] },
      'o-1': { preferred_username: 'oscar', groups: ['ops', 'prod-readers'] },
    };
    let provider: TestProvider;
    let vendor: VendorService;
    let server: TestService;

    beforeAll(async () => {
      provider = await startOidcProvider({
        redirectUris: [`${PUBLIC_URL}/mcapi/auth/oidc/callback`],
        accounts,
      });
      vendor = await startVendorService();
      vendor.addRequests('pl_2', 2, 'broken.csv', 'failed');
      server = await startService({
        services: [
          { id: 'local', name: 'Embedded', embedded: true },
          { id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey },
        ],
        pollScheduled: false,
        notify: { targets: [], publicUrl: PUBLIC_URL },
        oidc: {
          issuer: provider.issuer,
          clientId: TEST_CLIENT.id,
          clientSecret: TEST_CLIENT.secret,
          roleClaim: 'groups',
          roles: parseRoleMapping('ops=operator,prod-ops=prod:operator,prod-readers=prod:viewer'),
          name: 'IdP',
        },
      });
    });

    afterAll(async () => {
      await server?.close();
      await vendor?.close();
      await provider?.close();
    });

    /** A browser's cookies at the provider. */
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

    /** Signs in at the provider as `login` (its sign-in and consent forms) and back here. */
    async function signInWith(login: string): Promise<string> {
      const start = await server.fetch('/mcapi/auth/oidc/start', { redirect: 'manual' });
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
          for (const [, name, value] of page.matchAll(
            /<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g,
          ))
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
      const callback = await server.fetch(url.slice(PUBLIC_URL.length), {
        redirect: 'manual',
        headers: { cookie: stateCookie },
      });
      const handoff = (callback.headers.get('location') ?? '').split('#oidc=')[1] ?? '';
      const answer = await server.fetch(`/mcapi/auth/oidc/session?code=${handoff}`);
      const body = (await answer.json()) as {
        result: { message?: string; data?: { sessionId: string } };
      };
      if (answer.status !== 200) throw new Error(body.result.message);
      return body.result.data?.sessionId as string;
    }

    it('gives each person the roles per service their groups map to, anew at each sign-in', async () => {
      const [first, second] = vendor.requests().map((r) => r.requestId) as [string, string];
      const petra = await signInWith('p-1');
      expect(
        (await mcapi<{ serviceRoles: unknown }>(server, '/mcapi/auth/session', petra)).serviceRoles,
      ).toEqual([
        { service: 'local', role: 'viewer' },
        { service: 'prod', role: 'operator' },
      ]);
      expect(
        await partC(server, 'prod', 'requestretry', { requestid: first }, petra),
      ).toMatchObject({ status: 200 });
      expect((await partC(server, 'local', 'resume', { pipelineid: 'pl_1' }, petra)).code).toBe(
        1104,
      );

      const oscar = await signInWith('o-1');
      expect(
        (await mcapi<{ serviceRoles: unknown }>(server, '/mcapi/auth/session', oscar)).serviceRoles,
      ).toEqual([
        { service: 'local', role: 'operator' },
        { service: 'prod', role: 'viewer' },
      ]);
      expect(await partC(server, 'prod', 'requestretry', { requestid: second }, oscar)).toEqual({
        status: 403,
        code: 1104,
        message:
          'requestretry on service prod needs the operator role; the viewer role there may not call it.',
      });

      // Petra leaves the production team: her next sign-in takes the role there away, and
      // her open session follows at its next call.
      accounts['p-1'] = { ...accounts['p-1'], groups: ['ops'] };
      await signInWith('p-1');
      expect(
        (await mcapi<{ serviceRoles: unknown }>(server, '/mcapi/auth/session', petra)).serviceRoles,
      ).toEqual([
        { service: 'local', role: 'operator' },
        { service: 'prod', role: 'operator' },
      ]);
      accounts['p-1'] = { ...accounts['p-1'], groups: ['ops', 'prod-readers'] };
      await signInWith('p-1');
      expect((await partC(server, 'prod', 'requestretry', { requestid: second }, petra)).code).toBe(
        1104,
      );
      expect(vendor.calls().requestretry).toBe(1);
    });
  });
});
