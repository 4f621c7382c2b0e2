import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './app.ts';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';
import { freePort } from './testing/child.ts';

// `npm start` as a log shipper sees it: stdout is JSON lines and nothing else.
it('writes only JSON log lines to stdout, the banner to stderr, the password only to its file', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'main-test-'));
  const port = await freePort();
  const { LOG_LEVEL: _level, PIPELINE_LOG_FORMAT: _format, ...env } = process.env;
  const child = spawn(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      join(REPO_ROOT, 'src/service/launch.mjs'),
      join(REPO_ROOT, 'src/service/main.ts'),
      ...['--port', String(port), '--data', join(folder, 'data'), '--no-demo'],
      ...['--base-path', '/ops', '--trust-proxy', '127.0.0.1'],
    ],
    { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    const deadline = Date.now() + 60_000;
    while (!stderr.includes('is running')) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`the service did not start:\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const origin = `http://127.0.0.1:${port}`;
    expect(
      (await fetch(`${origin}/ops/healthz`, { headers: { 'x-forwarded-for': '192.0.2.1' } }))
        .status,
    ).toBe(200);
    const passwordFile = join(folder, 'data', 'initial-admin-password');
    const password = readFileSync(passwordFile, 'utf8').trim();
    expect(password.length).toBeGreaterThanOrEqual(12);
    // The banner names the file and the base path, never the password.
    expect(stderr).toContain(`the password in ${passwordFile}`);
    expect(stderr).toContain(`http://localhost:${port}/ops/`);
    expect(stderr).not.toContain(password);
    expect(stdout).not.toContain(password);
    const deadlineLog = Date.now() + 5_000;
    while (!stdout.includes('/ops/healthz') && Date.now() < deadlineLog)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const lines = stdout.trimEnd().split('\n');
    // Every line of stdout is a JSON object, the access line among them at info.
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(entries).toContainEqual(
      expect.objectContaining({
        level: 30,
        msg: 'request',
        route: '/healthz',
        url: '/ops/healthz',
        status: 200,
        ip: '192.0.2.1',
      }),
    );
  } finally {
    child.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  }
  // SIGTERM's words went to stderr as well: stdout stayed JSON to the end.
  for (const line of stdout.trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  expect(stderr).toContain('SIGTERM: stopping');
}, 90_000);
