import { requestChange } from '../families/request-change.ts';

// requestcancel: stop a waiting or running request.
export const requestcancel = requestChange('cancel', 'Stop a waiting or running request');
