import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test as base } from '@playwright/test';
import { buildApp, DIST_DIR, type App } from '../src/service/app.ts';

export interface RunningService {
  readonly url: string;
  readonly apiKey: string;
  readonly app: App;
}

export const API_KEY = 'e2e-key-0123456789abcdefghijklmnop';

/**
 * The real service, in this worker's process, on an ephemeral port with a temporary data
 * folder and the demo, serving the built dashboard.
 */
export const test = base.extend<object, { service: RunningService }>({
  service: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring form
    async ({}, use) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'pipeline-e2e-'));
      const app = await buildApp({ dataDir, demo: true, apiKey: API_KEY, staticDir: DIST_DIR });
      const address = await app.server.listen({ host: '127.0.0.1', port: 0 });
      await app.engine.whenIdle();
      await use({ url: address, apiKey: API_KEY, app });
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect } from '@playwright/test';
