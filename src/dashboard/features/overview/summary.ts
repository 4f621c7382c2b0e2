import type { RequestSummary } from '../../../kit/index.ts';

/** A pipeline's requests of the day, counted by status. */
export interface PipelineDay {
  readonly id: string;
  readonly name: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly total: number;
}

export interface DaySummary {
  /** In pipeline number order (pl_2 before pl_10), as the pipelines page lists them. */
  readonly byPipeline: readonly PipelineDay[];
  /** Requests begun in each hour of the day, 0 to 23. */
  readonly hourly: readonly number[];
  readonly errors: readonly RequestSummary[];
}

/** What the overview shows of a day's requests. */
export function summarizeDay(requests: readonly RequestSummary[]): DaySummary {
  const byPipeline = new Map<
    string,
    { name: string; counts: Record<string, number>; total: number }
  >();
  const hourly = Array.from({ length: 24 }, () => 0);
  for (const r of requests) {
    const entry = byPipeline.get(r.pipelineId) ?? { name: r.name, counts: {}, total: 0 };
    entry.counts[r.status] = (entry.counts[r.status] ?? 0) + 1;
    entry.total += 1;
    byPipeline.set(r.pipelineId, entry);
    // The hour is at characters 11–12 of BeginDate; an empty one (a request that never began)
    // used to read as Number('') = 0 and count at midnight, so only two digits count.
    const hour = r.beginDate.slice(11, 13);
    if (/^\d{2}$/.test(hour) && Number(hour) < 24) {
      hourly[Number(hour)] = (hourly[Number(hour)] ?? 0) + 1;
    }
  }
  return {
    byPipeline: [...byPipeline.entries()]
      .sort(([a], [b]) => Number(a.slice(3)) - Number(b.slice(3)))
      .map(([id, entry]) => ({ id, ...entry })),
    hourly,
    errors: requests.filter((r) => r.status === 'Error'),
  };
}
