import { attemptOf, bounded, LOG_LINE_CHARS, LOG_LINES, MESSAGE_CHARS } from '../index/attempts.ts';
import type { AttemptRecord, KeptLogLine, SeenChange } from '../index/attempt-record.ts';
import { prepared, type Db } from '../sqlite.ts';
import { getRequest } from './requests.ts';

// Each attempt of a request of the embedded engine (issue 25), written by the engine's
// recorder in the same transaction as the status it tells of: its status changes, and for
// a failure its message and last application-log lines. The logs themselves are never
// rewritten here, but a list of attempts reads them as an operator thinks of them, and
// the same answer as a gateway's (db/index/attempts.ts) serves both.

const ENDED = new Set(['Finish', 'Error', 'Stop']);
const CHANGES_KEPT = 50;

interface AttemptRow {
  ATTEMPT: number;
  STATUS: string;
  STAGE: string;
  STARTEDMS: number;
  ENDEDMS: number | null;
  BEGINTIME: string;
  ENDTIME: string;
  CHANGES: string;
  FAILED: number;
  MESSAGE: string;
  LOGLINES: string;
}

/** A status the recorder writes, with our clock (epoch ms) and the service's stamp. */
export interface AttemptChange {
  readonly status: string;
  readonly stage: string;
  readonly atMs: number;
  readonly stamp: string;
  readonly errorMsg?: string | null | undefined;
}

function latestAttempt(db: Db, requestId: string): AttemptRow | undefined {
  return prepared(
    db,
    'SELECT * FROM REQUEST_ATTEMPT WHERE REQUESTID = ? ORDER BY ATTEMPT DESC LIMIT 1',
  ).get(requestId) as AttemptRow | undefined;
}

/** The last application-log lines of a request, as a failure's evidence. */
function lastAppLines(db: Db, requestId: string): KeptLogLine[] {
  return (
    prepared(
      db,
      `SELECT DATE, TYPE, MESSAGE FROM APP_LOG WHERE REQUESTID = ? ORDER BY IDX DESC LIMIT ?`,
    ).all(requestId, LOG_LINES) as { DATE: string; TYPE: string; MESSAGE: string }[]
  )
    .reverse()
    .map((r) => ({ date: r.DATE, type: r.TYPE, message: bounded(r.MESSAGE, LOG_LINE_CHARS) }));
}

/**
 * Records a status the recorder writes (inside its transaction): a new attempt when the
 * request had ended and starts again (a retry), else one more change of the current one.
 */
export function recordAttemptChange(db: Db, requestId: string, change: AttemptChange): void {
  const { status, stage, atMs, stamp } = change;
  const ended = ENDED.has(status);
  const failed = status === 'Error';
  const seen: SeenChange = { status, stage, atMs };
  const latest = latestAttempt(db, requestId);
  if (!latest || (latest.ENDEDMS !== null && !ended)) {
    prepared(
      db,
      `INSERT INTO REQUEST_ATTEMPT (REQUESTID, ATTEMPT, STATUS, STAGE, STARTEDMS, ENDEDMS,
         BEGINTIME, ENDTIME, CHANGES, FAILED, MESSAGE, LOGLINES)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      requestId,
      (latest?.ATTEMPT ?? 0) + 1,
      status,
      stage,
      atMs,
      ended ? atMs : null,
      status === 'Start' ? stamp : '',
      ended ? stamp : '',
      JSON.stringify([seen]),
      failed ? 1 : 0,
      failed ? bounded(change.errorMsg ?? '', MESSAGE_CHARS) : '',
      JSON.stringify(failed ? lastAppLines(db, requestId) : []),
    );
    return;
  }
  if (latest.STATUS === status) {
    // A run moves through its stages in Process: one status, its stage kept up to date.
    if (latest.STAGE !== stage)
      prepared(db, 'UPDATE REQUEST_ATTEMPT SET STAGE = ? WHERE REQUESTID = ? AND ATTEMPT = ?').run(
        stage,
        requestId,
        latest.ATTEMPT,
      );
    return;
  }
  const before = JSON.parse(latest.CHANGES) as SeenChange[];
  const all = [...before, seen];
  const changes =
    all.length <= CHANGES_KEPT
      ? all
      : [all[0] as SeenChange, ...all.slice(all.length - CHANGES_KEPT + 1)];
  prepared(
    db,
    `UPDATE REQUEST_ATTEMPT SET STATUS = ?, STAGE = ?, CHANGES = ?,
       ENDEDMS = ?, ENDTIME = ?, BEGINTIME = CASE WHEN BEGINTIME = '' AND ? THEN ? ELSE BEGINTIME END,
       FAILED = ?, MESSAGE = ?, LOGLINES = ?
     WHERE REQUESTID = ? AND ATTEMPT = ?`,
  ).run(
    status,
    stage,
    JSON.stringify(changes),
    ended ? atMs : null,
    ended ? stamp : '',
    status === 'Start' ? 1 : 0,
    stamp,
    failed ? 1 : 0,
    failed ? bounded(change.errorMsg ?? '', MESSAGE_CHARS) : latest.MESSAGE,
    failed ? JSON.stringify(lastAppLines(db, requestId)) : latest.LOGLINES,
    requestId,
    latest.ATTEMPT,
  );
}

/**
 * Every attempt of a request, oldest first; a request that never changed since it was
 * created (or since before attempts were kept) is told as one attempt from its row.
 * Undefined when there is no such request.
 */
export function listAttempts(db: Db, requestId: string): AttemptRecord[] | undefined {
  const request = getRequest(db, requestId);
  if (!request) return undefined;
  // Read in the row shape of the gateway's index, so that one attemptOf makes both answers;
  // a failure's evidence here is kept with the attempt itself.
  const rows = prepared(
    db,
    `SELECT ATTEMPT AS attempt, STATUS AS status, STAGE AS stage, STARTEDMS AS seen_ms,
       ENDEDMS AS ended_ms, BEGINTIME AS begin_time, ENDTIME AS end_time, CHANGES AS changes,
       FAILED AS failed, MESSAGE AS message, LOGLINES AS log,
       CASE WHEN FAILED = 1 THEN 'kept' ELSE '' END AS evidence
     FROM REQUEST_ATTEMPT WHERE REQUESTID = ? ORDER BY ATTEMPT`,
  ).all(requestId) as Parameters<typeof attemptOf>[0][];
  if (rows.length === 0) {
    const failed = request.status === 'Error';
    return [
      {
        attempt: Math.max(1, request.attempt),
        status: request.status,
        stage: request.stage,
        startedMs: null,
        endedMs: null,
        beginTime: request.beginTime ?? '',
        endTime: request.endTime ?? '',
        changes: [],
        failed,
        message: failed ? bounded(request.errorMsg ?? '', MESSAGE_CHARS) : '',
        log: failed ? lastAppLines(db, requestId) : [],
        evidence: failed ? 'kept' : '',
      },
    ];
  }
  return rows.map(attemptOf);
}
