import { listPipelines } from '../../db/system/pipelines.ts';
import { argItem } from '../../gateway/extensions.ts';
import { elementOf, elementsOf, leafText } from '../../../kit/index.ts';
import { pipelineListDocument } from '../answers/pipeline-list.ts';
import type { OperationModule, UpstreamAnswer } from '../operation.ts';

// list: the pipelines, with their Args.

/** The upstream's pipelines; requeststats reads them too. */
export const upstreamList: UpstreamAnswer = async (upstream) => {
  const tree = await (upstream.poller?.sharedCall('list') ?? upstream.call('list', {}));
  return pipelineListDocument(
    elementsOf(elementOf(tree.PipelineList).PipeLine).map((p) => ({
      id: leafText(p.Id),
      name: leafText(p.Name),
      runmode: leafText(p.Runmode),
      createdate: leafText(p.Createdate),
      updatedate: leafText(p.Updatedate),
      description: leafText(p.Description),
      args: elementsOf(elementOf(p.Args).Item).map(argItem),
    })),
  );
};

export const list: OperationModule = {
  embedded: (ctx) =>
    pipelineListDocument(
      listPipelines(ctx.dbs.system).map((p) => ({
        id: p.id,
        name: p.name,
        runmode: p.runmode,
        createdate: ctx.time.pipelineDate(new Date(p.created)),
        updatedate: ctx.time.pipelineDate(new Date(p.updated)),
        description: p.description,
        args: p.args.map((a) => ({
          Name: a.name,
          Value: a.defaultValue,
          ...(a.rules.type !== undefined ? { Type: a.rules.type } : {}),
          ...(a.rules.required !== undefined ? { Required: a.rules.required } : {}),
          ...(a.rules.pattern !== undefined ? { Pattern: a.rules.pattern } : {}),
          ...(a.rules.choices !== undefined ? { Choice: [...a.rules.choices] } : {}),
        })),
      })),
    ),
  upstream: upstreamList,
  openapi: { summary: 'The pipelines', fields: [], root: 'PipelineList' },
  samples: [
    { label: 'list: pl_1 with Args, pl_2 and pl_3 without, pl_7 with rules', phase: 'read' },
  ],
};
