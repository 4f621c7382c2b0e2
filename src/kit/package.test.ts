import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../service/app.ts';
import { ordersCsv, writeTestPipelines } from '../service/testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../service/testing/service.ts';
import { KIT_VERSION } from './index.ts';

// The kit as someone outside the project gets it: built by `npm run build`'s kit step,
// packed with `npm pack ./src/kit`, installed from the tarball into an empty project, and
// used from an ES module, a CommonJS module, TypeScript (nodenext and bundler) and its bin,
// against the real service running in this process.

const run = promisify(execFile);
const kitDir = join(REPO_ROOT, 'src', 'kit');
const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const PACKAGE = 'pipeline-kit';

// npm and npx hand their own settings down as npm_* variables (the repository's prefix
// among them); the consumer's npm must see only its own project.
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
);

let work: string;
let project: string;
let packedFiles: string[];
let service: TestService;

/** Runs a command in the consumer project; a failure shows its output. */
async function inProject(
  file: string,
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<string> {
  try {
    const { stdout } = await run(file, [...args], {
      cwd: project,
      env: { ...cleanEnv, ...env },
      encoding: 'utf8',
    });
    return stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, {
      cause: error,
    });
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'kit-package-'));
  project = join(work, 'consumer');
  mkdirSync(project);
  await run(process.execPath, [join(kitDir, 'build.mjs')], { cwd: REPO_ROOT, env: cleanEnv });
  const packed = await run(
    'npm',
    ['pack', kitDir, '--pack-destination', work, '--json', '--ignore-scripts'],
    { cwd: work, env: cleanEnv, encoding: 'utf8' },
  );
  const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
  if (!info) throw new Error(`npm pack printed no package: ${packed.stdout}`);
  packedFiles = info.files.map((f) => f.path);
  writeFileSync(
    join(project, 'package.json'),
    `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' })}\n`,
  );
  await inProject('npm', [
    'install',
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
    join(work, info.filename),
  ]);
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'kit-package-defs-'))),
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(5));
}, 240_000);

afterAll(async () => {
  await service?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

// Each step runs tsc, node or npm: generous on a shared machine.
describe('the kit as a package', { timeout: 180_000 }, () => {
  it('is named, versioned and licensed as interfaces.md says, with fast-xml-parser its only dependency', () => {
    const pkg = JSON.parse(readFileSync(join(kitDir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      license: string;
      dependencies: Record<string, string>;
    };
    const root = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(pkg).toMatchObject({ name: PACKAGE, version: '0.0.1', license: 'BSD-3-Clause' });
    expect(KIT_VERSION).toBe(pkg.version);
    expect(pkg.dependencies).toEqual({ 'fast-xml-parser': root.dependencies['fast-xml-parser'] });
  });

  it('packs the built JavaScript and declarations, and neither sources nor tests', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/esm/index.js',
        'dist/esm/index.d.ts',
        'dist/cjs/index.js',
        'dist/cjs/index.d.ts',
        'dist/cjs/package.json',
        'dist/esm/cli/bin.js',
      ]),
    );
    const sources = packedFiles.filter((f) => /\.ts$/.test(f) && !f.endsWith('.d.ts'));
    expect(sources).toEqual([]);
    expect(packedFiles.filter((f) => f.includes('.test.'))).toEqual([]);
  });

  it('ships a library that imports nothing of Node or of the project, only fast-xml-parser', () => {
    // The command line (dist/esm/cli) is Node's; the library runs in browsers too.
    const library = packedFiles.filter((f) => /^dist\/(esm|cjs)\/[^/]+\.js$/.test(f));
    expect(library.length).toBeGreaterThan(10);
    const imported = new Set<string>();
    for (const file of library) {
      const text = readFileSync(join(kitDir, file), 'utf8');
      const specifiers = [
        ...text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gm),
        ...text.matchAll(/^import\s*["']([^"']+)["']/gm),
        ...text.matchAll(/\b(?:require|import)\(\s*["']([^"']+)["']\s*\)/g),
      ];
      for (const [, name] of specifiers) if (name && !name.startsWith('./')) imported.add(name);
    }
    expect([...imported]).toEqual(['fast-xml-parser']);
  });

  it('works from an ES module import', async () => {
    writeFileSync(
      join(project, 'esm.mjs'),
      `import { PipelineClient, KIT_VERSION } from '${PACKAGE}';
const client = new PipelineClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
const pipelines = await client.listPipelines('xml');
const started = await client.startRequest('pl_1', 'orders.csv', {}, { format: 'xml' });
const followed = await client.followRequest(started.requestId, { format: 'xml', pollMs: 20 });
console.log(JSON.stringify({
  version: KIT_VERSION,
  ids: pipelines.map((p) => p.id),
  outcome: followed.outcome,
  status: followed.detail.status,
}));
`,
    );
    const out = await inProject(process.execPath, ['esm.mjs'], {
      URL: service.url,
      KEY: TEST_API_KEY,
    });
    expect(JSON.parse(out)).toEqual({
      version: '0.0.1',
      ids: ['pl_1', 'pl_2', 'pl_3'],
      outcome: 'ok',
      status: 'Finish',
    });
  });

  it('works from a CommonJS require', async () => {
    writeFileSync(
      join(project, 'cjs.cjs'),
      `const { PipelineClient, HttpError, xmlToTree } = require('${PACKAGE}');
(async () => {
  const client = new PipelineClient({ baseUrl: process.env.URL, apiKey: process.env.KEY });
  const version = await client.version('xml');
  const refusal = await client.resume('pl_404').catch((error) => error);
  const tree = xmlToTree('<Result><Name>kit</Name></Result>');
  console.log(JSON.stringify({
    version,
    refused: refusal instanceof HttpError ? refusal.status : String(refusal),
    tree,
  }));
})().catch((error) => { console.error(error); process.exitCode = 1; });
`,
    );
    const out = await inProject(process.execPath, ['cjs.cjs'], {
      URL: service.url,
      KEY: TEST_API_KEY,
    });
    const answer = JSON.parse(out) as { version: string; refused: number; tree: unknown };
    expect(answer.version).toBe(service.app.context.version);
    expect(answer.refused).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(answer.tree)).toContain('kit');
  });

  it('type-checks from TypeScript with module nodenext (ESM and CommonJS) and with moduleResolution bundler', async () => {
    // A wrong type must fail: the declarations are read, not taken as `any`.
    const use = `const client = new PipelineClient({ baseUrl: 'http://127.0.0.1:25080', apiKey: 'k' });
export async function statusOf(id: string): Promise<string> {
  const detail: RequestDetail = await client.requestDetail(id);
  return detail.status;
}
export function isRefusal(error: unknown): boolean {
  return error instanceof HttpError && error.code === 1201;
}
// @ts-expect-error listPipelines answers Pipeline records, not strings
export const wrong: Promise<string[]> = client.listPipelines();
`;
    const head = `import { HttpError, PipelineClient, type RequestDetail } from '${PACKAGE}';\n`;
    writeFileSync(join(project, 'esm-check.ts'), head + use);
    writeFileSync(join(project, 'cjs-check.cts'), head + use);
    writeFileSync(join(project, 'bundler-check.ts'), head + use);
    const compilerOptions = {
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      lib: ['ES2022', 'DOM'],
      types: [],
    };
    writeFileSync(
      join(project, 'tsconfig.nodenext.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: 'nodenext', moduleResolution: 'nodenext' },
        files: ['esm-check.ts', 'cjs-check.cts'],
      }),
    );
    writeFileSync(
      join(project, 'tsconfig.bundler.json'),
      JSON.stringify({
        compilerOptions: { ...compilerOptions, module: 'esnext', moduleResolution: 'bundler' },
        files: ['bundler-check.ts'],
      }),
    );
    for (const config of ['tsconfig.nodenext.json', 'tsconfig.bundler.json']) {
      // Fails (inProject throws) on any type error, in the checks or in the declarations.
      const traced = await inProject(process.execPath, [
        tsc,
        '-p',
        config,
        '--noEmit',
        '--traceResolution',
      ]);
      // Each found the package's own declarations, by the condition its module system asks for.
      expect(traced).toMatch(
        /'pipeline-kit' was successfully resolved to '[^']*\/dist\/esm\/index\.d\.ts'/,
      );
      if (config === 'tsconfig.nodenext.json')
        expect(traced).toMatch(
          /'pipeline-kit' was successfully resolved to '[^']*\/dist\/cjs\/index\.d\.ts'/,
        );
    }
  });

  it('installs pipelinectl as a bin that knows its version and talks to the service', async () => {
    const bin = join(project, 'node_modules', '.bin', 'pipelinectl');
    expect(await inProject(bin, ['--version'])).toBe('0.0.1\n');
    const list = JSON.parse(
      await inProject(bin, ['list', '--json'], {
        PIPELINE_URL: service.url,
        PIPELINE_API_KEY: TEST_API_KEY,
      }),
    ) as { id: string }[];
    expect(list.map((p) => p.id)).toEqual(['pl_1', 'pl_2', 'pl_3']);
  });
});
