import type {
  FullConfig,
  FullResult,
  Suite,
  TestCase,
  TestResult,
} from '@playwright/test/reporter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { E2E_BUDGET } from '../../e2e/budget.ts';
import BudgetReporter from './playwright-budget.ts';
import { formatDuration, slowestFiles } from './slowest.ts';

/** A run of `count` tests as Playwright hands it to a reporter, in one file. */
function run(count: number) {
  const tests = Array.from(
    { length: count },
    (_, i) => ({ location: { file: `/repo/e2e/a.spec.ts`, line: i, column: 1 } }) as TestCase,
  );
  return {
    config: { rootDir: '/repo/e2e' } as FullConfig,
    suite: { allTests: () => tests } as unknown as Suite,
    tests,
  };
}

const printed = () => vi.spyOn(process.stdout, 'write').mockImplementation(() => true);

afterEach(() => vi.restoreAllMocks());

describe('the e2e budget', () => {
  it('fails a passing run that collects more tests than the budget, saying where to look', async () => {
    const out = printed();
    const reporter = new BudgetReporter();
    const { config, suite } = run(E2E_BUDGET.tests + 1);
    reporter.onBegin(config, suite);
    const verdict = await reporter.onEnd({ status: 'passed' } as FullResult);
    expect(verdict).toEqual({ status: 'failed' });
    expect(String(out.mock.calls.at(-1)?.[0])).toContain(
      `Over budget: ${E2E_BUDGET.tests + 1} tests collected, ${E2E_BUDGET.tests} allowed`,
    );
  });

  it('leaves a run within the budget as it ended, and prints its slowest files', async () => {
    const out = printed();
    const reporter = new BudgetReporter();
    const { config, suite, tests } = run(E2E_BUDGET.tests);
    reporter.onBegin(config, suite);
    for (const test of tests) reporter.onTestEnd(test, { duration: 1000 } as TestResult);
    expect(await reporter.onEnd({ status: 'passed' } as FullResult)).toBeUndefined();
    expect(await reporter.onEnd({ status: 'failed' } as FullResult)).toBeUndefined();
    const text = String(out.mock.calls.at(-1)?.[0]);
    expect(text).toContain('a.spec.ts');
    expect(text).toContain(formatDuration(E2E_BUDGET.tests * 1000));
    expect(text).not.toContain('Over budget');
  });
});

describe('the slowest files', () => {
  it('lists the ten slowest, slowest first, with the total of all', () => {
    const times = new Map(Array.from({ length: 12 }, (_, i) => [`f${i}.test.ts`, i * 1000]));
    const lines = slowestFiles('Vitest', times).split('\n');
    expect(lines[0]).toBe(
      'Vitest: the 10 slowest of 12 files (1 min 06 s in all, summed over workers)',
    );
    expect(lines.slice(1).map((line) => line.trim())).toEqual(
      Array.from(
        { length: 10 },
        (_, i) => `${formatDuration((11 - i) * 1000)}  f${11 - i}.test.ts`,
      ),
    );
  });

  it('says minutes past a minute and tenths of a second below one', () => {
    expect([formatDuration(41_240), formatDuration(187_000), formatDuration(60_000)]).toEqual([
      '41.2 s',
      '3 min 07 s',
      '1 min 00 s',
    ]);
  });
});
