import type { AttemptChange, AttemptLogLine, RequestAttempt } from '../../../kit/attempts.ts';
import { prepared, type Db } from '../sqlite.ts';

// Each attempt of an upstream's request as the gateway's pollers saw it (issue 25): its
// status changes with the time they were seen, and for a failure the service's own words
// and the last application-log lines, read once when the failure was first seen, because
// a vendor rewrites a request's log when it is retried. Rows are made only for requests
// that changed or failed: a day of 100,000 requests that simply finished costs nothing
// here, and its one attempt is told from the index's own row.

/** Longest failure message kept, in characters. */
export const MESSAGE_CHARS = 2000;
/** Application-log lines kept of a failure, the last ones. */
export const LOG_LINES = 20;
/** Longest log line message kept, in characters. */
export const LOG_LINE_CHARS = 500;
/** Status changes kept per attempt (the first and the latest ones). */
const CHANGES_KEPT = 50;
/** Reads of one failure's evidence before it is given up as lost. */
const MAX_TRIES = 20;
/** Longest searchable text of a request's failures (`q`), newest first. */
const FAILURE_CHARS = 4000;

/** One status change of an attempt, at the time (epoch ms, our clock) it was seen. */
export interface SeenChange extends Omit<AttemptChange, 'at'> {
  readonly atMs: number;
}

/** A log line kept as the failure's evidence, as the attempts answer tells it. */
export type KeptLogLine = AttemptLogLine;

/** What a requestdetail read at a failure told of it. */
export interface FailureEvidence {
  readonly message: string;
  readonly log: readonly KeptLogLine[];
  readonly sensorFile: string;
  readonly beginTime: string;
  readonly endTime: string;
}

/**
 * One attempt as kept (gateway or embedded: the same shape, see db/status/attempts.ts): the
 * attempts answer's (the kit's RequestAttempt) with our clock's epoch ms for its instants,
 * and without who retried or cancelled it, which the audit log tells.
 */
export interface AttemptRecord extends Omit<
  RequestAttempt,
  'startedAt' | 'endedAt' | 'changes' | 'retriedBy' | 'cancelledBy'
> {
  /**
   * When it was first seen (the gateway) or first changed (embedded), epoch ms; null when
   * not known (a request from before attempts were kept).
   */
  readonly startedMs: number | null;
  /** When it was seen ended, epoch ms; null while it runs. */
  readonly endedMs: number | null;
  readonly changes: readonly SeenChange[];
}

interface AttemptRow {
  attempt: number;
  status: string;
  stage: string;
  seen_ms: number;
  ended_ms: number | null;
  begin_time: string;
  end_time: string;
  changes: string;
  failed: number;
  message: string;
  log: string;
  evidence: AttemptRecord['evidence'];
}

/** A change of a request the index just took in: `before` is null for a new one. */
export interface IndexChange {
  readonly requestId: string;
  readonly before: {
    readonly status: string;
    readonly stage: string;
    readonly firstMs: number;
  } | null;
  readonly status: string;
  readonly stage: string;
  /** A requestdetail showed its EndTime. */
  readonly ended?: boolean;
}

/** Terminal by our contract's words; a vendor's own are added per service. */
const CONTRACT_FINAL = ['Finish', 'Error', 'Stop'];

export const bounded = (text: string, chars: number): string =>
  text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;

function keptChanges(changes: SeenChange[]): SeenChange[] {
  if (changes.length <= CHANGES_KEPT) return changes;
  // The first (how it began) and the latest ones.
  return [changes[0] as SeenChange, ...changes.slice(changes.length - CHANGES_KEPT + 1)];
}

export function attemptOf(row: AttemptRow): AttemptRecord {
  return {
    attempt: row.attempt,
    status: row.status,
    stage: row.stage,
    startedMs: row.seen_ms,
    endedMs: row.ended_ms,
    beginTime: row.begin_time,
    endTime: row.end_time,
    changes: JSON.parse(row.changes) as SeenChange[],
    failed: row.failed === 1,
    message: row.message,
    log: JSON.parse(row.log) as KeptLogLine[],
    evidence: row.evidence,
  };
}

export class AttemptLog {
  private readonly words = new Map<string, { failed: Set<string>; final: Set<string> }>();

  constructor(private readonly db: Db) {}

  /** A service's words for a failed request, and for one that ended (beside the contract's). */
  configure(service: string, failed: readonly string[], final: readonly string[] = []): void {
    this.words.set(service, {
      failed: new Set(failed),
      final: new Set([...CONTRACT_FINAL, ...failed, ...final]),
    });
  }

  isFailed(service: string, status: string): boolean {
    return (this.words.get(service)?.failed ?? new Set(['Error'])).has(status);
  }

  private isFinal(service: string, status: string): boolean {
    return (this.words.get(service)?.final ?? new Set(CONTRACT_FINAL)).has(status);
  }

  private latest(service: string, requestId: string): AttemptRow | undefined {
    return prepared(
      this.db,
      `SELECT * FROM request_attempt WHERE service = ? AND request_id = ?
       ORDER BY attempt DESC LIMIT 1`,
    ).get(service, requestId) as AttemptRow | undefined;
  }

  /** Takes in changes the index saw (status changes, and new requests seen failing). */
  seen(service: string, changes: readonly IndexChange[], nowMs: number): void {
    if (changes.length === 0) return;
    this.db.transaction(() => {
      for (const change of changes) this.seenOne(service, change, nowMs);
    })();
  }

  private seenOne(service: string, change: IndexChange, nowMs: number): void {
    const { requestId, status, stage } = change;
    const failed = this.isFailed(service, status);
    const ended = failed || change.ended === true || this.isFinal(service, status);
    const insert = prepared(
      this.db,
      `INSERT INTO request_attempt (service, request_id, attempt, status, stage, seen_ms,
         ended_ms, changes, failed, evidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    let latest = this.latest(service, requestId);
    if (!latest) {
      if (change.before === null) {
        // A new request: only a failure needs a row now (its evidence is due).
        if (!failed) return;
        insert.run(
          service,
          requestId,
          1,
          status,
          stage,
          nowMs,
          nowMs,
          JSON.stringify([{ status, stage, atMs: nowMs }]),
          1,
          'due',
        );
        return;
      }
      // Its first change: the first attempt as the index first saw it.
      const { before } = change;
      const beforeEnded = this.isFinal(service, before.status);
      insert.run(
        service,
        requestId,
        1,
        before.status,
        before.stage,
        before.firstMs,
        beforeEnded ? before.firstMs : null,
        JSON.stringify([{ status: before.status, stage: before.stage, atMs: before.firstMs }]),
        this.isFailed(service, before.status) ? 1 : 0,
        // A failure seen before and never read: read what is left of it now.
        this.isFailed(service, before.status) ? 'due' : '',
      );
      latest = this.latest(service, requestId) as AttemptRow;
    }
    if (latest.status === status) {
      // The same status: a stage moved, or a detail showed its end.
      prepared(
        this.db,
        `UPDATE request_attempt SET stage = ?, ended_ms = COALESCE(ended_ms, ?)
         WHERE service = ? AND request_id = ? AND attempt = ?`,
      ).run(stage, ended ? nowMs : null, service, requestId, latest.attempt);
      return;
    }
    const seenChange: SeenChange = { status, stage, atMs: nowMs };
    if (latest.ended_ms !== null) {
      // It had ended and shows another status: retried (here or at the service itself).
      insert.run(
        service,
        requestId,
        latest.attempt + 1,
        status,
        stage,
        nowMs,
        ended ? nowMs : null,
        JSON.stringify([seenChange]),
        failed ? 1 : 0,
        failed ? 'due' : '',
      );
      return;
    }
    const changes = keptChanges([...(JSON.parse(latest.changes) as SeenChange[]), seenChange]);
    prepared(
      this.db,
      `UPDATE request_attempt SET status = ?, stage = ?, changes = ?,
         ended_ms = ?, failed = ?, evidence = ?
       WHERE service = ? AND request_id = ? AND attempt = ?`,
    ).run(
      status,
      stage,
      JSON.stringify(changes),
      ended ? nowMs : null,
      failed ? 1 : latest.failed,
      failed && latest.evidence !== 'kept' ? 'due' : latest.evidence,
      service,
      requestId,
      latest.attempt,
    );
  }

  /** Failures whose evidence is still to be read, the longest waiting first. */
  due(service: string, limit: number): { requestId: string; attempt: number }[] {
    return prepared(
      this.db,
      `SELECT request_id AS requestId, attempt FROM request_attempt
       WHERE service = ? AND evidence = 'due' ORDER BY ended_ms, tries, request_id LIMIT ?`,
    ).all(service, limit) as { requestId: string; attempt: number }[];
  }

  /** How many failures wait for their evidence (the backlog). */
  backlog(service: string): number {
    return (
      prepared(
        this.db,
        "SELECT COUNT(*) AS n FROM request_attempt WHERE service = ? AND evidence = 'due'",
      ).get(service) as { n: number }
    ).n;
  }

  /** The evidence read of a failure: kept with the attempt, and searchable on the request. */
  keep(service: string, requestId: string, attempt: number, evidence: FailureEvidence): void {
    const message = bounded(evidence.message, MESSAGE_CHARS);
    const log = evidence.log.slice(-LOG_LINES).map((line) => ({
      date: bounded(line.date, 40),
      type: bounded(line.type, 20),
      message: bounded(line.message, LOG_LINE_CHARS),
    }));
    this.db.transaction(() => {
      prepared(
        this.db,
        `UPDATE request_attempt SET message = ?, log = ?, begin_time = ?, end_time = ?,
           evidence = 'kept' WHERE service = ? AND request_id = ? AND attempt = ?`,
      ).run(
        message,
        JSON.stringify(log),
        bounded(evidence.beginTime, 40),
        bounded(evidence.endTime, 40),
        service,
        requestId,
        attempt,
      );
      this.noteFile(service, requestId, evidence.sensorFile);
      if (message !== '') {
        const row = prepared(
          this.db,
          'SELECT failure FROM indexed_request WHERE service = ? AND request_id = ?',
        ).get(service, requestId) as { failure: string } | undefined;
        // Every failure it had stays searchable, the latest first, within a bound.
        const earlier = (row?.failure ?? '').split('\n').filter((m) => m !== '' && m !== message);
        prepared(
          this.db,
          'UPDATE indexed_request SET failure = ? WHERE service = ? AND request_id = ?',
        ).run(bounded([message, ...earlier].join('\n'), FAILURE_CHARS), service, requestId);
      }
    })();
  }

  /**
   * A read that failed: tried again next round. `lost`: the request had moved on (or is
   * gone) before it was read, so what the service says now is not this failure's.
   */
  missed(service: string, requestId: string, attempt: number, lost: boolean): void {
    prepared(
      this.db,
      `UPDATE request_attempt SET tries = tries + 1,
         evidence = CASE WHEN ? OR tries + 1 >= ? THEN 'lost' ELSE evidence END
       WHERE service = ? AND request_id = ? AND attempt = ?`,
    ).run(lost ? 1 : 0, MAX_TRIES, service, requestId, attempt);
  }

  /** A request's file name, as any requestdetail told it (even as none). */
  noteFile(service: string, requestId: string, sensorFile: string | undefined): void {
    if (sensorFile === undefined) return;
    const file = bounded(sensorFile, 1000);
    prepared(
      this.db,
      `UPDATE indexed_request SET sensor_file = ?, file_asked = 1
       WHERE service = ? AND request_id = ? AND (sensor_file <> ? OR file_asked = 0)`,
    ).run(file, service, requestId, file);
  }

  /**
   * Finished requests whose file no requestdetail told yet, the newest first (an unfinished
   * one's detail is read anyway once no list shows it).
   */
  fileless(service: string, limit: number): string[] {
    if (limit <= 0) return [];
    return prepared(
      this.db,
      `SELECT request_id FROM indexed_request WHERE service = ? AND file_asked = 0
         AND terminal = 1 ORDER BY first_ms DESC, seq DESC LIMIT ?`,
    )
      .pluck()
      .all(service, limit) as string[];
  }

  /** The kept message of a request's latest failure, if it was read. */
  failureOf(service: string, requestId: string): string | undefined {
    const row = prepared(
      this.db,
      `SELECT message FROM request_attempt WHERE service = ? AND request_id = ?
         AND failed = 1 AND evidence = 'kept' ORDER BY attempt DESC LIMIT 1`,
    ).get(service, requestId) as { message: string } | undefined;
    return row?.message;
  }

  /**
   * Every attempt of a request, oldest first. A request that never changed has no rows:
   * its one attempt is told from the index's row.
   */
  list(service: string, requestId: string): AttemptRecord[] {
    const rows = prepared(
      this.db,
      'SELECT * FROM request_attempt WHERE service = ? AND request_id = ? ORDER BY attempt',
    ).all(service, requestId) as AttemptRow[];
    if (rows.length > 0) return rows.map(attemptOf);
    const only = prepared(
      this.db,
      `SELECT status, stage, first_ms, end_time, terminal FROM indexed_request
       WHERE service = ? AND request_id = ?`,
    ).get(service, requestId) as
      | { status: string; stage: string; first_ms: number; end_time: string; terminal: number }
      | undefined;
    if (!only) return [];
    return [
      {
        attempt: 1,
        status: only.status,
        stage: only.stage,
        startedMs: only.first_ms,
        endedMs: only.terminal === 1 ? only.first_ms : null,
        beginTime: '',
        endTime: only.end_time,
        changes: [{ status: only.status, stage: only.stage, atMs: only.first_ms }],
        failed: this.isFailed(service, only.status),
        message: '',
        log: [],
        evidence: '',
      },
    ];
  }
}
