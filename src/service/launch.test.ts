import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../kit/index.ts';
import { REPO_ROOT } from './app.ts';
import { SERVICE_NODE_FLAGS } from './node-flags.ts';
import { startChild } from './testing/child.ts';
import { eventually, TEST_API_KEY } from './testing/service.ts';

const folder = mkdtempSync(join(tmpdir(), 'launch-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

// `npm start` runs the service through launch.mjs, as startChild does.
describe('launch.mjs', () => {
  it('runs the service from its bundle, with its files and threads found beside the sources', async () => {
    const child = await startChild(['--data', join(folder, 'data'), '--api-key', TEST_API_KEY]);
    try {
      expect(child.output()).not.toMatch(/through tsx/);
      const cache = join(REPO_ROOT, 'node_modules/.cache/pipeline-service');
      const name = readdirSync(cache).find((file) => /^main-[0-9a-f]{12}\.mjs$/.test(file));
      const bundle = readFileSync(join(cache, name ?? 'main.mjs'), 'utf8');
      expect(bundle).not.toContain('import.meta.url');
      // The demo's input comes from the folder of demo/seed.ts, and the request runs on the
      // reader's and the Joint's threads, each started from its own module.
      const client = new PipelineClient({ baseUrl: child.url, apiKey: TEST_API_KEY });
      const { requestId } = await client.exec('pl_1', 'orders.csv', {
        minAmount: '0',
        region: 'EU',
      });
      const detail = await eventually(async () => {
        const answer = await client.requestDetail(requestId as string);
        return answer.status === 'Finish' || answer.status === 'Error' ? answer : undefined;
      }, 'the request to end');
      expect(detail.status).toBe('Finish');
      const orders = await client.table('action', 'ORDERS', { pageSize: 1 });
      expect(orders.info.total).toBeGreaterThan(0);
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
    }
  });

  it("is what package.json starts, with the service's Node flags", () => {
    const { scripts } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const command = [
      'node',
      ...SERVICE_NODE_FLAGS,
      'src/service/launch.mjs',
      'src/service/main.ts',
    ];
    expect(scripts.start).toBe(`${command.join(' ')} --build-if-missing`);
    expect(scripts.service).toBe(command.join(' '));
  });

  it('gives the entry its own URL, its arguments and stack traces that name its source lines', () => {
    const entry = join(folder, 'probe.ts');
    writeFileSync(
      entry,
      [
        'function fail(): never {',
        "  throw new Error('probe');",
        '}',
        'let stack = "";',
        'try {',
        '  fail();',
        '} catch (error) {',
        '  stack = (error as Error).stack ?? "";',
        '}',
        "import { createRequire } from 'node:module';",
        // esbuild's CommonJS files, had they been loaded on this thread (see launch.mjs).
        'const loaded = Object.keys(createRequire(import.meta.url).cache);',
        "const esbuild = loaded.some((file) => file.includes('/node_modules/esbuild/'));",
        'console.log(JSON.stringify({ url: import.meta.url, argv: process.argv.slice(2), stack, esbuild }));',
      ].join('\n'),
    );
    const cache = join(REPO_ROOT, 'node_modules/.cache/pipeline-service');
    const before = new Set(readdirSync(cache));
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, 'src/service/launch.mjs'), entry, '--flag', 'value'],
      { encoding: 'utf8' },
    );
    // The probe's bundle goes with the test: each run's folder, so its name, is new.
    for (const file of readdirSync(cache))
      if (!before.has(file) && file.startsWith('probe-')) rmSync(join(cache, file));
    expect(run.status).toBe(0);
    const probe = JSON.parse(run.stdout) as {
      url: string;
      argv: string[];
      stack: string;
      esbuild: boolean;
    };
    expect(probe.url).toBe(pathToFileURL(entry).href);
    expect(probe.argv).toEqual(['--flag', 'value']);
    expect(probe.stack).toContain(`(${entry}:2:`);
    // Bundled on a worker thread: the service's own thread never ran esbuild's API.
    expect(probe.esbuild).toBe(false);
  });

  it('names what is missing when no entry is given', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'src/service/launch.mjs')], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: node src/service/launch.mjs <entry.ts>');
  });
});
