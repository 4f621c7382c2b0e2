#!/usr/bin/env node
// pipelinectl as the kit package's bin, compiled to dist/esm/cli/bin.js (the repository's
// own `npm run ctl` runs the sources through tsx: pipelinectl.mjs).
import { main } from './pipelinectl.ts';

await main();
