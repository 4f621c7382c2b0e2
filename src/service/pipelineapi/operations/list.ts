import { listPipelines } from '../../db/system/pipelines.ts';
import { argItem, element, elements, text } from '../../gateway/extensions.ts';
import { pipelineListDocument } from '../answers/pipeline-list.ts';
import type { OperationModule, UpstreamAnswer } from '../operation.ts';

// list: the pipelines, with their Args.

/** The upstream's pipelines; requeststats reads them too. */
export const upstreamList: UpstreamAnswer = async (upstream) => {
  const tree = await (upstream.poller?.sharedCall('list') ?? upstream.call('list', {}));
  return pipelineListDocument(
    elements(element(tree.PipelineList).PipeLine).map((p) => ({
      id: text(p.Id),
      name: text(p.Name),
      runmode: text(p.Runmode),
      createdate: text(p.Createdate),
      updatedate: text(p.Updatedate),
      description: text(p.Description),
      args: elements(element(p.Args).Item).map(argItem),
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
};
