import { join } from 'node:path';
import { containing, openDatabase, prepared, type Db } from '../sqlite.ts';
import { AttemptLog, type IndexChange } from './attempts.ts';
import { indexMigrations } from './migrations.ts';

// The gateway's index of its upstreams' requests (contract section 8), filled by one
// poller per service (gateway/poller.ts) and read for requestlist and request statistics.
// Everything here is exact for what the pollers saw; a day whose list was already longer
// than an upstream answers at once when first seen is marked incomplete.

/** A request as an upstream's requestlist shows it (interfaces.md's fields). */
/** A request an upstream reports failing, as the index last saw it. */
export interface FailedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly stage: string;
}

export interface ListedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly stage: string;
  /** `YYYY-MM-DD hh:mm:ss` in the service's zone. */
  readonly beginDate: string;
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

/**
 * Terminal by our contract's words alone. Any other status (an open set) counts as not
 * ended until a requestdetail shows its EndTime, which settles it for any vendor's words.
 */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['Finish', 'Error', 'Stop']);

/** Rows written per transaction of an ingest, with other calls let through between. */
const INGEST_CHUNK = 5000;

/** Request ids looked up per query of an ingest. */
const KNOWN_CHUNK = 20_000;

const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

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

/** The hour of a begin date, or of the `_hh-` of the request id when the date is odd. */
function hourOf(request: ListedRequest): number {
  const fromDate = /^\d{4}-\d{2}-\d{2}[ T](\d{2})/.exec(request.beginDate)?.[1];
  const fromId = /_(\d{2})-\d+$/.exec(request.requestId)?.[1];
  const hour = Number(fromDate ?? fromId ?? 0);
  return hour >= 0 && hour < 24 ? hour : 0;
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
   * may have had older ones out of reach of it. New requests are numbered oldest first; a
   * known one whose status or stage changed gets `changedMs`. `gap`: the answer was full
   * and its oldest request is new this round, so requests older than it may be missing.
   *
   * A whole day of a vendor that answers it in one piece is 100,000 rows: what is known is
   * read in one query, and the writes go in transactions of INGEST_CHUNK rows with the
   * event loop let through between them, so that no other call waits for all of them.
   */
  async ingest(
    service: string,
    day: string,
    listed: readonly ListedRequest[],
    full: boolean,
    nowMs: number,
  ): Promise<{ added: number; changed: number; gap: boolean; entered: ListedRequest[] }> {
    const known = new Map<string, { status: string; stage: string; first: number }>();
    const ids = listed.map((r) => r.requestId);
    // The known rows of these requests, whatever day the index filed them under.
    for (let i = 0; i < ids.length; i += KNOWN_CHUNK) {
      const rows = prepared(
        this.db,
        `SELECT request_id AS id, status, stage, first_ms AS first FROM indexed_request
         WHERE service = ? AND request_id IN (SELECT value FROM json_each(?))`,
      ).all(service, JSON.stringify(ids.slice(i, i + KNOWN_CHUNK))) as {
        id: string;
        status: string;
        stage: string;
        first: number;
      }[];
      for (const row of rows) known.set(row.id, row);
    }
    // New to this round (whose rounds share one `nowMs`), not only to this answer: a
    // pipeline's list of the same round must not count as reaching further back.
    const oldest = listed.at(-1);
    const firstSeen = oldest === undefined ? undefined : known.get(oldest.requestId)?.first;
    const gap = full && oldest !== undefined && (firstSeen === undefined || firstSeen >= nowMs);
    const counters = prepared(
      this.db,
      'SELECT first_seq, last_seq FROM indexed_service WHERE service = ?',
    ).get(service) as { first_seq: number; last_seq: number } | undefined;
    if (!counters)
      prepared(this.db, 'INSERT INTO indexed_service (service) VALUES (?)').run(service);
    let seq = counters?.last_seq ?? 0;
    let first = counters?.first_seq ?? 1;
    // New requests listed after the oldest known one are older than everything known (a
    // pipeline's list reaching further back): numbered below, newest first. The others
    // are newer: numbered above, oldest first.
    let lastKnown = -1;
    for (let i = listed.length - 1; i >= 0 && lastKnown < 0; i--)
      if (known.has((listed[i] as ListedRequest).requestId)) lastKnown = i;
    const seqOf = new Map<string, number>();
    for (let i = lastKnown + 1; i < listed.length && lastKnown >= 0; i++)
      seqOf.set((listed[i] as ListedRequest).requestId, --first);
    const inserts: unknown[][] = [];
    const updates: unknown[][] = [];
    const seen: string[] = [];
    // What the attempts log takes in: status changes, and new requests already failing.
    const changes: IndexChange[] = [];
    // Requests seen in a status they were not in before (metrics): a new one's Wait is its
    // creation, not a change.
    const entered: ListedRequest[] = [];
    for (let i = listed.length - 1; i >= 0; i--) {
      const r = listed[i] as ListedRequest;
      const before = known.get(r.requestId);
      const terminal = TERMINAL_STATUSES.has(r.status) ? 1 : 0;
      if (!before) {
        // A request listed twice in one answer is taken once.
        known.set(r.requestId, { status: r.status, stage: r.stage, first: nowMs });
        if (this.attempts.isFailed(service, r.status))
          changes.push({ requestId: r.requestId, before: null, status: r.status, stage: r.stage });
        if (r.status !== 'Wait') entered.push(r);
        inserts.push([
          service,
          r.requestId,
          day,
          seqOf.get(r.requestId) ?? ++seq,
          r.pipelineId,
          r.name,
          r.status,
          r.stage,
          r.beginDate,
          hourOf(r),
          terminal,
          nowMs,
          nowMs,
          nowMs,
        ]);
      } else if (before.status !== r.status || before.stage !== r.stage) {
        updates.push([r.status, r.stage, r.name, terminal, nowMs, nowMs, service, r.requestId]);
        if (before.status !== r.status)
          changes.push({
            requestId: r.requestId,
            before: { status: before.status, stage: before.stage, firstMs: before.first },
            status: r.status,
            stage: r.stage,
          });
        if (before.status !== r.status) entered.push(r);
        // Listed twice in one answer (a page boundary moving): one change, not two.
        known.set(r.requestId, { ...before, status: r.status, stage: r.stage });
      } else seen.push(r.requestId);
    }
    const insert = prepared(
      this.db,
      `INSERT INTO indexed_request (service, request_id, day, seq, pipeline_id, name, status,
         stage, begin_date, hour, terminal, first_ms, changed_ms, checked_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const update = prepared(
      this.db,
      `UPDATE indexed_request SET status = ?, stage = ?, name = ?, end_time = '',
         terminal = ?, changed_ms = ?, checked_ms = ? WHERE service = ? AND request_id = ?`,
    );
    const check = prepared(
      this.db,
      `UPDATE indexed_request SET checked_ms = ?
       WHERE service = ? AND request_id IN (SELECT value FROM json_each(?))`,
    );
    // Counters first: a chunk written is then never numbered again by a round that fails.
    prepared(
      this.db,
      'UPDATE indexed_service SET first_seq = ?, last_seq = ? WHERE service = ?',
    ).run(first, seq, service);
    for (let i = 0; i < inserts.length; i += INGEST_CHUNK) {
      this.db.transaction(() => {
        for (const values of inserts.slice(i, i + INGEST_CHUNK)) insert.run(...values);
      })();
      await yieldToEvents();
    }
    for (let i = 0; i < updates.length; i += INGEST_CHUNK) {
      this.db.transaction(() => {
        for (const values of updates.slice(i, i + INGEST_CHUNK)) update.run(...values);
      })();
      await yieldToEvents();
    }
    for (let i = 0; i < seen.length; i += INGEST_CHUNK) {
      check.run(nowMs, service, JSON.stringify(seen.slice(i, i + INGEST_CHUNK)));
      await yieldToEvents();
    }
    for (let i = 0; i < changes.length; i += INGEST_CHUNK) {
      this.attempts.seen(service, changes.slice(i, i + INGEST_CHUNK), nowMs);
      await yieldToEvents();
    }
    return { added: inserts.length, changed: updates.length, gap, entered };
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
