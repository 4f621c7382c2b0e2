import { runmodeChange } from '../families/runmode.ts';
import type { OperationModule } from '../operation.ts';

// resume: let a pipeline run its requests.
export const resume: OperationModule = {
  ...runmodeChange('run', 'Let a pipeline run its requests'),
  samples: [{ label: 'resume', phase: 'change', fields: () => ({ pipelineid: 'pl_2' }) }],
};
