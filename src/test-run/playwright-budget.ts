import { relative } from 'node:path';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestResult,
} from '@playwright/test/reporter';
import { E2E_BUDGET } from '../../e2e/budget.ts';
import { formatDuration, slowestFiles } from './slowest.ts';

/**
 * A Playwright reporter beside the list reporter: it holds the e2e stage to its budget. A run
 * that collects more tests than `E2E_BUDGET.tests` fails, so a spec is added only with the
 * budget revisited (and the time it costs measured); at the end it prints the ten slowest spec
 * files and the stage's time beside the budget's minutes. Time is printed, never asserted:
 * how long a run takes depends on the machine.
 */
export default class BudgetReporter implements Reporter {
  private rootDir = '';
  private collected = 0;
  private started = 0;
  private readonly timeByFile = new Map<string, number>();

  onBegin(config: FullConfig, suite: Suite): void {
    this.rootDir = config.rootDir;
    this.collected = suite.allTests().length;
    this.started = Date.now();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const file = relative(this.rootDir, test.location.file);
    this.timeByFile.set(file, (this.timeByFile.get(file) ?? 0) + result.duration);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    const wall = Date.now() - this.started;
    const lines = [
      '',
      ...(this.timeByFile.size > 0 ? [slowestFiles('Playwright', this.timeByFile)] : []),
      `Playwright: ${this.collected} tests in ${formatDuration(wall)}; the budget is ${E2E_BUDGET.tests} tests in ${E2E_BUDGET.minutes} min on two cores (e2e/budget.ts)`,
    ];
    const over = this.collected > E2E_BUDGET.tests;
    if (over)
      lines.push(
        `Over budget: ${this.collected} tests collected, ${E2E_BUDGET.tests} allowed. A check that needs no browser belongs in Vitest; if this one does, measure the stage on two cores and raise E2E_BUDGET in e2e/budget.ts with the new figures.`,
      );
    process.stdout.write(`${lines.join('\n')}\n`);
    return over && result.status === 'passed' ? { status: 'failed' } : undefined;
  }
}
