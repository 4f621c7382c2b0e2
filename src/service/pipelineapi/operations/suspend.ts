import { runmodeChange } from '../families/runmode.ts';

// suspend: hold a pipeline's new requests in Wait.
export const suspend = runmodeChange('stop', 'Hold a pipeline’s new requests in Wait');
