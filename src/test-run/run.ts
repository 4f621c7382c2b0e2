/**
 * `npm test`: the type check, lint, unit and e2e stages one after another, as CI runs them,
 * stopping at the first that fails; at the end (or at that failure) the time of each stage.
 * The runners' own reporters print their ten slowest files (vitest-slowest.ts,
 * playwright-budget.ts).
 */
import { spawn } from 'node:child_process';
import { formatDuration } from './slowest.ts';

const STAGES = [
  ['type check', 'typecheck'],
  ['lint', 'lint'],
  ['unit', 'test:unit'],
  ['e2e', 'test:e2e'],
] as const;

function runScript(script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const child = spawn(npm, ['run', '--silent', script], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const times: string[] = [];
const began = Date.now();
let failed: string | undefined;
for (const [name, script] of STAGES) {
  const start = Date.now();
  const code = await runScript(script);
  times.push(
    `  ${name.padEnd(10)} ${formatDuration(Date.now() - start)}${code === 0 ? '' : ` (failed, exit ${code})`}`,
  );
  if (code !== 0) {
    failed = name;
    process.exitCode = code;
    break;
  }
}
process.stdout.write(
  `\nnpm test: ${failed ? `failed in its ${failed} stage` : 'passed'} in ${formatDuration(Date.now() - began)}\n${times.join('\n')}\n`,
);
