import { runmodeChange } from '../families/runmode.ts';

// resume: let a pipeline run its requests.
export const resume = runmodeChange('run', 'Let a pipeline run its requests');
