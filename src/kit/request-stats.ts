import type { TreeObject } from './tree.ts';
import { list, number, object, rootOf, text } from './tree-fields.ts';
import type { RequestStatus } from './wire.ts';

// A day's exact counts per pipeline, hour and status (requeststats, contract section 8;
// an extension of our server).

/** One status and how many requests are in it. */
export interface StatusCount {
  /** A contract status, or another word an upstream uses (statuses are an open set). */
  readonly status: RequestStatus | string;
  readonly value: number;
}

export interface PipelineStats {
  readonly id: string;
  readonly name: string;
  /** Non-zero counts only; a pipeline without requests that day has none. */
  readonly counts: readonly StatusCount[];
}

export interface HourStats {
  /** 0 to 23, in the service's zone. */
  readonly hour: number;
  readonly counts: readonly StatusCount[];
}

/** A day's exact counts (requeststats, contract section 8). */
export interface RequestStats {
  readonly date: string;
  readonly total: number;
  readonly pipelines: readonly PipelineStats[];
  readonly hours: readonly HourStats[];
}

function statusCounts(record: TreeObject): StatusCount[] {
  return list(record.Count).map((value) => {
    const c = object(value, 'Count');
    return { status: text(c, 'Status'), value: number(c, 'Value') };
  });
}

export function decodeRequestStats(tree: TreeObject): RequestStats {
  const root = rootOf(tree, 'RequestStats');
  return {
    date: text(root, 'Date'),
    total: number(root, 'Total'),
    pipelines: list(root.Pipeline).map((value) => {
      const p = object(value, 'Pipeline');
      return { id: text(p, 'Id'), name: text(p, 'Name'), counts: statusCounts(p) };
    }),
    hours: list(root.Hour).map((value) => {
      const h = object(value, 'Hour');
      return { hour: number(h, 'Hour'), counts: statusCounts(h) };
    }),
  };
}
