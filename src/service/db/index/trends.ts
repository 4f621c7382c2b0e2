import type { RequestIndex } from './request-index.ts';

// A day of one upstream per pipeline, for the trends of GET /mcapi/trends and the fleet
// view's marks: requests per status word, and durations (p50, p95) of the requests whose
// end the index learnt. Read-only queries of the index's existing tables.

/** A day's requests of a pipeline in one status word. */
export interface PipelineWordCount {
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly count: number;
}

/**
 * The durations of a day's ended requests of a pipeline, in milliseconds: how many are
 * known, and the nearest-rank 50th and 95th percentiles (the value at rank ⌈p·n/100⌉ of
 * the sorted durations, so always one that was measured).
 */
export interface PipelineDurations {
  readonly pipelineId: string;
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
}

/**
 * The nearest-rank percentiles of durations given as `[pipeline, ms]` rows, per pipeline in
 * id order. Rows are gathered into one array per pipeline and
 * sorted as Float64Arrays: on a day of 100,000 requests this took a third of the time of
 * ranking them with SQLite's window functions (ROW_NUMBER and COUNT OVER a partition).
 * A duration that cannot be read (NULL) or is negative is left out.
 */
export function percentilesOf(rows: Iterable<unknown[]>): PipelineDurations[] {
  const byPipeline = new Map<string, number[]>();
  for (const [pipeline, ms] of rows) {
    if (typeof ms !== 'number' || !(ms >= 0)) continue;
    const id = String(pipeline);
    let list = byPipeline.get(id);
    if (!list) byPipeline.set(id, (list = []));
    list.push(ms);
  }
  return [...byPipeline]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([pipelineId, list]) => {
      const sorted = Float64Array.from(list).sort();
      const rank = (p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1] as number;
      return { pipelineId, count: sorted.length, p50: rank(50), p95: rank(95) };
    });
}

/** A day's requests of a service per pipeline and status word. */
export function indexDayOutcomes(
  index: RequestIndex,
  service: string,
  day: string,
): Promise<PipelineWordCount[]> {
  return index.sql.all<PipelineWordCount>(
    `SELECT pipeline_id AS "pipelineId", MAX(name) AS "name", status AS "status",
       COUNT(*) AS "count"
     FROM indexed_request WHERE service = ? AND day = ? GROUP BY pipeline_id, status`,
    [service, day],
  );
}

/**
 * A wall-clock date as SQLite's julianday() reads it, in ms of the same scale (UTC taken as
 * the wall clock): `YYYY-MM-DD`, then optionally `[ T]hh:mm`, `:ss`, `.fff`, and a zone (`Z`
 * or `±hh:mm`, moved to UTC as julianday moves it). Undefined where julianday gives NULL.
 * Read here rather than in SQL, since PostgreSQL has no julianday and fails a whole query
 * on a date it cannot read.
 */
export function wallClockMs(text: string): number | undefined {
  const match =
    /^\s*(\d{4})-(\d\d)-(\d\d)(?:[ T](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?\s*(Z|[+-]\d\d:\d\d)?\s*$/i.exec(
      text,
    );
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = ''] = match;
  const [month, date, hour, minute, second] = [mo, d, h, mi, s].map(Number) as number[];
  if (
    (month as number) < 1 ||
    (month as number) > 12 ||
    (date as number) < 1 ||
    (date as number) > 31 ||
    (hour as number) > 24 ||
    (minute as number) > 59 ||
    (second as number) > 59
  )
    return undefined;
  let ms =
    Date.UTC(Number(y), (month as number) - 1, date, hour, minute, second) +
    (fraction === '' ? 0 : Number(fraction) * 1000);
  if (zone !== '' && zone.toUpperCase() !== 'Z') {
    const sign = zone.startsWith('-') ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return ms;
}

/**
 * A day's durations per pipeline: from the begin date (the service's clock, as the list
 * gave it) to the EndTime a requestdetail gave (its first 19 characters, `/` read as `-`,
 * the same wall clock; a zone it may carry is the service's own). A request whose end the
 * index never learnt (interfaces.md's list shows none) or whose dates cannot be read is
 * left out, so `count` says how many durations the percentiles stand on.
 */
export async function indexDayDurations(
  index: RequestIndex,
  service: string,
  day: string,
): Promise<PipelineDurations[]> {
  const rows = await index.sql.all<{ pipelineId: string; begin: string; end: string }>(
    `SELECT pipeline_id AS "pipelineId", begin_date AS "begin", end_time AS "end"
     FROM indexed_request WHERE service = ? AND day = ? AND end_time <> ''`,
    [service, day],
  );
  return percentilesOf(
    rows.map((row) => {
      const end = wallClockMs(row.end.trim().slice(0, 19).replaceAll('/', '-'));
      const begin = wallClockMs(row.begin);
      return [
        row.pipelineId,
        end === undefined || begin === undefined ? null : Math.round(end - begin),
      ];
    }),
  );
}
