import { requestChange } from '../families/request-change.ts';

// requestretry: run a request that ended in Error or Stop again.
export const requestretry = requestChange(
  'retry',
  'Run a request that ended in Error or Stop again',
);
