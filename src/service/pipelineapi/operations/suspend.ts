import { runmodeChange } from '../families/runmode.ts';
import type { OperationModule } from '../operation.ts';

// suspend: hold a pipeline's new requests in Wait.
export const suspend: OperationModule = {
  ...runmodeChange('stop', 'Hold a pipeline’s new requests in Wait'),
  samples: [{ label: 'suspend', phase: 'change', fields: () => ({ pipelineid: 'pl_2' }) }],
};
