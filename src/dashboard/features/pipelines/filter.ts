import type { Pipeline } from '../../../kit/index.ts';

/** Whether a pipeline's id, name, description or any Arg name or default holds the text. */
export function matches(pipeline: Pipeline, text: string): boolean {
  const needle = text.trim().toLowerCase();
  if (!needle) return true;
  return [
    pipeline.id,
    pipeline.name,
    pipeline.description,
    ...pipeline.args.flatMap((a) => [a.name, a.value]),
  ].some((v) => v.toLowerCase().includes(needle));
}
