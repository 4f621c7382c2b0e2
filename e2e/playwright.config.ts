import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../src/service/testing/chromium.ts';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: '../test-results',
  fullyParallel: false,
  // Two: the machines have two cores, and each worker runs its own service and browser.
  workers: 2,
  retries: 0,
  forbidOnly: true,
  // The list, then the ten slowest files and the budget's check (src/test-run/playwright-budget.ts).
  reporter: [['list'], ['../src/test-run/playwright-budget.ts']],
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS },
    // No trace in CI: nobody opens one there (CI keeps only what the run prints), and recording
    // every test's trace took a third of the stage's CPU (e2e/databases.spec.ts alone: 34.8 s
    // of CPU with it, 24.4 s without). `--trace on` records one when a failure needs it.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
});
