#!/usr/bin/env node
// Entry of the pipelinectl command: loads the TypeScript sources through tsx.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./pipelinectl.ts');
await main();
