import { createRequest } from '../../db/status/requests.ts';
import { badParameter } from '../../errors.ts';
import { elementOf, leafText } from '../../../kit/index.ts';
import { readDay } from '../../gateway/day-list.ts';
import type { Upstream } from '../../gateway/upstream.ts';
import { argProblem } from '../../pipelines/arg-rules.ts';
import { executeResponse } from '../answers/execute-response.ts';
import {
  isPlainFileName,
  knownPipeline,
  PIPELINE_ID_FIELD,
  pipelineIdParam,
  type AnsweredBy,
} from '../fields.ts';
import type { OperationModule } from '../operation.ts';
import type { Params } from '../params.ts';

// exec: a new request of a pipeline on an inbox file, with the pipeline's Args by name.

/**
 * `pipelineid`, then `filename`. `find` turns the id into the pipeline between the two (the
 * embedded engine answers an unknown pipeline before a missing file name).
 */
function execParams<P>(params: Params, by: AnsweredBy, find: (pipelineId: string) => P) {
  const pipeline = find(pipelineIdParam(params, by));
  return { pipeline, filename: params.required('filename', 255) };
}

async function requestIds(upstream: Upstream, pipeline: string): Promise<Set<string>> {
  const { requests } = await readDay(upstream, { id: pipeline });
  return new Set(requests.map((r) => r.requestId));
}

export const exec: OperationModule = {
  embedded: (ctx, params) => {
    const { pipeline, filename } = execParams(params, 'embedded', (id) => knownPipeline(ctx, id));
    if (!isPlainFileName(filename)) {
      throw badParameter(
        'filename',
        'must be a plain file name inside the inbox folder (no /, \\, .. or control characters)',
      );
    }
    const args: Record<string, string> = {};
    for (const arg of pipeline.args) {
      const value = params.optional(arg.name, 1024) ?? arg.defaultValue;
      // Checked before the request exists: a bad value never becomes a run that keeps 0 rows.
      const problem = argProblem(arg.rules, value);
      if (problem !== undefined) throw badParameter(arg.name, problem);
      args[arg.name] = value;
    }
    const now = ctx.clock.now();
    const requestId = createRequest(ctx.dbs.status, {
      pipelineId: pipeline.id,
      filename,
      args,
      day: ctx.time.day(now),
      hour: ctx.time.hour(now),
      stamp: ctx.time.stamp(now),
    });
    ctx.engine.wake();
    return executeResponse({ RequestId: requestId });
  },

  upstream: async (upstream, params) => {
    const { pipeline: pipelineId, filename } = execParams(params, 'upstream', (id) => id);
    const fields: Record<string, string> = { pipelineid: pipelineId, filename };
    // Args are passed on as they came; the upstream checks them.
    for (const name of params.names()) {
      if (name !== 'pipelineid' && name !== 'filename') fields[name] = params.required(name);
    }
    const before = await requestIds(upstream, pipelineId);
    const tree = await upstream.call('exec', fields);
    const stated = leafText(elementOf(tree.ExecuteResponse).RequestId);
    await upstream.poller?.nudge();
    if (stated) return executeResponse({ RequestId: stated });
    // interfaces.md shows no RequestId in exec's answer: the new one is the request of
    // this pipeline that the day's list did not have before. Said only when it is one.
    const fresh = [...(await requestIds(upstream, pipelineId))].filter((id) => !before.has(id));
    return fresh.length === 1
      ? executeResponse({ RequestId: fresh[0] as string })
      : executeResponse({
          Message: `Success; service ${upstream.name} did not say which request it started`,
        });
  },

  openapi: {
    summary: 'Run a pipeline on an inbox file (and the pipeline’s Args by name)',
    fields: [
      PIPELINE_ID_FIELD,
      {
        name: 'filename',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        required: true,
        description: 'a plain file name inside the inbox folder',
      },
    ],
    root: 'ExecuteResponse',
  },
  samples: [
    {
      label: 'exec (a suspended pipeline: the request waits)',
      phase: 'change',
      fields: () => ({ pipelineid: 'pl_3', filename: 'orders.csv' }),
    },
    {
      label: '400/1001 missing parameter',
      fails: true,
      fields: () => ({ filename: 'orders.csv' }),
    },
  ],
};
