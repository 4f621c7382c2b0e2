import type { OperationName } from '../../../kit/wire.ts';
import { ApiError } from '../../errors.ts';
import { elementOf, leafText } from '../../../kit/index.ts';
import { refusalsOf } from '../../gateway/status-semantics.ts';
import type { Upstream } from '../../gateway/upstream.ts';
import { executeResponse } from '../answers/execute-response.ts';
import { requestIdParam } from '../fields.ts';
import type { UpstreamAnswer } from '../operation.ts';
import type { Params } from '../params.ts';

/** A change asked of an upstream with these fields, answered as our ExecuteResponse. */
export const upstreamChange =
  (operation: OperationName, fields: (params: Params) => Record<string, string>): UpstreamAnswer =>
  async (upstream, params) => {
    const sent = fields(params);
    const tree = await upstream.call(operation, sent);
    // The index learns of a change made here at once, not a whole interval later.
    await upstream.poller?.nudge(sent.requestid);
    const answer = elementOf(tree.ExecuteResponse);
    // The service's own words on what it did (a retry may say it made a new request), and
    // the request it names, as it wrote them; keys it repeats are cut out.
    const message = upstream.redactor.redact(leafText(answer.Message)).trim();
    const requestId = leafText(answer.RequestId).trim();
    return executeResponse({
      ...(message === '' ? {} : { Message: message }),
      ...(requestId === '' ? {} : { RequestId: upstream.redactor.redact(requestId) }),
      ...(answer.RowCount === undefined
        ? {}
        : { RowCount: Number(leafText(answer.RowCount)) || 0 }),
    });
  };

/**
 * The status a request is in now: the upstream's own word (the index may be a round
 * behind), else the index's when the upstream cannot tell.
 */
async function statusNow(upstream: Upstream, id: string): Promise<string | undefined> {
  try {
    const tree = await upstream.call('requestdetail', { requestid: id });
    const status = leafText(elementOf(tree.RequestDetail).Status);
    if (status) return status;
  } catch {
    // Not knowing the status only means nothing is learnt; the refusal is answered as it came.
  }
  const poller = upstream.poller;
  return (await poller?.index.statusCounts(poller.service, [id]))?.[0]?.status;
}

/**
 * A retry or cancel whose refusal (409: the upstream would not, in the request's state)
 * teaches the gateway that this status cannot be retried or cancelled on that service: the
 * dashboard stops offering it, and the Services page says what was learnt and when.
 */
export const learningRefusals =
  (action: 'retry' | 'cancel', answer: UpstreamAnswer): UpstreamAnswer =>
  async (upstream, params) => {
    try {
      return await answer(upstream, params);
    } catch (error) {
      const refusals = refusalsOf(upstream);
      if (error instanceof ApiError && error.httpStatus === 409 && refusals) {
        const status = await statusNow(upstream, requestIdParam(params, 'upstream'));
        if (status)
          refusals.record({ action, status, message: error.message, at: new Date().toISOString() });
      }
      throw error;
    }
  };
