import { setRunmode } from '../../db/system/pipelines.ts';
import { PIPELINE_ID_FIELD, knownPipeline, pipelineIdParam } from '../fields.ts';
import { executeResponse } from '../answers/execute-response.ts';
import type { Field, OperationAnswers } from '../operation.ts';
import type { Params } from '../params.ts';
import { upstreamChange } from './upstream-change.ts';

// resume and suspend: a pipeline's runmode, by its `pipelineid`.

/**
 * The longest reason taken: what an audit entry keeps of any one value
 * (db/system/audit-bounds.ts), the audit entry being where it is kept.
 */
const REASON_MAX = 256;

/**
 * Why the Runmode is changed (the dashboard asks it before suspending a pipeline of a
 * production service): our server's extension, read here only so that a bad value is
 * refused. It is kept where every change's fields are, in the audit entry the route writes,
 * and goes no further: the embedded engine has no use for it, and interfaces.md's resume and
 * suspend have no such field, so it is never passed on to a service behind the gateway.
 */
function checkReason(params: Params): void {
  params.optional('reason', REASON_MAX);
}

const REASON_FIELD: Field = {
  name: 'reason',
  schema: { type: 'string', maxLength: REASON_MAX },
  description:
    'why: kept in the audit log with the call, never passed on to a service behind the gateway',
};

export const runmodeChange = (mode: 'run' | 'stop', summary: string): OperationAnswers => ({
  embedded: (ctx, params) => {
    checkReason(params);
    const pipeline = knownPipeline(ctx, pipelineIdParam(params, 'embedded'));
    if (pipeline.runmode !== mode) {
      setRunmode(ctx.dbs.system, pipeline.id, mode, ctx.clock.now().toISOString());
      ctx.engine.wake();
    }
    return executeResponse();
  },
  // Only interfaces.md's field is sent: the reason stays in our audit log.
  upstream: upstreamChange(mode === 'run' ? 'resume' : 'suspend', (p) => {
    checkReason(p);
    return { pipelineid: pipelineIdParam(p, 'upstream') };
  }),
  openapi: { summary, fields: [PIPELINE_ID_FIELD, REASON_FIELD], root: 'ExecuteResponse' },
});
