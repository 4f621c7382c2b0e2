import { test } from '@playwright/test';

/**
 * Something a spec file sets up for its own tests (a gateway, a vendor double, a second
 * service) and closes when its tests end, in the worker that runs them.
 *
 * Playwright's worker fixtures live as long as their worker, and a worker goes on to run other
 * files: a gateway left behind by its file went on polling its upstreams every second through
 * every file after it, and on two cores those leftovers slowed the whole e2e stage (issue 43).
 *
 * `lifetime` has a fixture's shape: it sets up, hands the value to `use`, and tears down once
 * `use` returns. The function returned gives the value to the file's tests (or to a test-scoped
 * fixture that hands it on). Hooks belong to the file they are declared in, so this registers
 * them for the file that calls it.
 */
export function perFile<T>(
  lifetime: (use: (value: T) => Promise<void>) => Promise<void>,
  { setUpTimeoutMs = 120_000 }: { setUpTimeoutMs?: number } = {},
): () => T {
  let value: T | undefined;
  let release: (() => void) | undefined;
  let ended: Promise<void> | undefined;
  test.beforeAll(async () => {
    test.setTimeout(setUpTimeoutMs);
    value = await new Promise<T>((resolve, reject) => {
      ended = lifetime(
        (ready) =>
          new Promise<void>((done) => {
            release = done;
            resolve(ready);
          }),
      );
      // A set-up that throws before handing its value over fails the hook.
      ended.catch(reject);
    });
  });
  test.afterAll(async () => {
    test.setTimeout(setUpTimeoutMs);
    release?.();
    await ended;
    value = undefined;
    release = undefined;
    ended = undefined;
  });
  return () => {
    if (value === undefined) throw new Error('perFile: asked for outside its file’s tests');
    return value;
  };
}
