import { requestChange } from '../families/request-change.ts';
import type { OperationModule } from '../operation.ts';

// requestretry: run a request that ended in Error or Stop again.
export const requestretry: OperationModule = {
  ...requestChange('retry', 'Run a request that ended in Error or Stop again'),
  samples: [{ label: 'requestretry', phase: 'change', fields: (f) => ({ requestid: f.failed }) }],
};
