// Runs a TypeScript entry of the service as one esbuild bundle:
//   node src/service/launch.mjs src/service/main.ts [its arguments]
//
// Run through `node --import tsx`, the service keeps tsx's module loader on a thread of its
// own for as long as it lives: measured 79 MB of RSS for an empty script against 40 MB
// without it, memory the ingest's threads need more (see stage-pool.ts). The bundle is
// written under node_modules/.cache, where the service's packages resolve as they are;
// should esbuild fail, the entry runs through tsx as before.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Each module keeps its own `import.meta.url`: the service finds its files (the dashboard's
 * build, the demo, its worker threads' modules) next to its sources, not next to the bundle.
 */
const ownUrls = {
  name: 'own-urls',
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, async ({ path }) => {
      const text = await readFile(path, 'utf8');
      return {
        contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)),
        loader: 'ts',
      };
    });
  },
};

async function bundle(entry) {
  const { build } = await import('esbuild');
  // Named after the entry and its path: checkouts that share node_modules keep their own.
  const tag = createHash('sha256').update(entry).digest('hex').slice(0, 12);
  const out = join(
    root,
    'node_modules/.cache/pipeline-service',
    `${basename(entry, extname(entry))}-${tag}.mjs`,
  );
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    // Where the bundle goes: the source map's paths are relative to it.
    outfile: out,
    // Packages load from node_modules as they are (better-sqlite3 is native).
    packages: 'external',
    plugins: [ownUrls],
    // Stack traces in the service's log then name the TypeScript sources' lines (for 6-9 MB
    // of RSS, measured idle).
    sourcemap: 'inline',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.text;
  if (!code) throw new Error('esbuild wrote nothing');
  await mkdir(dirname(out), { recursive: true });
  // Services started side by side (the tests start several) each write their own copy and
  // rename it into place, so that none imports a file another is still writing.
  const partial = `${out}.${process.pid}`;
  await writeFile(partial, code);
  await rename(partial, out);
  return out;
}

/*
 * esbuild runs on a worker thread of its own, never on the service's main thread. Its
 * asynchronous API, run on the main thread, left Node's process.nextTick on V8's slow path
 * for the life of the process (the tick object's literal stored through the runtime:
 * about 2 µs per cached answer, measured with --cpu-prof under wrk; none with the bundle
 * imported directly). A worker's isolate goes away with it. See docs/throughput.md.
 */
if (isMainThread) await main();
else parentPort.postMessage(await bundle(workerData.entry));

/** The bundle's path, written by `bundle` on a worker thread. */
function bundleOnWorker(entry) {
  return new Promise((resolvePath, reject) => {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { entry } });
    let out;
    worker.once('message', (path) => (out = path));
    worker.once('error', reject);
    worker.once('exit', () =>
      out ? resolvePath(out) : reject(new Error('esbuild wrote nothing')),
    );
  });
}

async function main() {
  const [entryArgument, ...rest] = process.argv.slice(2);
  if (!entryArgument) {
    process.stderr.write('usage: node src/service/launch.mjs <entry.ts> [arguments]\n');
    process.exit(2);
  }
  const entry = resolve(entryArgument);
  // The entry sees its own path and arguments, as under `node --import tsx <entry>`.
  process.argv = [process.argv[0], entry, ...rest];

  process.setSourceMapsEnabled(true);
  let bundled;
  try {
    bundled = await bundleOnWorker(entry);
  } catch (error) {
    process.stderr.write(`Running ${entryArgument} through tsx (${error.message})\n`);
  }
  if (bundled) await import(pathToFileURL(bundled).href);
  else {
    const { register } = await import('tsx/esm/api');
    register();
    await import(pathToFileURL(entry).href);
  }
}
