import type { RequestStats, RequestSummary, StatusCount } from '../../../kit/index.ts';

/** pl_2 before pl_10, as the pipelines page lists them. */
const pipelineNumber = (id: string) => Number(id.slice(3));

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
}

/**
 * What the overview shows of a day's requests. Failures are counted from these counts by
 * failuresOf, in the service's words as last told, so none are counted here.
 */
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
      .sort(([a], [b]) => pipelineNumber(a) - pipelineNumber(b))
      .map(([id, entry]) => ({ id, ...entry })),
    hourly,
  };
}

/** What the overview shows of a day, exact, from the service's requeststats. */
export interface DayCounts {
  readonly byPipeline: readonly PipelineDay[];
  readonly hourly: readonly number[];
  readonly total: number;
}

/**
 * The day's counts per pipeline and status and per hour, as the service counted them; the
 * pipelines without a request that day are left out, as the pages of requests never list them.
 */
export function summarizeStats(stats: RequestStats): DayCounts {
  const sum = (counts: readonly StatusCount[]) => counts.reduce((n, c) => n + c.value, 0);
  const hourly = Array.from({ length: 24 }, () => 0);
  for (const h of stats.hours)
    if (h.hour >= 0 && h.hour < 24) hourly[h.hour] = (hourly[h.hour] ?? 0) + sum(h.counts);
  const byPipeline = stats.pipelines
    .map((p) => ({
      id: p.id,
      name: p.name,
      counts: Object.fromEntries(p.counts.map((c) => [c.status, c.value])),
      total: sum(p.counts),
    }))
    .filter((p) => p.total > 0)
    .sort((a, b) => pipelineNumber(a.id) - pipelineNumber(b.id));
  return { byPipeline, hourly, total: stats.total };
}

/**
 * The day's failures in the service's words (Error for ours; Error and Abort for a vendor
 * that fails so), counted from the per-pipeline counts, so that words told after the
 * counts were read count at once.
 */
export function failuresOf(byPipeline: readonly PipelineDay[], failed: readonly string[]): number {
  return byPipeline.reduce(
    (n, p) => n + failed.reduce((m, word) => m + (p.counts[word] ?? 0), 0),
    0,
  );
}
