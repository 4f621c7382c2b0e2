// Entry of the stage worker thread. The service runs TypeScript through tsx, whose loader a
// worker does not inherit on Node 20 (`execArgv: ['--import', 'tsx']` loads it too late for
// the entry), so the worker registers it here before importing its TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./stage-worker.ts');
