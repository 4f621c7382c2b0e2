import type { Document, Tree } from '../../render/document.ts';

/** One pipeline of a PipelineList, whichever service holds it. */
export interface ListedPipelineFields {
  readonly id: string;
  readonly name: string;
  readonly runmode: string;
  readonly createdate: string;
  readonly updatedate: string;
  readonly description: string;
  /** Its Args' Items; none: no Args element. */
  readonly args: readonly Tree[];
}

/** The PipelineList answer (contract section 8), of the embedded engine and an upstream alike. */
export function pipelineListDocument(pipelines: readonly ListedPipelineFields[]): Document {
  return {
    root: 'PipelineList',
    body: {
      PipeLine: pipelines.map((p) => ({
        Id: p.id,
        Name: p.name,
        Runmode: p.runmode,
        Createdate: p.createdate,
        Updatedate: p.updatedate,
        Description: p.description,
        ...(p.args.length > 0 ? { Args: { Item: p.args } } : {}),
      })),
    },
  };
}
