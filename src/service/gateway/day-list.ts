import type { TreeObject } from '../../kit/index.ts';
import type { ListedRequest } from '../db/index/ingest.ts';
import { elementOf, leafText } from '../../kit/index.ts';
import { readAll } from './paging.ts';
import type { Upstream } from './upstream.ts';
import { normalDate } from './zone.ts';

// A day's requests as an upstream's requestlist gives them, read as it pages and taken in
// the index's one form (poller.ts keeps the index; Part C's requestlist and exec answer a day it does not).

/** Requests of one day the index reads at most: beyond, the day is marked as missing some. */
export const DAY_BOUND = 200_000;

/**
 * A string of its own: a parser's text is often a slice of the chunk it came in, and
 * holding the slice holds the chunk (a whole day's answer, 100,000 records later).
 */
const own = (text: string): string => Buffer.from(text, 'utf8').toString('utf8');

/**
 * The values a day's records share (pipeline ids, names, statuses, stages, begin seconds),
 * kept once each for one read.
 */
export function sharedStrings(): (text: string) => string {
  const kept = new Map<string, string>();
  return (text) => {
    let value = kept.get(text);
    if (value === undefined) {
      value = own(text);
      kept.set(value, value);
    }
    return value;
  };
}

/** A request of a list answer as the index takes it; dates in one form whatever the vendor's. */
export function listedRequest(
  record: Readonly<Record<string, unknown>>,
  shared: (text: string) => string = own,
): ListedRequest {
  const field = (name: string) => {
    const value = record[name];
    return typeof value === 'string' ? value : '';
  };
  return {
    requestId: own(field('RequestId')),
    pipelineId: shared(field('PipelineId')),
    name: shared(field('Name')),
    status: shared(field('Status')),
    stage: shared(field('Stage')),
    beginDate: shared(normalDate(field('BeginDate')).date),
  };
}

/** The day a list answer says it lists, or the day its first request's id names. */
export function listedDay(tree: TreeObject, first: ListedRequest | undefined): string {
  const stated = leafText(elementOf(elementOf(tree.RequestList).Info).Date);
  const fromId = /-(\d{8})_\d{2}-\d+$/.exec(first?.requestId ?? '')?.[1];
  return /^\d{8}$/.test(stated) ? stated : (fromId ?? '');
}

/** Every request of a day (or of a pipeline's day) the upstream gives, read as it pages. */
export async function readDay(
  upstream: Upstream,
  fields: { readonly date?: string | undefined; readonly id?: string | undefined },
): Promise<{ day: string; requests: ListedRequest[]; whole: boolean }> {
  let first = true;
  const shared = sharedStrings();
  const { items, whole, tree } = await readAll(
    upstream,
    'requestlist',
    fields,
    {
      root: 'RequestList',
      record: 'Request',
      map: (record) => {
        // Whether its dates carry a zone: the first of an answer tells for all of them.
        if (first && typeof record.BeginDate === 'string') {
          upstream.learnDatesZone(normalDate(record.BeginDate).zone ?? null);
          first = false;
        }
        return listedRequest(record, shared);
      },
      key: (r) => r.requestId,
      dedupe: true,
    },
    DAY_BOUND,
  );
  return { day: listedDay(tree, items[0]) || fields.date || '', requests: items, whole };
}

/** The pipeline ids of a list answer. */
export function listedPipelines(tree: TreeObject): string[] {
  const raw = elementOf(tree.PipelineList).PipeLine;
  const items = raw === undefined || raw === '' ? [] : Array.isArray(raw) ? raw : [raw];
  return items.map((p) => leafText(elementOf(p).Id)).filter((id) => id !== '');
}
