import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../app.ts';
import { addUser } from '../auth/users.ts';
import { grantRole } from '../db/system/service-roles.ts';
import { PG_PASSWORD, startPostgres, type PostgresCluster } from '../testing/postgres.ts';
import { formPost, signIn, startService, type TestService } from '../testing/service.ts';
import { startVendorService, type VendorService } from '../testing/vendor/vendor-service.ts';

// A gateway that ran on its data folder's SQLite moves to a shared PostgreSQL with its
// people, roles, tokens, key, audit log and request index, once, all or nothing.

const PASSWORD = 'import-password-1';
const VERSION = '/services/prod/pipelineapi/version/json';

let cluster: PostgresCluster;
let vendor: VendorService;

beforeAll(async () => {
  cluster = await startPostgres();
  vendor = await startVendorService({});
});

afterAll(async () => {
  await vendor.close();
  await cluster.remove();
});

const importCli = (...args: string[]) =>
  spawnSync(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'src/service/import-cli.ts'), ...args],
    {
      cwd: REPO_ROOT,
      // Only what the command line says: not a database this machine's environment names.
      env: Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !name.startsWith('PIPELINE_')),
      ),
      encoding: 'utf8',
    },
  );

/** One query on its own connection: what the database holds, not what a gateway says. */
const query = async <Row extends object>(url: string, text: string): Promise<Row[]> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text)).rows;
  } finally {
    await client.end();
  }
};

const rowsOf = async (url: string, table: string): Promise<number> =>
  Number((await query<{ n: string }>(url, `SELECT COUNT(*) AS n FROM ${table}`))[0]?.n);

const tablesOf = async (url: string): Promise<string[]> =>
  (
    await query<{ name: string }>(
      url,
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
    )
  ).map((row) => row.name);

describe('npm run import-to-postgres', () => {
  const services = () => [
    { id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey },
  ];
  let before: TestService;
  let databaseUrl: string;
  let key: string;
  let token: string;
  let cookie: string;

  beforeAll(async () => {
    // A gateway on SQLite, with a person, a grant, a token, a reissued key, a SESSIONID, an
    // audit log and the index of its upstream.
    before = await startService({ services: services(), apiKey: undefined, keepData: true });
    await addUser(before.app.context.shared, 'olivia', PASSWORD, 'viewer', 'now');
    await grantRole(before.app.context.shared, 'olivia', 'prod', 'operator');
    const session = await signIn(before, 'olivia', PASSWORD);
    const created = await before.fetch(
      '/mcapi/tokens',
      formPost({ name: 'ci', expiresInDays: '7' }, { 'X-As-SessionId': session }),
    );
    token = ((await created.json()) as { result: { data: { token: string } } }).result.data.token;
    key = await before.app.context.access.reissue();
    cookie = /^SESSIONID=([^;]+)/.exec(
      (await before.fetch(VERSION, { headers: { 'X-Pipelinewebapi': key } })).headers.get(
        'set-cookie',
      ) ?? '',
    )?.[1] as string;
    expect(cookie).toBeDefined();
    vendor.addRequests('pl_2', 3, 'orders.csv', 'failed');
    await before.app.context.services.route('prod')?.upstream?.poller?.pollNow();
    await before.close();
    databaseUrl = await cluster.freshDatabase();
  });

  it('copies everything once, and a gateway on PostgreSQL goes on from there', async () => {
    const imported = importCli('--data', before.dataDir, '--database', databaseUrl);
    expect(imported.stderr).toBe('');
    expect(imported.status).toBe(0);
    expect(imported.stdout).toMatch(/^USERS\t2$/m);
    expect(imported.stdout).toMatch(/^API_TOKEN\t1$/m);
    expect(imported.stdout).toMatch(/^indexed_request\t[1-9]\d*$/m);
    expect(imported.stdout).toContain('postgres://pipeline:***@');
    expect(imported.stdout).not.toContain(PG_PASSWORD);
    expect(await rowsOf(databaseUrl, 'AUDIT')).toBeGreaterThan(0);
    // Every shared table is copied but the leases (held by live processes) and the sign-in
    // tries (counts of the last minutes, nothing to carry over): a table added to the schema
    // and not to the import fails here.
    const copied = [...imported.stdout.matchAll(/^(\w+)\t\d+$/gm)].map((m) => m[1]?.toLowerCase());
    expect(new Set([...copied, 'lease', 'sign_in_tries', 'schema_version'])).toEqual(
      new Set(await tablesOf(databaseUrl)),
    );

    // Another folder, the same database: everything comes from PostgreSQL.
    const after = await startService({ services: services(), apiKey: undefined, databaseUrl });
    try {
      expect(after.app.initialAdminPassword).toBeUndefined();
      const session = await signIn(after, 'olivia', PASSWORD);
      const roles = await after.fetch('/mcapi/services', {
        headers: { 'X-As-SessionId': session },
      });
      const listed = (
        (await roles.json()) as { result: { data: { services: { id: string; role: string }[] } } }
      ).result.data.services;
      expect(listed.find((s) => s.id === 'prod')?.role).toBe('operator');
      for (const headers of <Record<string, string>[]>[
        { 'X-Pipelinewebapi': key },
        { 'X-Pipelinewebapi': token },
        { Cookie: `SESSIONID=${cookie}` },
      ]) {
        expect((await after.fetch(VERSION, { headers })).status, JSON.stringify(headers)).toBe(200);
      }
      // New rows take ids past the copied ones.
      await addUser(after.app.context.shared, 'vera', PASSWORD, 'viewer', 'now');
      await signIn(after, 'vera', PASSWORD);
      const audit = await after.fetch('/mcapi/audit?user=olivia&operation=mc.login', {
        headers: { 'X-As-SessionId': await signIn(after, 'admin', adminPassword(before)) },
      });
      const { total } = ((await audit.json()) as { result: { data: { total: number } } }).result
        .data;
      expect(total).toBe(2);
    } finally {
      await after.close();
    }

    const again = importCli('--data', before.dataDir, '--database', databaseUrl);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already holds rows in SETTING, USERS/);
    expect(await rowsOf(databaseUrl, 'USERS')).toBe(3);
  });

  it('names what is missing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'import-empty-'));
    const url = await cluster.freshDatabase();
    const noData = importCli('--data', empty, '--database', url);
    expect(noData.status).toBe(1);
    expect(noData.stderr).toMatch(/--data .* holds no system\.db/);
    const noDatabase = importCli('--data', before.dataDir);
    expect(noDatabase.status).toBe(1);
    expect(noDatabase.stderr).toMatch(/--database <url> is needed/);
  });
});

function adminPassword(service: TestService): string {
  return service.app.initialAdminPassword as string;
}
