import type { RangeRequest } from '../../../kit/index.ts';
import { byStatus, filterConditions, type RequestIndex } from './request-index.ts';

// Requests over a range of days (issue 25): a page, newest first, and exact counts per day
// and per status, from the gateway's index. The embedded service answers the same from its
// status database (db/status/request-range.ts).

/** Days a range may span at most. */
export const RANGE_MAX_DAYS = 31;

/** Which requests of a range; every part optional. */
export interface RangeFilter {
  readonly pipelineId?: string | undefined;
  readonly statuses?: readonly string[] | undefined;
  /** A substring of the request id, its file name or a failure message (any case). */
  readonly text?: string | undefined;
}

/** A request of a range, as a list shows it, with its day: the answer's type, the kit's. */
export type { RangeRequest };

/**
 * A day of a range: how many of its requests match, and whether that count is exact
 * (`complete`), short (`missed`: the index could not list all of it) or unknown
 * (`unwatched`: before the index began; no requests of it are counted).
 */
export interface RangeDay {
  readonly day: string;
  readonly count: number;
  readonly state: 'complete' | 'missed' | 'unwatched';
}

export interface RangePage {
  readonly total: number;
  /** Every day's count is exact. */
  readonly exact: boolean;
  readonly days: readonly RangeDay[];
  readonly statuses: readonly { readonly status: string; readonly count: number }[];
  readonly rows: readonly RangeRequest[];
}

/**
 * The days from `from` to `to` (yyyymmdd, inclusive), oldest first; undefined when either
 * is no calendar day, `to` is before `from`, or they span more than RANGE_MAX_DAYS.
 */
export function daysOf(from: string, to: string): string[] | undefined {
  const parse = (day: string) => {
    if (!/^\d{8}$/.test(day)) return undefined;
    const ms = Date.UTC(Number(day.slice(0, 4)), Number(day.slice(4, 6)) - 1, Number(day.slice(6)));
    // 20260231 is not a day, though Date.UTC takes it as 3 March.
    return new Date(ms).toISOString().slice(0, 10).replaceAll('-', '') === day ? ms : undefined;
  };
  const start = parse(from);
  const end = parse(to);
  if (start === undefined || end === undefined || end < start) return undefined;
  const count = Math.round((end - start) / 86_400_000) + 1;
  if (count > RANGE_MAX_DAYS) return undefined;
  return Array.from({ length: count }, (_, i) =>
    new Date(start + i * 86_400_000).toISOString().slice(0, 10).replaceAll('-', ''),
  );
}

/** A page of a service's indexed requests over `days` (oldest first), with exact counts. */
export async function indexRange(
  index: RequestIndex,
  service: string,
  days: readonly string[],
  filter: RangeFilter,
  offset: number,
  pageSize: number,
): Promise<RangePage> {
  const from = days[0] ?? '';
  const to = days.at(-1) ?? '';
  const matching = filterConditions(filter);
  const where = ['service = ?', 'day BETWEEN ? AND ?', ...matching.where];
  const values: (string | number)[] = [service, from, to, ...matching.values];
  const condition = where.join(' AND ');
  const { sql } = index;
  const perDay = new Map(
    (
      await sql.all<{ day: string; n: number }>(
        `SELECT day AS "day", COUNT(*) AS "n" FROM indexed_request WHERE ${condition} GROUP BY day`,
        values,
      )
    ).map((r) => [r.day, r.n]),
  );
  const statuses = byStatus(
    await sql.all<{ status: string; count: number }>(
      `SELECT status AS "status", COUNT(*) AS "count" FROM indexed_request WHERE ${condition}
       GROUP BY status`,
      values,
    ),
  );
  const watched = new Map(
    (
      await sql.all<{ day: string; complete: number }>(
        `SELECT day AS "day", complete AS "complete" FROM indexed_day
         WHERE service = ? AND day BETWEEN ? AND ?`,
        [service, from, to],
      )
    ).map((r) => [r.day, r.complete === 1]),
  );
  const rangeDays: RangeDay[] = days.map((day) => {
    const complete = watched.get(day);
    return {
      day,
      count: perDay.get(day) ?? 0,
      state: complete === undefined ? 'unwatched' : complete ? 'complete' : 'missed',
    };
  });
  // Named as the answer names them, in its order: each row is a RangeRequest as it stands.
  const rows = await sql.all<RangeRequest>(
    `SELECT request_id AS "requestId", pipeline_id AS "pipelineId", status AS "status",
       stage AS "stage", begin_date AS "beginDate", day AS "day" FROM indexed_request
     WHERE ${condition} ORDER BY day DESC, begin_date DESC, seq DESC LIMIT ? OFFSET ?`,
    [...values, pageSize, offset],
  );
  return {
    total: rangeDays.reduce((sum, d) => sum + d.count, 0),
    exact: rangeDays.every((d) => d.state === 'complete'),
    days: rangeDays,
    statuses,
    rows,
  };
}
