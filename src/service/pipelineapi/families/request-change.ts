import { ErrorCode } from '../../../kit/wire.ts';
import type { ServiceContext } from '../../context.ts';
import { getRequest } from '../../db/status/requests.ts';
import { ApiError } from '../../errors.ts';
import { executeResponse } from '../answers/execute-response.ts';
import { REQUEST_ID_FIELD, requestIdParam } from '../fields.ts';
import type { OperationAnswers } from '../operation.ts';
import type { Params } from '../params.ts';
import { learningRefusals, upstreamChange } from './upstream-change.ts';

// requestretry and requestcancel: a change of one request, by its `requestid`.

function existingRequest(ctx: ServiceContext, params: Params): string {
  const requestId = requestIdParam(params, 'embedded');
  if (!getRequest(ctx.dbs.status, requestId)) {
    throw new ApiError(404, ErrorCode.RequestNotFound, `Request ${requestId} does not exist.`);
  }
  return requestId;
}

export const requestChange = (action: 'retry' | 'cancel', summary: string): OperationAnswers => {
  const operation = action === 'retry' ? 'requestretry' : 'requestcancel';
  return {
    embedded: (ctx, params) => {
      ctx.engine[action](existingRequest(ctx, params));
      return executeResponse();
    },
    upstream: learningRefusals(
      action,
      upstreamChange(operation, (p) => ({ requestid: requestIdParam(p, 'upstream') })),
    ),
    openapi: { summary, fields: [REQUEST_ID_FIELD], root: 'ExecuteResponse' },
  };
};
