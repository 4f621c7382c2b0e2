import { requestChange } from '../families/request-change.ts';
import type { OperationModule } from '../operation.ts';

// requestcancel: stop a waiting or running request.
export const requestcancel: OperationModule = {
  ...requestChange('cancel', 'Stop a waiting or running request'),
  samples: [
    { label: 'requestcancel', phase: 'change', fields: (f) => ({ requestid: f.waiting }) },
    { label: '409/1301 state conflict', fails: true, fields: (f) => ({ requestid: f.finished }) },
  ],
};
