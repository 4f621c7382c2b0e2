// Builds the kit as a package of its own (src/kit/package.json): ES modules with their
// declarations in dist/esm (pipelinectl's bin among them), CommonJS with its declarations
// in dist/cjs. Run by the repository's `npm run build`; `npm pack ./src/kit` packs the result.
import { spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const kit = dirname(fileURLToPath(import.meta.url));
const dist = join(kit, 'dist');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
for (const project of ['tsconfig.esm.json', 'tsconfig.cjs.json']) {
  const run = spawnSync(process.execPath, [tsc, '-p', join(kit, project)], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`kit build: tsc -p src/kit/${project} failed`);
    process.exit(run.status ?? 1);
  }
}

// tsc rewrites `./x.ts` to `./x.js` in JavaScript but leaves declarations as written
// as written; a consumer's resolver (and any tsc before 5.7) wants the `.js` next to them.
const relativeTs = /(\bfrom\s*|\bimport\s*\(\s*)(['"])(\.{1,2}\/[^'"]*?)\.ts\2/g;
function rewriteDeclarations(folder) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) rewriteDeclarations(path);
    else if (entry.name.endsWith('.d.ts')) {
      const text = readFileSync(path, 'utf8');
      const rewritten = text.replace(relativeTs, '$1$2$3.js$2');
      if (rewritten !== text) writeFileSync(path, rewritten);
    }
  }
}
rewriteDeclarations(dist);

// The package says "type": "module"; dist/cjs says otherwise for its .js and .d.ts files.
writeFileSync(join(dist, 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
chmodSync(join(dist, 'esm', 'cli', 'bin.js'), 0o755);
console.log(`kit build: ${dist}`);
