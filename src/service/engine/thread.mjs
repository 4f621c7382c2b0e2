// Entry of the engine's worker threads: `workerData.entry` is the URL of the TypeScript module
// to run. The service runs TypeScript through tsx, whose loader a worker does not inherit on
// Node 20 (`execArgv: ['--import', 'tsx']` loads it too late for the entry), so the
// worker registers it here before importing its TypeScript.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
