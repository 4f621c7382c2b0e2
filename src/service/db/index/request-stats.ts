import { prepared } from '../sqlite.ts';
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

/**
 * The exact per-pipeline × status and per-hour × status counts of one day of an upstream
 * service, from the gateway's index: the content of contract section 8's `requeststats`
 * for a service behind the gateway. Statuses are an open set and are counted as they are.
 */
export function upstreamRequestStats(
  index: RequestIndex,
  service: string,
  day: string,
  pipelineId?: string,
): RequestStats {
  const db = index.db;
  const filter = pipelineId === undefined ? '' : ' AND pipeline_id = ?';
  const values = pipelineId === undefined ? [service, day] : [service, day, pipelineId];
  const byPipeline = prepared(
    db,
    `SELECT pipeline_id AS id, MAX(name) AS name, status, COUNT(*) AS n FROM indexed_request
     WHERE service = ? AND day = ?${filter} GROUP BY pipeline_id, status`,
  ).all(...values) as { id: string; name: string; status: string; n: number }[];
  const byHour = prepared(
    db,
    `SELECT hour, status, COUNT(*) AS n FROM indexed_request
     WHERE service = ? AND day = ?${filter} GROUP BY hour, status ORDER BY hour, status`,
  ).all(...values) as { hour: number; status: string; n: number }[];
  const pipelines = new Map<string, { id: string; name: string; counts: StatusCount[] }>();
  for (const row of byPipeline) {
    const entry = pipelines.get(row.id) ?? { id: row.id, name: row.name, counts: [] };
    entry.counts.push({ status: row.status, value: row.n });
    pipelines.set(row.id, entry);
  }
  const hours = new Map<number, StatusCount[]>();
  for (const row of byHour) {
    const counts = hours.get(row.hour) ?? [];
    counts.push({ status: row.status, value: row.n });
    hours.set(row.hour, counts);
  }
  // Pipelines in the order of the number in pl_<number>, as everywhere else.
  const number = (id: string) => Number(/(\d+)$/.exec(id)?.[1] ?? Number.MAX_SAFE_INTEGER);
  return {
    date: day,
    total: byPipeline.reduce((sum, r) => sum + r.n, 0),
    pipelines: [...pipelines.values()]
      .sort((a, b) => number(a.id) - number(b.id) || a.id.localeCompare(b.id))
      .map((p) => ({ ...p, counts: p.counts.sort((a, b) => a.status.localeCompare(b.status)) })),
    hours: [...hours.entries()].map(([hour, counts]) => ({ hour, counts })),
  };
}
