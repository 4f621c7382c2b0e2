import { ErrorCode } from '../../../kit/wire.ts';
import type { StageName } from '../../db/system/pipelines.ts';
import { ApiError } from '../../errors.ts';
import { executeResponse } from '../answers/execute-response.ts';
import { upstreamChange } from '../families/upstream-change.ts';
import {
  knownPipeline,
  PIPELINE_ID_FIELD,
  pipelineIdParam,
  switchField,
  type AnsweredBy,
} from '../fields.ts';
import type { OperationModule } from '../operation.ts';
import type { Params } from '../params.ts';

// pipelinecache: clear a pipeline's cached stage outputs.

/** `pipelineid` (`find` looks it up before the stages are read), then the stages to clear. */
function cacheParams<P>(params: Params, by: AnsweredBy, find: (pipelineId: string) => P) {
  const pipeline = find(pipelineIdParam(params, by));
  return {
    pipeline,
    sensor: params.boolean('sensor', false),
    filter: params.boolean('filter', false),
    joint: params.boolean('joint', false),
  };
}

export const pipelinecache: OperationModule = {
  embedded: async (ctx, params) => {
    const { pipeline, sensor, filter, joint } = cacheParams(params, 'embedded', (id) =>
      knownPipeline(ctx, id),
    );
    const stages: StageName[] = [];
    if (sensor) stages.push('Sensor');
    if (filter) stages.push('Filter');
    if (joint) stages.push('Joint');
    if (stages.length === 0) {
      throw new ApiError(
        400,
        ErrorCode.MissingParameter,
        'At least one of sensor, filter or joint must be true.',
      );
    }
    await ctx.engine.clearCache(pipeline.id, stages);
    return executeResponse();
  },
  upstream: upstreamChange('pipelinecache', (p) => {
    const { pipeline, sensor, filter, joint } = cacheParams(p, 'upstream', (id) => id);
    return {
      pipelineid: pipeline,
      sensor: String(sensor),
      filter: String(filter),
      joint: String(joint),
    };
  }),
  openapi: {
    summary: 'Clear a pipeline’s cached stage outputs',
    fields: [PIPELINE_ID_FIELD, switchField('sensor'), switchField('filter'), switchField('joint')],
    root: 'ExecuteResponse',
  },
  samples: [
    {
      label: 'pipelinecache',
      phase: 'change',
      fields: () => ({ pipelineid: 'pl_1', sensor: 'true' }),
    },
  ],
};
