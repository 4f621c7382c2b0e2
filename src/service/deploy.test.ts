import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from './app.ts';
import { freePort } from './testing/child.ts';

/*
 * The install of docs/deploy/README.md, word for word, from a clean copy of the repository:
 *   npm ci && npm run build && npm prune --omit=dev && npm start
 * The copy holds what a clone of the working tree would: tracked files and new ones not
 * ignored, as they are now (uncommitted changes included), and nothing else (no
 * node_modules, no dist).
 *
 * better-sqlite3's install script runs as on a machine with internet: prebuild-install finds
 * a prebuilt binary and nothing compiles. Here (no GitHub) that binary is the one this
 * checkout's own `npm ci` compiled, handed over through prebuild-install's documented local
 * folder (`npm_config_better_sqlite3_local_prebuilds`). Compiling it a second time cost CI two
 * to four minutes of a core; the build from source is what `.ci/run`'s own `npm ci` proves.
 */

/** The environment of a person at a shell, not of this test runner. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(VITEST|PIPELINE_|LOG_LEVEL$|NODE_ENV$|NODE_OPTIONS$|npm_)/.test(name))
      env[name] = value;
  return env;
}

/** better-sqlite3's compiled binary, within its package. */
const BINARY = 'build/Release/better_sqlite3.node';

/**
 * A folder holding this checkout's better-sqlite3 binary as the prebuild tarball that
 * prebuild-install would download for this Node (`<name>-v<version>-node-v<abi>-<platform>-
 * <arch>.tar.gz`, holding `build/Release/better_sqlite3.node`). A name it does not look for
 * only means that it compiles, as before.
 */
function localPrebuilds(folder: string): string {
  const packageDir = join(REPO_ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
    version: string;
  };
  const prebuilds = join(folder, 'prebuilds');
  mkdirSync(prebuilds);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(prebuilds, name), '-C', packageDir, BINARY]);
  return prebuilds;
}

/** Runs a command to its end; rejects with its last output when it fails. */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env: { ...cleanEnv(), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`)),
    );
  });
}

it(
  'npm ci && npm run build && npm prune --omit=dev && npm start works from a clean copy',
  async () => {
    const folder = mkdtempSync(join(tmpdir(), 'pipeline-deploy-'));
    const copy = join(folder, 'repo');
    try {
      const files = execFileSync(
        'git',
        ['ls-files', '--cached', '--others', '--exclude-standard', '-z'],
        { cwd: REPO_ROOT, encoding: 'utf8' },
      )
        .split('\0')
        .filter((file) => file !== '');
      for (const file of files) {
        const from = join(REPO_ROOT, file);
        // Tracked but deleted in the working tree: not in a clone of it either.
        if (!existsSync(from) || !lstatSync(from).isFile()) continue;
        mkdirSync(dirname(join(copy, file)), { recursive: true });
        copyFileSync(from, join(copy, file));
      }
      expect(existsSync(join(copy, 'node_modules'))).toBe(false);

      await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], copy, {
        npm_config_better_sqlite3_local_prebuilds: localPrebuilds(folder),
      });
      // Installed by its own install script from the tarball, not copied here by hand.
      expect(existsSync(join(copy, 'node_modules/better-sqlite3', BINARY))).toBe(true);
      await run('npm', ['run', 'build'], copy);
      expect(existsSync(join(copy, 'dist/index.html'))).toBe(true);
      await run('npm', ['prune', '--omit=dev'], copy);
      // What a production install must not carry.
      expect(existsSync(join(copy, 'node_modules/vite'))).toBe(false);
      expect(existsSync(join(copy, 'node_modules/vitest'))).toBe(false);

      const port = await freePort();
      const data = join(folder, 'data');
      // Its own process group, ended as one by its id: npm, its shell and the service.
      const server = spawn(
        'npm',
        ['start', '--', '--port', String(port), '--data', data, '--no-demo'],
        { cwd: copy, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
      );
      let output = '';
      server.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      server.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((resolve) => server.once('exit', resolve));
      try {
        const deadline = Date.now() + 120_000;
        while (!output.includes('is running')) {
          if (server.exitCode !== null || Date.now() > deadline)
            throw new Error(`npm start did not start the service:\n${output}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const origin = `http://127.0.0.1:${port}`;
        const health = await fetch(`${origin}/healthz`);
        expect(health.status).toBe(200);
        expect(await health.json()).toEqual({ status: 'ok' });
        const page = await fetch(`${origin}/`);
        expect(page.status).toBe(200);
        const html = await page.text();
        expect(html).toContain('<div id="root"></div>');
        expect(html).toMatch(/src="\/assets\/index-[\w-]+\.js"/);
        const script = /src="(\/assets\/index-[\w-]+\.js)"/.exec(html)?.[1] ?? '';
        expect((await fetch(`${origin}${script}`)).status).toBe(200);
        // It did not build on its own: `npm run build` had.
        expect(output).not.toContain('Building the dashboard');
      } finally {
        if (server.pid !== undefined && server.exitCode === null)
          process.kill(-server.pid, 'SIGTERM');
        await exited;
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  },
  10 * 60_000,
);
