import type { RequestIndex } from './request-index.ts';

export interface StatusCount {
  readonly status: string;
  readonly value: number;
}

/** Contract section 8's RequestStats content, exact for what the index holds. */
export interface RequestStats {
  readonly date: string;
  readonly total: number;
  readonly pipelines: readonly {
    readonly id: string;
    readonly name: string;
    readonly counts: readonly StatusCount[];
  }[];
  readonly hours: readonly { readonly hour: number; readonly counts: readonly StatusCount[] }[];
}

/** One pipeline × hour × status count of a day, as the embedded service keeps them too. */
export interface IndexedCount {
  readonly pipelineId: string;
  readonly name: string;
  readonly hour: number;
  readonly status: string;
  readonly count: number;
}

/**
 * A day's counts per pipeline, hour and status from the gateway's index of an upstream
 * service: what contract section 8's `requeststats` answers for a service behind the
 * gateway. Statuses are an open set and are counted as they are.
 */
export function upstreamRequestCounts(
  index: RequestIndex,
  service: string,
  day: string,
  pipelineId?: string,
): Promise<IndexedCount[]> {
  const filter = pipelineId === undefined ? '' : ' AND pipeline_id = ?';
  const values = pipelineId === undefined ? [service, day] : [service, day, pipelineId];
  return index.sql.all<IndexedCount>(
    `SELECT pipeline_id AS "pipelineId", MAX(name) AS "name", hour AS "hour", status AS "status",
       COUNT(*) AS "count"
     FROM indexed_request WHERE service = ? AND day = ?${filter}
     GROUP BY pipeline_id, hour, status`,
    values,
  );
}

/** The same counts summed per pipeline and per hour (for /metrics and the tests). */
export async function upstreamRequestStats(
  index: RequestIndex,
  service: string,
  day: string,
  pipelineId?: string,
): Promise<RequestStats> {
  const pipelines = new Map<string, { id: string; name: string; counts: Map<string, number> }>();
  const hours = new Map<number, Map<string, number>>();
  let total = 0;
  const add = (to: Map<string, number>, status: string, n: number) =>
    to.set(status, (to.get(status) ?? 0) + n);
  for (const row of await upstreamRequestCounts(index, service, day, pipelineId)) {
    total += row.count;
    const entry = pipelines.get(row.pipelineId) ?? {
      id: row.pipelineId,
      name: row.name,
      counts: new Map<string, number>(),
    };
    add(entry.counts, row.status, row.count);
    pipelines.set(row.pipelineId, entry);
    const hour = hours.get(row.hour) ?? new Map<string, number>();
    add(hour, row.status, row.count);
    hours.set(row.hour, hour);
  }
  const list = (counts: Map<string, number>): StatusCount[] =>
    [...counts]
      .map(([status, value]) => ({ status, value }))
      .sort((a, b) => a.status.localeCompare(b.status));
  // Pipelines in the order of the number in pl_<number>, as everywhere else.
  const number = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return {
    date: day,
    total,
    pipelines: [...pipelines.values()]
      .sort((a, b) => number(a.id) - number(b.id) || a.id.localeCompare(b.id))
      .map((p) => ({ id: p.id, name: p.name, counts: list(p.counts) })),
    hours: [...hours.entries()]
      .sort(([a], [b]) => a - b)
      .map(([hour, counts]) => ({ hour, counts: list(counts) })),
  };
}
