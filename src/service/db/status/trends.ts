import { percentilesOf, type PipelineDurations } from '../index/trends.ts';
import { prepared, type Db } from '../sqlite.ts';

// A day of the embedded service per pipeline, for GET /mcapi/trends and the fleet view:
// requests per status from the counts the status database keeps by trigger
// (REQUEST_COUNT, request-counts.ts), and durations from REQUEST's BEGINTIME and ENDTIME.

/** A day's requests of a pipeline in one status. */
export interface StatusWordCount {
  readonly pipelineId: string;
  readonly status: string;
  readonly count: number;
}

/** A day's requests per pipeline and status: a range of REQUEST_COUNT's primary key. */
export function statusDayOutcomes(db: Db, day: string): StatusWordCount[] {
  return prepared(
    db,
    `SELECT PIPELINEID AS pipelineId, STATUS AS status, SUM(N) AS count FROM REQUEST_COUNT
     WHERE DAY = ? GROUP BY PIPELINEID, STATUS HAVING SUM(N) > 0`,
  ).all(day) as StatusWordCount[];
}

/**
 * A day's durations of one pipeline's ended requests (BEGINTIME to ENDTIME, milliseconds),
 * as nearest-rank percentiles. REQUEST has no index by day, but its key, the RequestId,
 * starts with `<pipeline>-<day>_`: the day's requests of a pipeline are one range of it
 * (`_` sorts just before the backquote).
 */
export function statusDayDurations(
  db: Db,
  day: string,
  pipelineId: string,
): PipelineDurations | undefined {
  const prefix = `${pipelineId}-${day}`;
  const [durations] = percentilesOf(
    prepared(
      db,
      `SELECT PIPELINEID, ROUND((julianday(ENDTIME) - julianday(BEGINTIME)) * 86400000)
       FROM REQUEST WHERE REQUESTID >= ? AND REQUESTID < ? AND PIPELINEID = ? AND DAY = ?
         AND BEGINTIME IS NOT NULL AND ENDTIME IS NOT NULL`,
    )
      .raw(true)
      .iterate(`${prefix}_`, `${prefix}\``, pipelineId, day) as Iterable<unknown[]>,
  );
  return durations;
}
