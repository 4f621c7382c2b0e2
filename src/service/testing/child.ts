import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../app.ts';
import { SERVICE_NODE_FLAGS } from '../node-flags.ts';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface ChildService {
  readonly process: ChildProcess;
  readonly url: string;
  readonly output: () => string;
  /** Resolves with the exit code or signal. */
  readonly exited: Promise<number | string | null>;
}

/** Runs `npm start`'s entry point as a separate process, as a user would. */
export async function startChild(args: readonly string[]): Promise<ChildService> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      ...SERVICE_NODE_FLAGS,
      join(REPO_ROOT, 'src/service/launch.mjs'),
      join(REPO_ROOT, 'src/service/main.ts'),
      '--port',
      String(port),
      ...args,
    ],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  const deadline = Date.now() + 30_000;
  while (!output.includes('is running')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`the service did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: child, url: `http://127.0.0.1:${port}`, output: () => output, exited };
}

/**
 * A gateway process in front of `upstream` (a vendor double), on `databaseUrl` when given,
 * its index polled every second, `admin` with `adminPassword`, trusting a proxy on loopback.
 */
export function startGatewayChild(options: {
  readonly upstream: { readonly url: string; readonly apiKey: string };
  readonly databaseUrl?: string | undefined;
  readonly adminPassword: string;
}): Promise<ChildService> {
  return startChild([
    '--data',
    mkdtempSync(join(tmpdir(), 'gateway-child-')),
    ...(options.databaseUrl ? ['--database', options.databaseUrl] : []),
    '--upstream',
    options.upstream.url,
    '--upstream-key',
    options.upstream.apiKey,
    '--upstream-poll-s',
    '1',
    '--admin-password',
    options.adminPassword,
    '--trust-proxy',
    '127.0.0.1',
  ]);
}

/** The one of these processes that holds a lease: its holder names its pid (db/leases.ts). */
export const holdingLease = (
  children: readonly ChildService[],
  holder: string | undefined,
): ChildService | undefined =>
  children.find((child) => holder?.split('/')[1] === String(child.process.pid));
