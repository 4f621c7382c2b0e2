import { REQUEST_STATUSES } from '../../../kit/wire.ts';
import type { RequestCount } from '../../db/status/request-counts.ts';
import type { Document, Tree } from '../../render/document.ts';
import { getOrInsertComputed } from '../../maps.ts';

// The RequestStats answer (contract section 8): a day's exact counts per pipeline and status
// and per hour and status, of the embedded engine's status database or a gateway's index.

const KNOWN_ORDER = new Map<string, number>(REQUEST_STATUSES.map((s, i) => [s, i]));

/** Contract statuses in their own order, then any other (an open set) by name. */
function byStatus(a: string, b: string): number {
  const ka = KNOWN_ORDER.get(a) ?? REQUEST_STATUSES.length;
  const kb = KNOWN_ORDER.get(b) ?? REQUEST_STATUSES.length;
  return ka - kb || (a < b ? -1 : a > b ? 1 : 0);
}

function countList(totals: ReadonlyMap<string, number>): Tree[] {
  return [...totals.keys()]
    .sort(byStatus)
    .map((status) => ({ Status: status, Value: totals.get(status) ?? 0 }));
}

function add(map: Map<string, number>, status: string, count: number): void {
  map.set(status, (map.get(status) ?? 0) + count);
}

/** The RequestStats answer of a day's counts; `pipelines` are listed even without requests. */
export function requestStatsDocument(
  day: string,
  pipelines: readonly { id: string; name: string }[],
  counts: readonly RequestCount[],
): Document {
  const perPipeline = new Map<string, Map<string, number>>(pipelines.map((p) => [p.id, new Map()]));
  const perHour = Array.from({ length: 24 }, () => new Map<string, number>());
  let total = 0;
  for (const c of counts) {
    total += c.count;
    // A pipeline deleted since its requests ran still counts, under its id alone.
    add(
      getOrInsertComputed(perPipeline, c.pipelineId, () => new Map()),
      c.status,
      c.count,
    );
    const hour = perHour[c.hour];
    if (hour) add(hour, c.status, c.count);
  }
  const names = new Map(pipelines.map((p) => [p.id, p.name]));
  return {
    root: 'RequestStats',
    body: {
      Date: day,
      Total: total,
      Pipeline: [...perPipeline].map(([id, statuses]) => ({
        Id: id,
        Name: names.get(id) ?? '',
        Count: countList(statuses),
      })),
      Hour: perHour.map((statuses, hour) => ({ Hour: hour, Count: countList(statuses) })),
    },
  };
}
