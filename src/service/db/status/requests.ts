import { statusTableName, type RequestStage, type RequestStatus } from '../../../kit/wire.ts';
import { prepared, quoteIdentifier, type Db } from '../sqlite.ts';
import { countTriggers } from './request-counts.ts';

export { statusTableName };

export function dayTableExists(db: Db, day: string): boolean {
  return (
    prepared(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(
      statusTableName(day),
    ) !== undefined
  );
}

const createdDays = new WeakMap<Db, Set<string>>();

function ensureDayTable(db: Db, day: string): string {
  const table = statusTableName(day);
  let days = createdDays.get(db);
  if (!days) createdDays.set(db, (days = new Set()));
  if (!days.has(day)) {
    const quoted = quoteIdentifier(table);
    db.exec(`
      CREATE TABLE IF NOT EXISTS ${quoted} (
        REQUESTID VARCHAR PRIMARY KEY,
        PIPELINEID VARCHAR NOT NULL,
        CREATED TIMESTAMP NOT NULL,
        LASTUPDATED TIMESTAMP NOT NULL,
        STAGE VARCHAR NOT NULL,
        STATUS VARCHAR NOT NULL,
        ERRORMSG VARCHAR,
        ERROR INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX IF NOT EXISTS ${quoteIdentifier(`${table}_BY_PIPELINE`)} ON ${quoted} (PIPELINEID);
      ${countTriggers(day)}
    `);
    days.add(day);
  }
  return table;
}

export interface NewRequest {
  readonly pipelineId: string;
  readonly filename: string;
  readonly args: Readonly<Record<string, string>>;
  readonly day: string;
  readonly hour: string;
  readonly stamp: string;
}

/**
 * Records a new request as Wait and queues it. The serial comes from an upsert inside
 * the same transaction, so ids stay unique whatever runs concurrently.
 */
export function createRequest(db: Db, input: NewRequest): string {
  return db.transaction(() => {
    const table = ensureDayTable(db, input.day);
    const { LAST: serial } = prepared(
      db,
      `INSERT INTO REQUEST_SERIAL (DAY, PIPELINEID, LAST) VALUES (?, ?, 1)
       ON CONFLICT (DAY, PIPELINEID) DO UPDATE SET LAST = LAST + 1 RETURNING LAST`,
    ).get(input.day, input.pipelineId) as { LAST: number };
    if (serial > 999_999) throw new Error('serial space of the day is exhausted');
    const requestId = `${input.pipelineId}-${input.day}_${input.hour}-${String(serial).padStart(6, '0')}`;
    prepared(
      db,
      `INSERT INTO ${quoteIdentifier(table)} (REQUESTID, PIPELINEID, CREATED, LASTUPDATED, STAGE, STATUS, ERRORMSG, ERROR)
       VALUES (?, ?, ?, ?, 'Sensor', 'Wait', NULL, 0)`,
    ).run(requestId, input.pipelineId, input.stamp, input.stamp);
    prepared(
      db,
      'INSERT INTO REQUEST (REQUESTID, PIPELINEID, DAY, FILENAME, ARGS) VALUES (?, ?, ?, ?, ?)',
    ).run(requestId, input.pipelineId, input.day, input.filename, JSON.stringify(input.args));
    prepared(db, 'INSERT INTO REQUEST_QUEUE (REQUESTID, PIPELINEID) VALUES (?, ?)').run(
      requestId,
      input.pipelineId,
    );
    return requestId;
  })();
}

export interface RequestRow {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly day: string;
  readonly filename: string;
  readonly args: Record<string, string>;
  readonly status: RequestStatus;
  readonly stage: RequestStage;
  readonly created: string;
  readonly lastUpdated: string;
  readonly errorMsg: string | null;
  readonly beginTime: string | null;
  readonly endTime: string | null;
  readonly sensorMs: number | null;
  readonly filterMs: number | null;
  readonly jointMs: number | null;
  readonly sensorFile: string | null;
  readonly fileSize: number | null;
  readonly attempt: number;
  /** Rows read by the Sensor, kept by the Filter, written by the Joint; null while unknown. */
  readonly sensorRows: number | null;
  readonly filterKept: number | null;
  readonly jointRows: number | null;
}

interface RawRequest {
  REQUESTID: string;
  PIPELINEID: string;
  DAY: string;
  FILENAME: string;
  ARGS: string;
  STATUS: RequestStatus;
  STAGE: RequestStage;
  CREATED: string;
  LASTUPDATED: string;
  ERRORMSG: string | null;
  BEGINTIME: string | null;
  ENDTIME: string | null;
  SENSORMS: number | null;
  FILTERMS: number | null;
  JOINTMS: number | null;
  SENSORFILE: string | null;
  FILESIZE: number | null;
  ATTEMPT: number;
  SENSORROWS: number | null;
  FILTERKEPT: number | null;
  JOINTROWS: number | null;
}

export function getRequest(db: Db, requestId: string): RequestRow | undefined {
  const base = prepared(db, 'SELECT DAY FROM REQUEST WHERE REQUESTID = ?').get(requestId) as
    { DAY: string } | undefined;
  if (!base) return undefined;
  const table = quoteIdentifier(statusTableName(base.DAY));
  const raw = prepared(
    db,
    `SELECT r.*, s.STATUS, s.STAGE, s.CREATED, s.LASTUPDATED, s.ERRORMSG
     FROM REQUEST r JOIN ${table} s ON s.REQUESTID = r.REQUESTID WHERE r.REQUESTID = ?`,
  ).get(requestId) as RawRequest | undefined;
  if (!raw) return undefined;
  return {
    requestId: raw.REQUESTID,
    pipelineId: raw.PIPELINEID,
    day: raw.DAY,
    filename: raw.FILENAME,
    args: JSON.parse(raw.ARGS) as Record<string, string>,
    status: raw.STATUS,
    stage: raw.STAGE,
    created: raw.CREATED,
    lastUpdated: raw.LASTUPDATED,
    errorMsg: raw.ERRORMSG,
    beginTime: raw.BEGINTIME,
    endTime: raw.ENDTIME,
    sensorMs: raw.SENSORMS,
    filterMs: raw.FILTERMS,
    jointMs: raw.JOINTMS,
    sensorFile: raw.SENSORFILE,
    fileSize: raw.FILESIZE,
    attempt: raw.ATTEMPT,
    sensorRows: raw.SENSORROWS,
    filterKept: raw.FILTERKEPT,
    jointRows: raw.JOINTROWS,
  };
}

export interface StatusChange {
  readonly status: RequestStatus;
  readonly stage: RequestStage;
  readonly errorMsg?: string | null;
  readonly stamp: string;
}

export function setStatus(
  db: Db,
  request: { requestId: string; day: string },
  change: StatusChange,
): void {
  const error = change.status === 'Error' ? 1 : 0;
  prepared(
    db,
    `UPDATE ${quoteIdentifier(statusTableName(request.day))}
     SET STATUS = ?, STAGE = ?, ERRORMSG = ?, ERROR = ?, LASTUPDATED = ? WHERE REQUESTID = ?`,
  ).run(
    change.status,
    change.stage,
    change.errorMsg ?? null,
    error,
    change.stamp,
    request.requestId,
  );
}

export interface RequestTimes {
  readonly beginTime?: string | null;
  readonly endTime?: string | null;
  readonly sensorMs?: number | null;
  readonly filterMs?: number | null;
  readonly jointMs?: number | null;
  readonly sensorFile?: string | null;
  readonly fileSize?: number | null;
  readonly attempt?: number;
  readonly sensorRows?: number | null;
  readonly filterKept?: number | null;
  readonly jointRows?: number | null;
}

const TIME_COLUMNS: Record<keyof RequestTimes, string> = {
  beginTime: 'BEGINTIME',
  endTime: 'ENDTIME',
  sensorMs: 'SENSORMS',
  filterMs: 'FILTERMS',
  jointMs: 'JOINTMS',
  sensorFile: 'SENSORFILE',
  fileSize: 'FILESIZE',
  attempt: 'ATTEMPT',
  sensorRows: 'SENSORROWS',
  filterKept: 'FILTERKEPT',
  jointRows: 'JOINTROWS',
};

export function setRequestTimes(db: Db, requestId: string, times: RequestTimes): void {
  const keys = (Object.keys(times) as (keyof RequestTimes)[]).filter((k) => times[k] !== undefined);
  if (keys.length === 0) return;
  const sql = `UPDATE REQUEST SET ${keys.map((k) => `${TIME_COLUMNS[k]} = ?`).join(', ')} WHERE REQUESTID = ?`;
  prepared(db, sql).run(...keys.map((k) => times[k]), requestId);
}

export interface RequestLogEntry {
  readonly date: string;
  readonly stage: string;
  readonly event: 'Start' | 'End';
  readonly status: 'Start' | 'Process' | 'Finish' | 'Error' | 'Stop';
  readonly actionOrder: number;
  readonly message: string;
}

export function appendRequestLog(db: Db, requestId: string, entry: RequestLogEntry): void {
  prepared(
    db,
    `INSERT INTO REQUEST_LOG (REQUESTID, SEQ, DATE, STAGE, EVENT, STATUS, ACTIONORDER, MESSAGE)
     VALUES (?, (SELECT COALESCE(MAX(SEQ), 0) + 1 FROM REQUEST_LOG WHERE REQUESTID = ?), ?, ?, ?, ?, ?, ?)`,
  ).run(
    requestId,
    requestId,
    entry.date,
    entry.stage,
    entry.event,
    entry.status,
    entry.actionOrder,
    entry.message,
  );
}

export function readRequestLog(db: Db, requestId: string): RequestLogEntry[] {
  return prepared(
    db,
    `SELECT DATE AS date, STAGE AS stage, EVENT AS event, STATUS AS status,
       ACTIONORDER AS actionOrder, MESSAGE AS message
     FROM REQUEST_LOG WHERE REQUESTID = ? ORDER BY SEQ`,
  ).all(requestId) as RequestLogEntry[];
}

export type AppLogType = 'INFO' | 'WARN' | 'ERROR';

export interface AppLogEntry {
  readonly index: number;
  readonly date: string;
  readonly type: AppLogType;
  readonly message: string;
}

export function appendAppLog(db: Db, requestId: string, entry: Omit<AppLogEntry, 'index'>): void {
  prepared(
    db,
    `INSERT INTO APP_LOG (REQUESTID, IDX, DATE, TYPE, MESSAGE)
     VALUES (?, (SELECT COALESCE(MAX(IDX), 0) + 1 FROM APP_LOG WHERE REQUESTID = ?), ?, ?, ?)`,
  ).run(requestId, requestId, entry.date, entry.type, entry.message);
}

export function readAppLog(db: Db, requestId: string): AppLogEntry[] {
  return (
    prepared(
      db,
      'SELECT IDX, DATE, TYPE, MESSAGE FROM APP_LOG WHERE REQUESTID = ? ORDER BY IDX',
    ).all(requestId) as { IDX: number; DATE: string; TYPE: AppLogType; MESSAGE: string }[]
  ).map((r) => ({ index: r.IDX, date: r.DATE, type: r.TYPE, message: r.MESSAGE }));
}

export function enqueue(db: Db, requestId: string, pipelineId: string): void {
  prepared(
    db,
    `INSERT INTO REQUEST_QUEUE (REQUESTID, PIPELINEID) VALUES (?, ?)
     ON CONFLICT (REQUESTID) DO UPDATE SET CANCELREQUESTED = 0`,
  ).run(requestId, pipelineId);
}

export function dequeue(db: Db, requestId: string): void {
  prepared(db, 'DELETE FROM REQUEST_QUEUE WHERE REQUESTID = ?').run(requestId);
}

/** Records that a running request was asked to stop, so that a crash cannot lose the cancel. */
export function markCancelRequested(db: Db, requestId: string): void {
  prepared(db, 'UPDATE REQUEST_QUEUE SET CANCELREQUESTED = 1 WHERE REQUESTID = ?').run(requestId);
}

export interface QueuedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly cancelRequested: boolean;
}

export function queuedRequests(db: Db): QueuedRequest[] {
  return (
    prepared(
      db,
      'SELECT REQUESTID, PIPELINEID, CANCELREQUESTED FROM REQUEST_QUEUE ORDER BY SEQ',
    ).all() as {
      REQUESTID: string;
      PIPELINEID: string;
      CANCELREQUESTED: number;
    }[]
  ).map((r) => ({
    requestId: r.REQUESTID,
    pipelineId: r.PIPELINEID,
    cancelRequested: r.CANCELREQUESTED === 1,
  }));
}

/**
 * The oldest queued request the scheduler may start: not of a stopped pipeline and not one
 * this process already runs.
 */
export function nextQueued(
  db: Db,
  skip: { readonly pipelines: readonly string[]; readonly requests: readonly string[] },
): string | undefined {
  const row = prepared(
    db,
    `SELECT REQUESTID FROM REQUEST_QUEUE
     WHERE PIPELINEID NOT IN (SELECT value FROM json_each(?))
       AND REQUESTID NOT IN (SELECT value FROM json_each(?))
     ORDER BY SEQ LIMIT 1`,
  ).get(JSON.stringify(skip.pipelines), JSON.stringify(skip.requests)) as
    { REQUESTID: string } | undefined;
  return row?.REQUESTID;
}
