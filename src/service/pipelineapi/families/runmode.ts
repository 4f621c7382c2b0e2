import { setRunmode } from '../../db/system/pipelines.ts';
import { PIPELINE_ID_FIELD, knownPipeline, pipelineIdParam } from '../fields.ts';
import { executeResponse } from '../answers/execute-response.ts';
import type { OperationAnswers } from '../operation.ts';
import { upstreamChange } from './upstream-change.ts';

// resume and suspend: a pipeline's runmode, by its `pipelineid`.

export const runmodeChange = (mode: 'run' | 'stop', summary: string): OperationAnswers => ({
  embedded: (ctx, params) => {
    const pipeline = knownPipeline(ctx, pipelineIdParam(params));
    if (pipeline.runmode !== mode) {
      setRunmode(ctx.dbs.system, pipeline.id, mode, ctx.clock.now().toISOString());
      ctx.engine.wake();
    }
    return executeResponse();
  },
  upstream: upstreamChange(mode === 'run' ? 'resume' : 'suspend', (p) => ({
    pipelineid: pipelineIdParam(p),
  })),
  openapi: { summary, fields: [PIPELINE_ID_FIELD], root: 'ExecuteResponse' },
});
