import type { RangeDay, RangeFilter, RangePage, RangeRequest } from '../index/request-range.ts';
import { prepared, type Db } from '../sqlite.ts';
import { filteredWhere, filterValues } from './request-list.ts';
import { dayTableExists } from './requests.ts';

// Requests over a range of days of the embedded service (issue 25), as the gateway's index
// answers them (db/index/request-range.ts): exact, since the status database holds every
// request of every day.

interface Row {
  REQUESTID: string;
  PIPELINEID: string;
  STATUS: string;
  STAGE: string;
  CREATED: string;
  DAY: string;
}

/** A page of the requests of `days` (oldest first; each checked yyyymmdd), newest first. */
export function statusRange(
  db: Db,
  days: readonly string[],
  filter: RangeFilter,
  offset: number,
  pageSize: number,
): RangePage {
  const held = days.filter((day) => /^\d{8}$/.test(day) && dayTableExists(db, day));
  const dayFilter = { statuses: filter.statuses, text: filter.text };
  const values = filterValues(filter.pipelineId, dayFilter);
  const counts = new Map<string, number>();
  const statuses = new Map<string, number>();
  for (const day of held) {
    const where = filteredWhere(day, filter.pipelineId, dayFilter);
    for (const r of prepared(
      db,
      `SELECT s.STATUS AS status, COUNT(*) AS n ${where} GROUP BY s.STATUS`,
    ).all(values) as { status: string; n: number }[]) {
      counts.set(day, (counts.get(day) ?? 0) + r.n);
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + r.n);
    }
  }
  const rangeDays: RangeDay[] = days.map((day) => ({
    day,
    count: counts.get(day) ?? 0,
    state: 'complete',
  }));
  // Newest day first; within a day, newest first (status rows are numbered as created).
  // Each day's name is a checked yyyymmdd, never text a client sent as such.
  const rows =
    held.length === 0
      ? []
      : (
          prepared(
            db,
            `${held
              .map(
                (day) =>
                  `SELECT s.REQUESTID, s.PIPELINEID, s.STATUS, s.STAGE, s.CREATED, '${day}' AS DAY,
                     s.rowid AS RID ${filteredWhere(day, filter.pipelineId, dayFilter)}`,
              )
              .join(' UNION ALL ')} ORDER BY DAY DESC, RID DESC LIMIT @limit OFFSET @offset`,
          ).all({ ...values, limit: pageSize, offset }) as Row[]
        ).map((r): RangeRequest => ({
          requestId: r.REQUESTID,
          pipelineId: r.PIPELINEID,
          status: r.STATUS,
          stage: r.STAGE,
          beginDate: r.CREATED,
          day: r.DAY,
        }));
  return {
    total: rangeDays.reduce((sum, d) => sum + d.count, 0),
    exact: true,
    days: rangeDays,
    statuses: [...statuses]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([status, count]) => ({ status, count })),
    rows,
  };
}
