/**
 * `npm test`: the type check and lint side by side, then the unit and e2e stages one after
 * another, as CI runs them, stopping at the first step that fails; at the end (or at that
 * failure) the time of each stage. The runners' own reporters print their ten slowest files
 * (vitest-slowest.ts, playwright-budget.ts).
 *
 * Why two at once: `tsc` and ESLint each keep one core busy and leave the other idle, and on
 * CI's two cores running them together took the pair from about 2 min to the longer of the two
 * (docs/contributing.md, "The budget"). Vitest and Playwright fill both cores on their own.
 */
import { spawn } from 'node:child_process';
import { formatDuration } from './slowest.ts';

type Stage = { name: string; script: string };

/** Steps run in order; the stages of one step run at the same time. */
const STEPS: Stage[][] = [
  [
    { name: 'type check', script: 'typecheck' },
    { name: 'lint', script: 'lint' },
  ],
  [{ name: 'unit', script: 'test:unit' }],
  [{ name: 'e2e', script: 'test:e2e' }],
];

type Outcome = { stage: Stage; code: number; ms: number };

/**
 * Runs `npm run <script>`. Alone, it writes straight to the terminal (the runners' progress
 * as it happens); beside another, its output is held and written whole when it ends, so two
 * stages' lines never interleave.
 */
function runScript(stage: Stage, alone: boolean): Promise<Outcome> {
  const start = Date.now();
  return new Promise((resolve, reject) => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const child = spawn(npm, ['run', '--silent', stage.script], {
      stdio: alone ? 'inherit' : ['ignore', 'pipe', 'pipe'],
    });
    const held: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => held.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => held.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (held.length > 0) process.stdout.write(Buffer.concat(held));
      resolve({ stage, code: code ?? (signal ? 1 : 0), ms: Date.now() - start });
    });
  });
}

const times: string[] = [];
const began = Date.now();
const failed: string[] = [];
for (const step of STEPS) {
  const outcomes = await Promise.all(step.map((stage) => runScript(stage, step.length === 1)));
  for (const { stage, code, ms } of outcomes) {
    const together = step.length > 1 ? ' (side by side)' : '';
    times.push(
      `  ${stage.name.padEnd(10)} ${formatDuration(ms)}${together}${code === 0 ? '' : ` (failed, exit ${code})`}`,
    );
    if (code !== 0) {
      failed.push(stage.name);
      process.exitCode = code;
    }
  }
  if (failed.length > 0) break;
}
process.stdout.write(
  `\nnpm test: ${failed.length > 0 ? `failed in its ${failed.join(' and ')} stage${failed.length > 1 ? 's' : ''}` : 'passed'} in ${formatDuration(Date.now() - began)}\n${times.join('\n')}\n`,
);
