import type { AuditVia } from './audit-bounds.ts';
import { prepared, type Db } from '../sqlite.ts';

// Bulk jobs (src/service/bulk): the job, and its requests chosen once at the start with
// an outcome each. Outcomes move pending → started → ok | refused | failed; `started` is
// written before the call, so a restart knows which calls may have happened.

export type BulkAction = 'retry' | 'cancel';
/** `stopped`: ended before its end, its starter having lost the role it needs (STOPPED says). */
export type BulkState = 'running' | 'done' | 'stopped';
export type ItemOutcome = 'pending' | 'started' | 'ok' | 'refused' | 'failed';

export interface BulkSelection {
  readonly service: string;
  readonly action: BulkAction;
  readonly day: string;
  readonly pipelineId: string | undefined;
  readonly statuses: readonly string[];
  readonly q: string | undefined;
}

export interface BulkJobRow extends BulkSelection {
  readonly id: number;
  readonly reason: string;
  readonly userName: string | null;
  readonly via: AuditVia;
  readonly address: string;
  readonly created: string;
  readonly resumed: string | null;
  readonly finished: string | null;
  readonly state: BulkState;
  /** Why a stopped job stopped; null otherwise. */
  readonly stopped: string | null;
  readonly total: number;
  readonly succeeded: number;
  readonly refused: number;
  readonly failed: number;
}

export interface BulkItemRow {
  readonly seq: number;
  readonly requestId: string;
  readonly outcome: ItemOutcome;
  readonly message: string;
  readonly time: string | null;
}

interface RawJob {
  ID: number;
  SERVICE: string;
  ACTION: BulkAction;
  DAY: string;
  PIPELINEID: string | null;
  STATUSES: string;
  Q: string | null;
  REASON: string;
  USERNAME: string | null;
  VIA: BulkJobRow['via'];
  ADDRESS: string;
  CREATED: string;
  RESUMED: string | null;
  FINISHED: string | null;
  STATE: BulkState;
  STOPPED: string | null;
  TOTAL: number;
  SUCCEEDED: number;
  REFUSED: number;
  FAILED: number;
}

function job(raw: RawJob): BulkJobRow {
  return {
    id: raw.ID,
    service: raw.SERVICE,
    action: raw.ACTION,
    day: raw.DAY,
    pipelineId: raw.PIPELINEID ?? undefined,
    statuses: JSON.parse(raw.STATUSES) as string[],
    q: raw.Q ?? undefined,
    reason: raw.REASON,
    userName: raw.USERNAME,
    via: raw.VIA,
    address: raw.ADDRESS,
    created: raw.CREATED,
    resumed: raw.RESUMED,
    finished: raw.FINISHED,
    state: raw.STATE,
    stopped: raw.STOPPED ?? null,
    total: raw.TOTAL,
    succeeded: raw.SUCCEEDED,
    refused: raw.REFUSED,
    failed: raw.FAILED,
  };
}

/** An item's columns named as BulkItemRow names them, in its order. */
const ITEM_COLUMNS =
  'SEQ AS seq, REQUESTID AS requestId, OUTCOME AS outcome, MESSAGE AS message, TIME AS time';

/** Records a job and its requests, all pending, in one transaction; returns its id. */
export function createBulkJob(
  db: Db,
  selection: BulkSelection,
  who: { reason: string; userName: string | null; via: BulkJobRow['via']; address: string },
  created: string,
  requestIds: readonly string[],
): number {
  return db.transaction(() => {
    const id = Number(
      prepared(
        db,
        `INSERT INTO BULK_JOB (SERVICE, ACTION, DAY, PIPELINEID, STATUSES, Q, REASON, USERNAME,
           VIA, ADDRESS, CREATED, STATE, TOTAL) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        selection.service,
        selection.action,
        selection.day,
        selection.pipelineId ?? null,
        JSON.stringify(selection.statuses),
        selection.q ?? null,
        who.reason,
        who.userName,
        who.via,
        who.address,
        created,
        requestIds.length === 0 ? 'done' : 'running',
        requestIds.length,
      ).lastInsertRowid,
    );
    const item = prepared(
      db,
      "INSERT INTO BULK_ITEM (JOBID, SEQ, REQUESTID, OUTCOME) VALUES (?, ?, ?, 'pending')",
    );
    requestIds.forEach((requestId, seq) => item.run(id, seq, requestId));
    if (requestIds.length === 0)
      prepared(db, 'UPDATE BULK_JOB SET FINISHED = ? WHERE ID = ?').run(created, id);
    return id;
  })();
}

export function getBulkJob(db: Db, id: number): BulkJobRow | undefined {
  const raw = prepared(db, 'SELECT * FROM BULK_JOB WHERE ID = ?').get(id) as RawJob | undefined;
  return raw && job(raw);
}

/** The newest jobs first. */
export function listBulkJobs(db: Db, limit: number): BulkJobRow[] {
  return (
    prepared(db, 'SELECT * FROM BULK_JOB ORDER BY ID DESC LIMIT ?').all(limit) as RawJob[]
  ).map(job);
}

/** Jobs a stop or a crash left unfinished, oldest first. */
export function runningBulkJobs(db: Db): BulkJobRow[] {
  return (
    prepared(db, "SELECT * FROM BULK_JOB WHERE STATE = 'running' ORDER BY ID").all() as RawJob[]
  ).map(job);
}

export function markResumed(db: Db, id: number, time: string): void {
  prepared(db, 'UPDATE BULK_JOB SET RESUMED = ? WHERE ID = ?').run(time, id);
}

/** The next items to do: pending ones, or (after a restart) those started but not ended. */
export function nextBulkItems(
  db: Db,
  id: number,
  outcome: 'pending' | 'started',
  limit: number,
): BulkItemRow[] {
  return prepared(
    db,
    `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ? ORDER BY SEQ LIMIT ?`,
  ).all(id, outcome, limit) as BulkItemRow[];
}

export function markStarted(db: Db, id: number, seq: number, time: string): void {
  prepared(
    db,
    "UPDATE BULK_ITEM SET OUTCOME = 'started', TIME = ? WHERE JOBID = ? AND SEQ = ?",
  ).run(time, id, seq);
}

const COUNTER = { ok: 'SUCCEEDED', refused: 'REFUSED', failed: 'FAILED' } as const;

/** An item's end, and the job's counter, together. */
export function markEnded(
  db: Db,
  id: number,
  seq: number,
  outcome: 'ok' | 'refused' | 'failed',
  message: string,
  time: string,
): void {
  db.transaction(() => {
    prepared(
      db,
      'UPDATE BULK_ITEM SET OUTCOME = ?, MESSAGE = ?, TIME = ? WHERE JOBID = ? AND SEQ = ?',
    ).run(outcome, message, time, id, seq);
    prepared(
      db,
      `UPDATE BULK_JOB SET ${COUNTER[outcome]} = ${COUNTER[outcome]} + 1 WHERE ID = ?`,
    ).run(id);
  })();
}

export function markJobDone(db: Db, id: number, time: string): void {
  prepared(db, "UPDATE BULK_JOB SET STATE = 'done', FINISHED = ? WHERE ID = ?").run(time, id);
}

/** Ends a job before its end, saying why; its items not done stay as they are. */
export function markJobStopped(db: Db, id: number, why: string, time: string): void {
  prepared(
    db,
    "UPDATE BULK_JOB SET STATE = 'stopped', STOPPED = ?, FINISHED = ? WHERE ID = ? AND STATE = 'running'",
  ).run(why, time, id);
}

/**
 * A page of a job's items in order, optionally of one outcome, with their count: by the
 * outcome index, and without one the job's own total (its items never change in number).
 */
export function bulkItemsPage(
  db: Db,
  id: number,
  outcome: ItemOutcome | undefined,
  index: number,
  pageSize: number,
): { items: BulkItemRow[]; total: number } {
  if (outcome === undefined) {
    const total = (
      prepared(db, 'SELECT TOTAL FROM BULK_JOB WHERE ID = ?').get(id) as
        { TOTAL: number } | undefined
    )?.TOTAL;
    const items = prepared(
      db,
      `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? ORDER BY SEQ LIMIT ? OFFSET ?`,
    ).all(id, pageSize, index) as BulkItemRow[];
    return { items, total: total ?? 0 };
  }
  const total = (
    prepared(db, 'SELECT COUNT(*) AS n FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ?').get(
      id,
      outcome,
    ) as { n: number }
  ).n;
  const items = prepared(
    db,
    `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ? ORDER BY SEQ LIMIT ? OFFSET ?`,
  ).all(id, outcome, pageSize, index) as BulkItemRow[];
  return { items, total };
}

/** The requests of a job whose call the service accepted, in the job's order. */
export function acceptedRequestIds(db: Db, id: number): string[] {
  return prepared(
    db,
    "SELECT REQUESTID FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = 'ok' ORDER BY SEQ",
  )
    .pluck()
    .all(id) as string[];
}
