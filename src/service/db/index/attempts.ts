import { CONTRACT_WORDS, VENDOR_DEFAULT_WORDS } from '../../../kit/status-semantics.ts';
import { columnsOf, inList, type Sql } from '../sql.ts';
import {
  applyChanges,
  STATE_COLUMNS,
  STATE_INSERT,
  STATE_WIDTH,
  stateRow,
  type AttemptState,
} from './attempt-changes.ts';
import type {
  AttemptRecord,
  FailureEvidence,
  IndexChange,
  KeptLogLine,
  SeenChange,
} from './attempt-record.ts';
import { IDS_PER_LOOKUP, paddedList, pieces, valuesRows } from './batches.ts';

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
/** Reads of one failure's evidence before it is given up as lost. */
const MAX_TRIES = 20;
/** Longest searchable text of a request's failures (`q`), newest first. */
const FAILURE_CHARS = 4000;

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

/** Terminal by our contract's words; a vendor's own are added per service. */
const CONTRACT_FINAL = CONTRACT_WORDS.final;
/** A service not configured (yet) fails as interfaces.md's words say. */
const DEFAULT_FAILED = new Set(VENDOR_DEFAULT_WORDS.failed);
const DEFAULT_FINAL = new Set(CONTRACT_FINAL);

export const bounded = (text: string, chars: number): string =>
  text.length <= chars ? text : `${text.slice(0, chars - 1)}…`;

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

// prettier-ignore
const ATTEMPT_COLUMNS = columnsOf<AttemptRow>([
  'attempt', 'status', 'stage', 'seen_ms', 'ended_ms', 'begin_time', 'end_time', 'changes',
  'failed', 'message', 'log', 'evidence',
]);

export class AttemptLog {
  private readonly words = new Map<string, { failed: Set<string>; final: Set<string> }>();

  constructor(private readonly sql: Sql) {}

  /** A service's words for a failed request, and for one that ended (beside the contract's). */
  configure(service: string, failed: readonly string[], final: readonly string[] = []): void {
    this.words.set(service, {
      failed: new Set(failed),
      final: new Set([...CONTRACT_FINAL, ...failed, ...final]),
    });
  }

  isFailed(service: string, status: string): boolean {
    return (this.words.get(service)?.failed ?? DEFAULT_FAILED).has(status);
  }

  private isFinal(service: string, status: string): boolean {
    return (this.words.get(service)?.final ?? DEFAULT_FINAL).has(status);
  }

  /**
   * Takes in changes the index saw (status changes, and new requests seen failing): the
   * latest attempts of their requests read in a few queries, the attempts they make or
   * change written in statements of many rows, in one transaction.
   */
  async seen(service: string, changes: readonly IndexChange[], nowMs: number): Promise<void> {
    if (changes.length === 0) return;
    const ids = [...new Set(changes.map((c) => c.requestId))];
    await this.sql.transaction(async (tx) => {
      const latest = new Map<string, AttemptState>();
      for (let from = 0; from < ids.length; from += IDS_PER_LOOKUP) {
        const chunk = paddedList(ids.slice(from, from + IDS_PER_LOOKUP));
        const rows = await tx.all<AttemptState>(
          `SELECT ${STATE_COLUMNS} FROM request_attempt
           WHERE service = ? AND ${inList('request_id', chunk)} ORDER BY attempt`,
          [service, ...chunk],
        );
        for (const row of rows) latest.set(row.requestId, row);
      }
      const words = {
        isFailed: (status: string) => this.isFailed(service, status),
        isFinal: (status: string) => this.isFinal(service, status),
      };
      const written = applyChanges(latest, changes, words, nowMs);
      // A new attempt is inserted whole; a known one changes only what a change changes
      // (its evidence's words, log and tries are the evidence reader's).
      for (const piece of pieces(written))
        await tx.run(
          `INSERT INTO request_attempt (${STATE_INSERT}) VALUES ${valuesRows(piece.length, STATE_WIDTH)}
           ON CONFLICT (service, request_id, attempt) DO UPDATE SET status = excluded.status,
             stage = excluded.stage, ended_ms = excluded.ended_ms, changes = excluded.changes,
             failed = excluded.failed, evidence = excluded.evidence`,
          piece.flatMap((state) => stateRow(service, state)),
        );
    });
  }

  /** Failures whose evidence is still to be read, the longest waiting first. */
  due(service: string, limit: number): Promise<{ requestId: string; attempt: number }[]> {
    // A failure has its end (ended_ms); none would come first, as SQLite orders NULL.
    return this.sql.all<{ requestId: string; attempt: number }>(
      `SELECT request_id AS "requestId", attempt AS "attempt" FROM request_attempt
       WHERE service = ? AND evidence = 'due'
       ORDER BY COALESCE(ended_ms, 0), tries, request_id LIMIT ?`,
      [service, limit],
    );
  }

  /** How many failures wait for their evidence (the backlog). */
  async backlog(service: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      `SELECT COUNT(*) AS "n" FROM request_attempt WHERE service = ? AND evidence = 'due'`,
      [service],
    );
    return row?.n ?? 0;
  }

  /** The evidence read of a failure: kept with the attempt, and searchable on the request. */
  async keep(
    service: string,
    requestId: string,
    attempt: number,
    evidence: FailureEvidence,
  ): Promise<void> {
    const message = bounded(evidence.message, MESSAGE_CHARS);
    const log = evidence.log.slice(-LOG_LINES).map((line) => ({
      date: bounded(line.date, 40),
      type: bounded(line.type, 20),
      message: bounded(line.message, LOG_LINE_CHARS),
    }));
    await this.sql.transaction(async (tx) => {
      await tx.run(
        `UPDATE request_attempt SET message = ?, log = ?, begin_time = ?, end_time = ?,
           evidence = 'kept' WHERE service = ? AND request_id = ? AND attempt = ?`,
        [
          message,
          JSON.stringify(log),
          bounded(evidence.beginTime, 40),
          bounded(evidence.endTime, 40),
          service,
          requestId,
          attempt,
        ],
      );
      await noteFileIn(tx, service, requestId, evidence.sensorFile);
      if (message !== '') {
        const row = await tx.get<{ failure: string }>(
          'SELECT failure AS "failure" FROM indexed_request WHERE service = ? AND request_id = ?',
          [service, requestId],
        );
        // Every failure it had stays searchable, the latest first, within a bound.
        const earlier = (row?.failure ?? '').split('\n').filter((m) => m !== '' && m !== message);
        await tx.run(
          'UPDATE indexed_request SET failure = ? WHERE service = ? AND request_id = ?',
          [bounded([message, ...earlier].join('\n'), FAILURE_CHARS), service, requestId],
        );
      }
    });
  }

  /**
   * A read that failed: tried again next round. `lost`: the request had moved on (or is
   * gone) before it was read, so what the service says now is not this failure's.
   */
  async missed(service: string, requestId: string, attempt: number, lost: boolean): Promise<void> {
    await this.sql.run(
      `UPDATE request_attempt SET tries = tries + 1,
         evidence = CASE WHEN ? = 1 OR tries + 1 >= ? THEN 'lost' ELSE evidence END
       WHERE service = ? AND request_id = ? AND attempt = ?`,
      [lost ? 1 : 0, MAX_TRIES, service, requestId, attempt],
    );
  }

  /** A request's file name, as any requestdetail told it (even as none). */
  noteFile(service: string, requestId: string, sensorFile: string | undefined): Promise<void> {
    return noteFileIn(this.sql, service, requestId, sensorFile);
  }

  /**
   * Finished requests whose file no requestdetail told yet, the newest first (an unfinished
   * one's detail is read anyway once no list shows it).
   */
  async fileless(service: string, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    const rows = await this.sql.all<{ id: string }>(
      `SELECT request_id AS "id" FROM indexed_request WHERE service = ? AND file_asked = 0
         AND terminal = 1 ORDER BY first_ms DESC, seq DESC LIMIT ?`,
      [service, limit],
    );
    return rows.map((r) => r.id);
  }

  /** The kept message of a request's latest failure, if it was read. */
  async failureOf(service: string, requestId: string): Promise<string | undefined> {
    const row = await this.sql.get<{ message: string }>(
      `SELECT message AS "message" FROM request_attempt WHERE service = ? AND request_id = ?
         AND failed = 1 AND evidence = 'kept' ORDER BY attempt DESC LIMIT 1`,
      [service, requestId],
    );
    return row?.message;
  }

  /**
   * Every attempt of a request, oldest first. A request that never changed has no rows:
   * its one attempt is told from the index's row.
   */
  async list(service: string, requestId: string): Promise<AttemptRecord[]> {
    const rows = await this.sql.all<AttemptRow>(
      `SELECT ${ATTEMPT_COLUMNS} FROM request_attempt WHERE service = ? AND request_id = ?
       ORDER BY attempt`,
      [service, requestId],
    );
    if (rows.length > 0) return rows.map(attemptOf);
    const only = await this.sql.get<{
      status: string;
      stage: string;
      firstMs: number;
      endTime: string;
      terminal: number;
    }>(
      `SELECT status AS "status", stage AS "stage", first_ms AS "firstMs", end_time AS "endTime",
         terminal AS "terminal" FROM indexed_request WHERE service = ? AND request_id = ?`,
      [service, requestId],
    );
    if (!only) return [];
    return [
      {
        attempt: 1,
        status: only.status,
        stage: only.stage,
        startedMs: only.firstMs,
        endedMs: only.terminal === 1 ? only.firstMs : null,
        beginTime: '',
        endTime: only.endTime,
        changes: [{ status: only.status, stage: only.stage, atMs: only.firstMs }],
        failed: this.isFailed(service, only.status),
        message: '',
        log: [],
        evidence: '',
      },
    ];
  }
}

/** A request's file name, as a requestdetail told it, in a transaction or not. */
async function noteFileIn(
  sql: Sql,
  service: string,
  requestId: string,
  sensorFile: string | undefined,
): Promise<void> {
  if (sensorFile === undefined) return;
  const file = bounded(sensorFile, 1000);
  await sql.run(
    `UPDATE indexed_request SET sensor_file = ?, file_asked = 1
     WHERE service = ? AND request_id = ? AND (sensor_file <> ? OR file_asked = 0)`,
    [file, service, requestId, file],
  );
}
