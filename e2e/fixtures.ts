import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base, expect, type Page } from '@playwright/test';
import { PipelineClient } from '../src/kit/index.ts';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';
import { addUser } from '../src/service/auth/users.ts';

export interface RunningService {
  readonly url: string;
  readonly apiKey: string;
  readonly app: App;
  readonly client: PipelineClient;
  readonly inbox: string;
}

export const API_KEY = 'e2e-key-0123456789abcdefghijklmnop';
export const ADMIN = { user: 'admin', password: 'admin-password-e2e' };
export const OPERATOR = { user: 'olivia', password: 'operator-password-e2e' };

/** Extra pipelines for the tests: hostile text, and one whose Filter logs thousands of lines. */
const MANY_STEPS = Array.from(
  { length: 1500 },
  (_, i) => `      - derive: { step${i}: 'n + ${i}' }`,
).join('\n');
const EXTRA_PIPELINES = `
pipelines:
  - id: pl_7
    name: "<img src=x onerror=alert(1)> Hostile & co"
    description: "<script>window.hacked = true</script><b>not bold</b>"
    sensor: { format: csv }
    filter:
      - cast: { n: integer }
    joint:
      - table:
          name: HOSTILE
          columns:
            - { name: N, type: INTEGER, from: n }
  - id: pl_8
    name: Many steps
    description: A Filter of 1500 actions, for long logs.
    sensor: { format: csv }
    filter:
${MANY_STEPS}
    joint:
      - file: { name: 'steps-\${requestid}.csv', format: csv }
`;

/**
 * The real service, in this worker's process, on an ephemeral port with a temporary data
 * folder and the demo, serving the built dashboard.
 */
export const test = base.extend<object, { service: RunningService }>({
  service: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-'));
      const definitions = join(dataDir, 'extra.yaml');
      writeFileSync(definitions, EXTRA_PIPELINES);
      const app = await buildApp({
        dataDir,
        demo: true,
        apiKey: API_KEY,
        adminPassword: ADMIN.password,
        staticDir: DIST_DIR,
        pipelinesFile: definitions,
        loginLimit: { max: 10_000, timeWindow: 60_000 },
      });
      await addUser(
        app.context.dbs.system,
        OPERATOR.user,
        OPERATOR.password,
        'operator',
        new Date().toISOString(),
      );
      const url = await app.server.listen({ host: '127.0.0.1', port: 0 });
      await app.engine.whenIdle();
      await use({
        url,
        apiKey: API_KEY,
        app,
        client: new PipelineClient({ baseUrl: url, apiKey: API_KEY }),
        inbox: app.context.paths.inbox,
      });
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect };

export async function signIn(
  page: Page,
  service: RunningService,
  who: { user: string; password: string } = ADMIN,
  path = '/',
): Promise<void> {
  await page.goto(`${service.url}/sign-in?next=${encodeURIComponent(path)}`);
  await page.getByLabel('User name').fill(who.user);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('identity')).toContainText(who.user);
}

/** Waits until the engine has nothing running or queued that could still run. */
export async function settle(service: RunningService): Promise<void> {
  await service.app.engine.whenIdle();
  await new Promise((resolve) => setTimeout(resolve, 50));
  await service.app.engine.whenIdle();
}
