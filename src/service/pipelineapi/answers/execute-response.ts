import { EXECUTE_SUCCESS } from '../../../kit/wire.ts';
import type { ApiError } from '../../errors.ts';
import type { Document, Tree } from '../../render/document.ts';

/** The ExecuteResponse of a change that succeeded, with what it has to tell. */
export const executeResponse = (extra: Tree = {}): Document => ({
  root: 'ExecuteResponse',
  body: { ...EXECUTE_SUCCESS, ...extra },
});

/** The ExecuteResponse of a failed Part C call (contract section 3). */
export function errorDocument(error: ApiError): Document {
  return {
    root: 'ExecuteResponse',
    body: {
      Status: error.httpStatus >= 500 ? 'SystemError' : 'Error',
      Code: error.code,
      Message: error.message,
    },
  };
}
