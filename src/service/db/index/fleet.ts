import { byStatus, type RequestIndex } from './request-index.ts';

// What the fleet view (GET /mcapi/fleet) reads of the gateway's index: a day's requests of
// one upstream counted per status word, exact for what the pollers saw. Read-only queries
// of the index's existing tables; the index itself is kept by poller.ts.

export interface WordCount {
  readonly status: string;
  readonly count: number;
}

/**
 * A day's requests of a service per status word (an open set, counted as the upstream
 * words them). The (service, day, status) index answers it without reading a request row.
 */
export async function indexDayStatusCounts(
  index: RequestIndex,
  service: string,
  day: string,
): Promise<WordCount[]> {
  // Ordered here, not by the database's collation, which PostgreSQL's may make another.
  return byStatus(
    await index.sql.all<WordCount>(
      `SELECT status AS "status", COUNT(*) AS "count" FROM indexed_request
       WHERE service = ? AND day = ? GROUP BY status`,
      [service, day],
    ),
  );
}
