import type { Reporter, TestModule } from 'vitest/node';
import { slowestFiles } from './slowest.ts';

/**
 * A Vitest reporter beside the default one: at the end of a run, the ten test files that took
 * longest (importing the file and its set-up, then its tests and hooks).
 */
export default class SlowestFilesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const timeByFile = new Map<string, number>();
    for (const module of testModules) {
      const diagnostic = module.diagnostic();
      timeByFile.set(
        module.relativeModuleId,
        diagnostic.prepareDuration +
          diagnostic.environmentSetupDuration +
          diagnostic.collectDuration +
          diagnostic.setupDuration +
          diagnostic.duration,
      );
    }
    if (timeByFile.size > 0) process.stdout.write(`\n${slowestFiles('Vitest', timeByFile)}\n`);
  }
}
