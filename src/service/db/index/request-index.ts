import { join } from 'node:path';
import { PROCESS_HOLDER } from '../leases.ts';
import { inList, type Engine, type Sql } from '../sql.ts';
import { sqliteSql } from '../sqlite-sql.ts';
import { containing, openDatabase } from '../sqlite.ts';
import { AttemptLog } from './attempts.ts';
import { IDS_PER_LOOKUP, paddedList } from './batches.ts';
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
// than an upstream answers at once when first seen is marked incomplete. It lives in its own
// SQLite file, or in the shared PostgreSQL of several gateways (issue 28), written in the
// portable SQL of db/sql.ts.

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
  /** Whether that offset is a first round's estimate, not yet told by a request seen to begin. */
  readonly offsetEstimated: boolean;
}

/** The file of the index in a data folder; only a server with upstreams creates it. */
export const INDEX_FILE = 'upstream-index.db';

/** A row of a list, named as IndexedRequest names it. */
const LIST_COLUMNS = `request_id AS "requestId", pipeline_id AS "pipelineId", name AS "name",
  status AS "status", stage AS "stage", begin_date AS "beginDate", changed_ms AS "changedMs"`;

/** Statuses as the answers order them, whatever the database's collation. */
export const byStatus = <T extends { status: string }>(rows: T[]): T[] =>
  rows.sort((a, b) => (a.status < b.status ? -1 : a.status > b.status ? 1 : 0));

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
    // One bound parameter per status: nothing sent becomes SQL.
    where.push(inList('status', filter.statuses));
    values.push(...filter.statuses);
  }
  if (filter.text !== undefined) {
    // Any case as SQLite's LIKE had it, in both engines (PostgreSQL's LIKE heeds case).
    where.push(
      "(lower(request_id) LIKE lower(?) ESCAPE '\\' OR lower(sensor_file) LIKE lower(?) ESCAPE '\\' OR lower(failure) LIKE lower(?) ESCAPE '\\')",
    );
    const like = containing(filter.text);
    values.push(like, like, like);
  }
  return { where, values };
}

/** Indexes opened in this process: each names its pollers' leases apart (see `holder`). */
let opened = 0;

export class RequestIndex {
  /** Each request's attempts and the evidence of its failures (issue 25). */
  readonly attempts: AttemptLog;

  constructor(
    /** The index's store: its own SQLite file, or the shared PostgreSQL. */
    readonly sql: Sql,
    /**
     * Who its pollers' leases name as holder (gateway/poller-lease.ts): this process and
     * this index, so that two gateways in one process (tests) are two holders too.
     */
    readonly holder = `${PROCESS_HOLDER}#${++opened}`,
    private readonly closeStore: () => void = () => undefined,
  ) {
    this.attempts = new AttemptLog(sql);
  }

  /**
   * The index in its own SQLite file of a data folder. The file is this folder's gateway's
   * alone, so its leases name the folder's gateway, whichever start: one started again
   * after a crash polls at once rather than after the dead start's lease runs out.
   */
  /** In the gateways' shared PostgreSQL when they have one (contract section 11), else a file of its own. */
  static of(store: { readonly engine: Engine; readonly sql: Sql }, dataDir: string): RequestIndex {
    return store.engine === 'postgres' ? new RequestIndex(store.sql) : RequestIndex.open(dataDir);
  }

  static open(dataDir: string): RequestIndex {
    const db = openDatabase(join(dataDir, INDEX_FILE), indexMigrations);
    return new RequestIndex(sqliteSql(db), 'this data folder', () => {
      if (db.open) db.close();
    });
  }

  /** Closes its own file; the shared store closes with the server. */
  close(): void {
    this.closeStore();
  }

  async state(service: string): Promise<IndexState> {
    const row = await this.sql.get<Omit<IndexState, 'offsetEstimated'> & { estimated: number }>(
      `SELECT today AS "today", indexed_at AS "indexedAt", offset_minutes AS "offsetMinutes",
         offset_estimated AS "estimated"
       FROM indexed_service WHERE service = ?`,
      [service],
    );
    return {
      today: row?.today ?? null,
      indexedAt: row?.indexedAt ?? null,
      offsetMinutes: row?.offsetMinutes ?? null,
      offsetEstimated: row?.offsetMinutes != null && Number(row.estimated) === 1,
    };
  }

  /**
   * Records a successful round: the service's day and the time the round began, and the
   * offset it told, if any (`estimated` when a first round guessed it).
   */
  async markIndexed(
    service: string,
    today: string,
    at: Date,
    offset?: { readonly minutes: number; readonly estimated: boolean },
  ): Promise<void> {
    await this.sql.run(
      `INSERT INTO indexed_service (service, today, indexed_at, offset_minutes, offset_estimated)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (service) DO UPDATE SET today = excluded.today,
         indexed_at = excluded.indexed_at,
         offset_minutes = COALESCE(excluded.offset_minutes, indexed_service.offset_minutes),
         offset_estimated = CASE WHEN excluded.offset_minutes IS NULL
           THEN indexed_service.offset_estimated ELSE excluded.offset_estimated END`,
      [service, today, at.toISOString(), offset?.minutes ?? null, offset?.estimated ? 1 : 0],
    );
  }

  /** Whether the pollers watched this day, and whether they saw all of it. */
  async day(service: string, day: string): Promise<{ complete: boolean } | undefined> {
    const row = await this.sql.get<{ complete: number }>(
      'SELECT complete AS "complete" FROM indexed_day WHERE service = ? AND day = ?',
      [service, day],
    );
    return row && { complete: row.complete === 1 };
  }

  /**
   * Takes in one requestlist answer of a day (newest first), `full` when the upstream
   * may have had older ones out of reach of it (ingest.ts).
   */
  ingest(...args: IngestArgs): Promise<Ingested> {
    return ingestListed(this.sql, this.attempts, ...args);
  }

  /** Records that the pollers watch a day; once incomplete, a day stays incomplete. */
  async markDay(service: string, day: string, complete: boolean): Promise<void> {
    await this.sql.run(
      `INSERT INTO indexed_day (service, day, complete) VALUES (?, ?, ?)
       ON CONFLICT (service, day) DO UPDATE SET complete =
         CASE WHEN indexed_day.complete = 1 AND excluded.complete = 1 THEN 1 ELSE 0 END`,
      [service, day, complete ? 1 : 0],
    );
  }

  /**
   * Requests not known to have ended that no list showed since `beforeMs`, least recently
   * checked first: the ones a poller asks requestdetail about.
   */
  async unsettled(service: string, beforeMs: number, limit: number): Promise<string[]> {
    const rows = await this.sql.all<{ id: string }>(
      `SELECT request_id AS "id" FROM indexed_request
       WHERE service = ? AND terminal = 0 AND checked_ms < ? ORDER BY checked_ms LIMIT ?`,
      [service, beforeMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /**
   * What a requestdetail said of a request: its status, stage and EndTime. Returns the
   * request's pipeline when its status is another than the index held (metrics).
   */
  async settle(
    service: string,
    requestId: string,
    detail: { status: string; stage: string; endTime: string; sensorFile?: string } | 'gone',
    nowMs: number,
  ): Promise<{ pipelineId: string } | undefined> {
    if (detail === 'gone') {
      // The upstream no longer knows it: stop asking, keep what was last seen.
      await this.sql.run(
        'UPDATE indexed_request SET terminal = 1, checked_ms = ? WHERE service = ? AND request_id = ?',
        [nowMs, service, requestId],
      );
      return undefined;
    }
    const before = await this.sql.get<{
      pipelineId: string;
      status: string;
      stage: string;
      firstMs: number;
      terminal: number;
    }>(
      `SELECT pipeline_id AS "pipelineId", status AS "status", stage AS "stage",
         first_ms AS "firstMs", terminal AS "terminal"
       FROM indexed_request WHERE service = ? AND request_id = ?`,
      [service, requestId],
    );
    const terminal = TERMINAL_STATUSES.has(detail.status) || detail.endTime !== '' ? 1 : 0;
    if (before) {
      await this.attempts.noteFile(service, requestId, detail.sensorFile);
      // A change of status, or an end the index did not know of (a vendor's own final word).
      if (before.status !== detail.status || (detail.endTime !== '' && before.terminal === 0))
        await this.attempts.seen(
          service,
          [
            {
              requestId,
              before: { status: before.status, stage: before.stage, firstMs: before.firstMs },
              status: detail.status,
              stage: detail.stage,
              ended: detail.endTime !== '',
            },
          ],
          nowMs,
        );
    }
    await this.sql.run(
      `UPDATE indexed_request SET
         changed_ms = CASE WHEN status = ? AND stage = ? THEN changed_ms ELSE ? END,
         status = ?, stage = ?, end_time = ?, terminal = ?, checked_ms = ?
       WHERE service = ? AND request_id = ?`,
      [
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
      ],
    );
    return before && before.status !== detail.status
      ? { pipelineId: before.pipelineId }
      : undefined;
  }

  /**
   * Requests of a service that changed (or appeared) after `sinceMs` into one of
   * `statuses`: those seen failing since a round began (that round told of its own).
   */
  failedSince(
    service: string,
    sinceMs: number,
    statuses: readonly string[],
  ): Promise<FailedRequest[]> {
    return this.sql.all<FailedRequest>(
      `SELECT request_id AS "requestId", pipeline_id AS "pipelineId", name AS "name",
         status AS "status", stage AS "stage"
       FROM indexed_request WHERE service = ? AND changed_ms > ? AND ${inList('status', statuses)}`,
      [service, sinceMs, ...statuses],
    );
  }

  /** How many of these requests are in each status as the index last saw them. */
  async statusCounts(
    service: string,
    requestIds: readonly string[],
  ): Promise<{ status: string; count: number }[]> {
    if (requestIds.length === 0) return [];
    const counts = new Map<string, number>();
    // A bulk job's requests may be a whole day: looked up a statement's worth at a time.
    const unique = [...new Set(requestIds)];
    for (let from = 0; from < unique.length; from += IDS_PER_LOOKUP) {
      const ids = paddedList(unique.slice(from, from + IDS_PER_LOOKUP));
      for (const row of await this.sql.all<{ status: string; count: number }>(
        `SELECT status AS "status", COUNT(*) AS "count" FROM indexed_request
         WHERE service = ? AND ${inList('request_id', ids)} GROUP BY status`,
        [service, ...ids],
      ))
        counts.set(row.status, (counts.get(row.status) ?? 0) + row.count);
    }
    return byStatus([...counts].map(([status, count]) => ({ status, count })));
  }

  /** A request this server just retried or cancelled: ask about it again. */
  /**
   * What the index knows of an ended request, as one stamp (its status, stage, end and when
   * it last changed); undefined while it runs or waits, after a retry or cancel put it back
   * among those asked about, or when the index does not hold it. A detail read under one
   * stamp holds while the stamp does (poller.ts shares such details between browsers).
   */
  async endedStamp(service: string, requestId: string): Promise<string | undefined> {
    const row = await this.sql.get<{ status: string; stage: string; end: string; changed: number }>(
      `SELECT status AS "status", stage AS "stage", end_time AS "end", changed_ms AS "changed"
       FROM indexed_request WHERE service = ? AND request_id = ? AND terminal = 1`,
      [service, requestId],
    );
    return row && JSON.stringify([row.status, row.stage, row.end, Number(row.changed)]);
  }

  async unsettle(service: string, requestId: string): Promise<void> {
    await this.sql.run(
      'UPDATE indexed_request SET terminal = 0, checked_ms = 0 WHERE service = ? AND request_id = ?',
      [service, requestId],
    );
  }

  /** A page of a day's indexed requests, newest first, with the exact count of matches. */
  async list(
    service: string,
    day: string,
    filter: IndexFilter,
    index: number,
    pageSize: number,
  ): Promise<{ rows: IndexedRequest[]; total: number }> {
    const matching = filterConditions(filter);
    const where = ['service = ?', 'day = ?', ...matching.where];
    const values: (string | number)[] = [service, day, ...matching.values];
    if (filter.sinceMs !== undefined) {
      where.push('changed_ms >= ?');
      values.push(filter.sinceMs);
    }
    const condition = where.join(' AND ');
    const counted = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS "n" FROM indexed_request WHERE ${condition}`,
      values,
    );
    const rows = await this.sql.all<IndexedRequest>(
      `SELECT ${LIST_COLUMNS} FROM indexed_request WHERE ${condition}
       ORDER BY begin_date DESC, seq DESC LIMIT ? OFFSET ?`,
      [...values, pageSize, index],
    );
    return { rows, total: counted?.n ?? 0 };
  }
}
