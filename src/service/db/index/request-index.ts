import { join } from 'node:path';
import { containing, openDatabase, prepared, type Db } from '../sqlite.ts';
import { AttemptLog } from './attempts.ts';
import {
  ingestListed,
  TERMINAL_STATUSES,
  type IngestArgs,
  type Ingested,
  type ListedRequest,
} from './ingest.ts';
import { indexMigrations } from './migrations.ts';

// The gateway's index of its upstreams' requests (contract section 8), filled by one
// poller per service (gateway/poller.ts) and read for requestlist and request statistics.
// Everything here is exact for what the pollers saw; a day whose list was already longer
// than an upstream answers at once when first seen is marked incomplete.

/** A request an upstream reports failing, as the index last saw it. */
export interface FailedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly stage: string;
}

export interface IndexedRequest extends ListedRequest {
  /** Our clock (epoch ms) when the poller first saw the request, or its last change. */
  readonly changedMs: number;
}

/** Which of a day's indexed requests a list shows; every part optional. */
export interface IndexFilter {
  readonly pipelineId?: string | undefined;
  readonly statuses?: readonly string[] | undefined;
  /**
   * A substring (any case) of the request id, its file name or a failure message, as far as
   * requestdetail told them (issue 25).
   */
  readonly text?: string | undefined;
  /** Only requests changed at or after this time (epoch ms, our clock). */
  readonly sinceMs?: number | undefined;
}

export interface IndexState {
  /** The service's own day as its last list said. */
  readonly today: string | null;
  /** When the last successful round began (ISO): the index is as of then. */
  readonly indexedAt: string | null;
  /** Minutes the service's clock is ahead of UTC, as learnt from new requests. */
  readonly offsetMinutes: number | null;
}

/** The file of the index in a data folder; only a server with upstreams creates it. */
export const INDEX_FILE = 'upstream-index.db';

interface Row {
  request_id: string;
  pipeline_id: string;
  name: string;
  status: string;
  stage: string;
  begin_date: string;
  changed_ms: number;
}

/**
 * The conditions of a list's pipeline, statuses and text, with their bound values: shared by
 * a day's list and a range of days (request-range.ts).
 */
export function filterConditions(filter: Pick<IndexFilter, 'pipelineId' | 'statuses' | 'text'>): {
  where: string[];
  values: string[];
} {
  const where: string[] = [];
  const values: string[] = [];
  if (filter.pipelineId !== undefined) {
    where.push('pipeline_id = ?');
    values.push(filter.pipelineId);
  }
  if (filter.statuses !== undefined) {
    // One bound parameter whatever the number of statuses: nothing sent becomes SQL.
    where.push('status IN (SELECT value FROM json_each(?))');
    values.push(JSON.stringify(filter.statuses));
  }
  if (filter.text !== undefined) {
    where.push(
      "(request_id LIKE ? ESCAPE '\\' OR sensor_file LIKE ? ESCAPE '\\' OR failure LIKE ? ESCAPE '\\')",
    );
    const like = containing(filter.text);
    values.push(like, like, like);
  }
  return { where, values };
}

export class RequestIndex {
  /** Each request's attempts and the evidence of its failures (issue 25). */
  readonly attempts: AttemptLog;

  constructor(readonly db: Db) {
    this.attempts = new AttemptLog(db);
  }

  static open(dataDir: string): RequestIndex {
    return new RequestIndex(openDatabase(join(dataDir, INDEX_FILE), indexMigrations));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  state(service: string): IndexState {
    const row = prepared(
      this.db,
      'SELECT today, indexed_at, offset_minutes FROM indexed_service WHERE service = ?',
    ).get(service) as
      | { today: string | null; indexed_at: string | null; offset_minutes: number | null }
      | undefined;
    return {
      today: row?.today ?? null,
      indexedAt: row?.indexed_at ?? null,
      offsetMinutes: row?.offset_minutes ?? null,
    };
  }

  /** Records a successful round: the service's day and the time the round began. */
  markIndexed(service: string, today: string, at: Date, offsetMinutes?: number): void {
    prepared(
      this.db,
      `INSERT INTO indexed_service (service, today, indexed_at, offset_minutes)
       VALUES (?, ?, ?, ?)
       ON CONFLICT (service) DO UPDATE SET today = excluded.today,
         indexed_at = excluded.indexed_at,
         offset_minutes = COALESCE(excluded.offset_minutes, offset_minutes)`,
    ).run(service, today, at.toISOString(), offsetMinutes ?? null);
  }

  /** Whether the pollers watched this day, and whether they saw all of it. */
  day(service: string, day: string): { complete: boolean } | undefined {
    const row = prepared(
      this.db,
      'SELECT complete FROM indexed_day WHERE service = ? AND day = ?',
    ).get(service, day) as { complete: number } | undefined;
    return row && { complete: row.complete === 1 };
  }

  /**
   * Takes in one requestlist answer of a day (newest first), `full` when the upstream
   * may have had older ones out of reach of it (ingest.ts).
   */
  ingest(...args: IngestArgs): Promise<Ingested> {
    return ingestListed(this.db, this.attempts, ...args);
  }

  /** Records that the pollers watch a day; once incomplete, a day stays incomplete. */
  markDay(service: string, day: string, complete: boolean): void {
    prepared(
      this.db,
      `INSERT INTO indexed_day (service, day, complete) VALUES (?, ?, ?)
       ON CONFLICT (service, day) DO UPDATE SET complete = complete AND excluded.complete`,
    ).run(service, day, complete ? 1 : 0);
  }

  /**
   * Requests not known to have ended that no list showed since `beforeMs`, least recently
   * checked first: the ones a poller asks requestdetail about.
   */
  unsettled(service: string, beforeMs: number, limit: number): string[] {
    return prepared(
      this.db,
      `SELECT request_id FROM indexed_request
       WHERE service = ? AND terminal = 0 AND checked_ms < ? ORDER BY checked_ms LIMIT ?`,
    )
      .pluck()
      .all(service, beforeMs, limit) as string[];
  }

  /**
   * What a requestdetail said of a request: its status, stage and EndTime. Returns the
   * request's pipeline when its status is another than the index held (metrics).
   */
  settle(
    service: string,
    requestId: string,
    detail: { status: string; stage: string; endTime: string; sensorFile?: string } | 'gone',
    nowMs: number,
  ): { pipelineId: string } | undefined {
    if (detail === 'gone') {
      // The upstream no longer knows it: stop asking, keep what was last seen.
      prepared(
        this.db,
        'UPDATE indexed_request SET terminal = 1, checked_ms = ? WHERE service = ? AND request_id = ?',
      ).run(nowMs, service, requestId);
      return undefined;
    }
    const before = prepared(
      this.db,
      'SELECT pipeline_id AS pipelineId, status FROM indexed_request WHERE service = ? AND request_id = ?',
    ).get(service, requestId) as { pipelineId: string; status: string } | undefined;
    const terminal = TERMINAL_STATUSES.has(detail.status) || detail.endTime !== '' ? 1 : 0;
    this.attemptSeen(service, requestId, detail, nowMs);
    prepared(
      this.db,
      `UPDATE indexed_request SET
         changed_ms = CASE WHEN status = ? AND stage = ? THEN changed_ms ELSE ? END,
         status = ?, stage = ?, end_time = ?, terminal = ?, checked_ms = ?
       WHERE service = ? AND request_id = ?`,
    ).run(
      detail.status,
      detail.stage,
      nowMs,
      detail.status,
      detail.stage,
      detail.endTime,
      terminal,
      nowMs,
      service,
      requestId,
    );
    return before && before.status !== detail.status
      ? { pipelineId: before.pipelineId }
      : undefined;
  }

  /** What a requestdetail told, for the request's attempts and its file name. */
  private attemptSeen(
    service: string,
    requestId: string,
    detail: { status: string; stage: string; endTime: string; sensorFile?: string },
    nowMs: number,
  ): void {
    const row = prepared(
      this.db,
      `SELECT status, stage, first_ms AS firstMs, terminal FROM indexed_request
       WHERE service = ? AND request_id = ?`,
    ).get(service, requestId) as
      { status: string; stage: string; firstMs: number; terminal: number } | undefined;
    if (!row) return;
    this.attempts.noteFile(service, requestId, detail.sensorFile);
    // A change of status, or an end the index did not know of (a vendor's own final word).
    if (row.status !== detail.status || (detail.endTime !== '' && row.terminal === 0))
      this.attempts.seen(
        service,
        [
          {
            requestId,
            before: { status: row.status, stage: row.stage, firstMs: row.firstMs },
            status: detail.status,
            stage: detail.stage,
            ended: detail.endTime !== '',
          },
        ],
        nowMs,
      );
  }

  /**
   * Requests of a service that changed (or appeared) after `sinceMs` into one of
   * `statuses`: those seen failing since a round began (that round told of its own).
   */
  failedSince(service: string, sinceMs: number, statuses: readonly string[]): FailedRequest[] {
    return prepared(
      this.db,
      `SELECT request_id AS requestId, pipeline_id AS pipelineId, name, status, stage
       FROM indexed_request WHERE service = ? AND changed_ms > ?
         AND status IN (SELECT value FROM json_each(?))`,
    ).all(service, sinceMs, JSON.stringify(statuses)) as FailedRequest[];
  }

  /** How many of these requests are in each status as the index last saw them. */
  statusCounts(
    service: string,
    requestIds: readonly string[],
  ): { status: string; count: number }[] {
    if (requestIds.length === 0) return [];
    return prepared(
      this.db,
      `SELECT status, COUNT(*) AS count FROM indexed_request
       WHERE service = ? AND request_id IN (SELECT value FROM json_each(?))
       GROUP BY status ORDER BY status`,
    ).all(service, JSON.stringify(requestIds)) as { status: string; count: number }[];
  }

  /** A request this server just retried or cancelled: ask about it again. */
  unsettle(service: string, requestId: string): void {
    prepared(
      this.db,
      'UPDATE indexed_request SET terminal = 0, checked_ms = 0 WHERE service = ? AND request_id = ?',
    ).run(service, requestId);
  }

  /** A page of a day's indexed requests, newest first, with the exact count of matches. */
  list(
    service: string,
    day: string,
    filter: IndexFilter,
    index: number,
    pageSize: number,
  ): { rows: IndexedRequest[]; total: number } {
    const matching = filterConditions(filter);
    const where = ['service = ?', 'day = ?', ...matching.where];
    const values: (string | number)[] = [service, day, ...matching.values];
    if (filter.sinceMs !== undefined) {
      where.push('changed_ms >= ?');
      values.push(filter.sinceMs);
    }
    const condition = where.join(' AND ');
    const total = (
      prepared(this.db, `SELECT COUNT(*) AS n FROM indexed_request WHERE ${condition}`).get(
        ...values,
      ) as { n: number }
    ).n;
    const rows = (
      prepared(
        this.db,
        `SELECT request_id, pipeline_id, name, status, stage, begin_date, changed_ms
         FROM indexed_request WHERE ${condition} ORDER BY begin_date DESC, seq DESC LIMIT ? OFFSET ?`,
      ).all(...values, pageSize, index) as Row[]
    ).map((r) => ({
      requestId: r.request_id,
      pipelineId: r.pipeline_id,
      name: r.name,
      status: r.status,
      stage: r.stage,
      beginDate: r.begin_date,
      changedMs: r.changed_ms,
    }));
    return { rows, total };
  }
}
