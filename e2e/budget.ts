/**
 * The e2e stage's budget (issue 43). The Playwright run fails when it collects more tests than
 * `tests` (src/test-run/playwright-budget.ts): raise it only after measuring the stage on a
 * two-core machine, and write the new time here. A check that needs no browser (a server's
 * answer, a query key, a format) goes to Vitest instead.
 */
export const E2E_BUDGET = {
  /** Playwright tests collected by `npm run test:e2e`. */
  tests: 221,
  /**
   * Minutes the stage took on two cores when `tests` was last set: 221 tests in 23 min 47 s in a
   * clean-clone run of `.ci/run` (2026-12-02; 220 tests took 24 min 53 s and 25 min 34 s the day
   * before). The aim is less: all of `.ci/run` in 25 minutes.
   */
  minutes: 26,
} as const;
