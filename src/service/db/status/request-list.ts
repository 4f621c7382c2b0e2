import type { RequestStage, RequestStatus } from '../../../kit/wire.ts';
import { containing, prepared, quoteIdentifier, type Db } from '../sqlite.ts';
import { dayTableExists, statusTableName } from './requests.ts';

// Reading a day's requests as lists and counts; the writes are in requests.ts.

export interface RequestListRow {
  readonly REQUESTID: string;
  readonly PIPELINEID: string;
  readonly STATUS: RequestStatus;
  readonly STAGE: RequestStage;
  readonly CREATED: string;
}

export interface RequestListPage {
  readonly rows: readonly RequestListRow[];
  readonly total: number;
}

/** Which of a day's requests a list shows (contract section 8); every part optional. */
export interface RequestFilter {
  /** Only these statuses. */
  readonly statuses?: readonly string[] | undefined;
  /** A substring of the request id, the file name or the error message (any case). */
  readonly text?: string | undefined;
  /** Only requests changed at or after this stamp (`YYYY-MM-DD hh:mm:ss`, service zone). */
  readonly since?: string | undefined;
}

/** A page of a day's requests, newest first. */
export function listRequests(
  db: Db,
  day: string,
  pipelineId: string | undefined,
  index: number,
  pageSize: number,
  filter: RequestFilter = {},
): RequestListPage {
  if (!dayTableExists(db, day)) return { rows: [], total: 0 };
  if (filter.statuses !== undefined || filter.text !== undefined || filter.since !== undefined)
    return filteredRequests(db, day, pipelineId, index, pageSize, filter);
  const table = quoteIdentifier(statusTableName(day));
  const columns = 'REQUESTID, PIPELINEID, STATUS, STAGE, CREATED';
  if (pipelineId === undefined) {
    const total = (
      prepared(db, 'SELECT COALESCE(SUM(LAST), 0) AS n FROM REQUEST_SERIAL WHERE DAY = ?').get(
        day,
      ) as { n: number }
    ).n;
    // Status rows are never deleted, so rowids run 1..n in creation order: a page at any
    // depth is a range of rowids, with no OFFSET walking the rows before it.
    const last = (
      prepared(db, `SELECT COALESCE(MAX(rowid), 0) AS n FROM ${table}`).get() as { n: number }
    ).n;
    const rows = prepared(
      db,
      `SELECT ${columns} FROM ${table} WHERE rowid <= ? ORDER BY rowid DESC LIMIT ?`,
    ).all(last - index, pageSize) as RequestListRow[];
    return { rows, total };
  }
  const counter = prepared(
    db,
    'SELECT LAST AS n FROM REQUEST_SERIAL WHERE DAY = ? AND PIPELINEID = ?',
  ).get(day, pipelineId) as { n: number } | undefined;
  const rows = prepared(
    db,
    `SELECT ${columns} FROM ${table} WHERE PIPELINEID = ? ORDER BY rowid DESC LIMIT ? OFFSET ?`,
  ).all(pipelineId, pageSize, index) as RequestListRow[];
  return { rows, total: counter?.n ?? 0 };
}

/**
 * A filtered page: every filter is a bound parameter (statuses as a JSON array, the text
 * as an escaped LIKE pattern), so nothing a client sends becomes SQL. Total counts every
 * match of the day.
 */
function filteredRequests(
  db: Db,
  day: string,
  pipelineId: string | undefined,
  index: number,
  pageSize: number,
  filter: RequestFilter,
): RequestListPage {
  const where = filteredWhere(day, pipelineId, filter);
  const values = filterValues(pipelineId, filter);
  // By status alone, the counts the triggers keep answer Total without reading the day.
  const total =
    filter.text === undefined && filter.since === undefined && filter.statuses !== undefined
      ? (
          prepared(
            db,
            `SELECT COALESCE(SUM(N), 0) AS n FROM REQUEST_COUNT WHERE DAY = @day
             AND (@pipeline IS NULL OR PIPELINEID = @pipeline)
             AND STATUS IN (SELECT value FROM json_each(@statuses))`,
          ).get({
            day,
            pipeline: pipelineId ?? null,
            statuses: JSON.stringify(filter.statuses),
          }) as {
            n: number;
          }
        ).n
      : (prepared(db, `SELECT COUNT(*) AS n ${where}`).get(values) as { n: number }).n;
  const rows = prepared(
    db,
    `SELECT s.REQUESTID, s.PIPELINEID, s.STATUS, s.STAGE, s.CREATED ${where}
     ORDER BY s.rowid DESC LIMIT @limit OFFSET @offset`,
  ).all({ ...values, limit: pageSize, offset: index }) as RequestListRow[];
  return { rows, total };
}

/**
 * The FROM and WHERE of a filtered list, with a condition for each filter given (every
 * value a bound parameter, filterValues): a query without `@x IS NULL OR` lets SQLite use
 * the day's status and pipeline indexes instead of reading the day.
 */
export function filteredWhere(
  day: string,
  pipelineId: string | undefined,
  filter: RequestFilter,
): string {
  const table = quoteIdentifier(statusTableName(day));
  const conditions: string[] = [];
  if (pipelineId !== undefined) conditions.push('s.PIPELINEID = @pipeline');
  // One placeholder per status: with a list SQLite reads the status index even where
  // statistics would make a json_each subquery look cheaper as a scan of the day.
  if (filter.statuses !== undefined)
    conditions.push(`s.STATUS IN (${filter.statuses.map((_, i) => `@s${i}`).join(', ')})`);
  if (filter.since !== undefined) conditions.push('s.LASTUPDATED >= @since');
  if (filter.text !== undefined)
    // Any failure it had, as the gateway's index keeps them (issue 25): a retried request is
    // still found by the words of the failure that made someone retry it.
    conditions.push(`(s.REQUESTID LIKE @like ESCAPE '\\' OR r.FILENAME LIKE @like ESCAPE '\\'
           OR s.ERRORMSG LIKE @like ESCAPE '\\' OR EXISTS (SELECT 1 FROM REQUEST_ATTEMPT a
             WHERE a.REQUESTID = s.REQUESTID AND a.MESSAGE LIKE @like ESCAPE '\\'))`);
  const join = filter.text === undefined ? '' : ' LEFT JOIN REQUEST r ON r.REQUESTID = s.REQUESTID';
  return `FROM ${table} s${join}${conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : ''}`;
}

/** The bound values of filteredWhere: only those its conditions name (SQLite refuses others). */
export function filterValues(
  pipelineId: string | undefined,
  filter: RequestFilter,
): Record<string, string> {
  return {
    ...(pipelineId === undefined ? {} : { pipeline: pipelineId }),
    ...Object.fromEntries((filter.statuses ?? []).map((status, i) => [`s${i}`, status])),
    ...(filter.since === undefined ? {} : { since: filter.since }),
    ...(filter.text === undefined ? {} : { like: containing(filter.text) }),
  };
}

/**
 * Every matching request id of a day, newest first, as a list shows them: what a bulk job
 * works through. Filtered by status alone, it reads the day's status index only.
 */
export function matchingRequestIds(
  db: Db,
  day: string,
  pipelineId: string | undefined,
  filter: RequestFilter,
): string[] {
  if (!dayTableExists(db, day)) return [];
  return prepared(
    db,
    `SELECT s.REQUESTID ${filteredWhere(day, pipelineId, filter)} ORDER BY s.rowid DESC`,
  )
    .pluck()
    .all(filterValues(pipelineId, filter)) as string[];
}

/**
 * How many of these requests of a day are in each status now (one bound parameter
 * whatever their number); requests the day does not hold are left out.
 */
export function statusCountsOf(
  db: Db,
  day: string,
  requestIds: readonly string[],
): { status: string; count: number }[] {
  if (!dayTableExists(db, day) || requestIds.length === 0) return [];
  return prepared(
    db,
    `SELECT STATUS AS status, COUNT(*) AS count FROM ${quoteIdentifier(statusTableName(day))}
     WHERE REQUESTID IN (SELECT value FROM json_each(?)) GROUP BY STATUS ORDER BY STATUS`,
  ).all(JSON.stringify(requestIds)) as { status: string; count: number }[];
}

/** A day's requests counted per pipeline and status, from the counts the triggers keep. */
export function countByPipelineAndStatus(
  db: Db,
  day: string,
): { pipelineId: string; status: string; count: number }[] {
  return (
    prepared(
      db,
      `SELECT PIPELINEID, STATUS, SUM(N) AS n FROM REQUEST_COUNT WHERE DAY = ?
       GROUP BY PIPELINEID, STATUS HAVING SUM(N) > 0`,
    ).all(day) as { PIPELINEID: string; STATUS: string; n: number }[]
  ).map((r) => ({ pipelineId: r.PIPELINEID, status: r.STATUS, count: r.n }));
}
