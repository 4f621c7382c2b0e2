import type { AuditVia } from './audit-bounds.ts';
import { columnsOf, inList, scalar, type Sql } from '../sql.ts';

// Bulk jobs (src/service/bulk): the job, and its requests chosen once at the start with
// an outcome each. Outcomes move pending → started → ok | refused | failed; `started` is
// written before the call, so a restart knows which calls may have happened. Written in the
// portable SQL of db/sql.ts: the same text runs on SQLite and PostgreSQL.

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
  /**
   * The credential it was started with, by reference (Caller.credential: a hash or digest,
   * never a secret, never answered to anyone); null for a job older than that, or started
   * by the embedded engine's own means.
   */
  readonly credential: string | null;
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
  CREDENTIAL: string | null;
  TOTAL: number;
  SUCCEEDED: number;
  REFUSED: number;
  FAILED: number;
}

// prettier-ignore
const JOB_COLUMNS = columnsOf<RawJob>([
  'ID', 'SERVICE', 'ACTION', 'DAY', 'PIPELINEID', 'STATUSES', 'Q', 'REASON', 'USERNAME', 'VIA',
  'ADDRESS', 'CREATED', 'RESUMED', 'FINISHED', 'STATE', 'STOPPED', 'CREDENTIAL', 'TOTAL',
  'SUCCEEDED', 'REFUSED', 'FAILED',
]);

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
    credential: raw.CREDENTIAL ?? null,
    total: raw.TOTAL,
    succeeded: raw.SUCCEEDED,
    refused: raw.REFUSED,
    failed: raw.FAILED,
  };
}

/** An item's columns named as BulkItemRow names them, in its order. */
const ITEM_COLUMNS =
  'SEQ AS "seq", REQUESTID AS "requestId", OUTCOME AS "outcome", MESSAGE AS "message", TIME AS "time"';

/**
 * Items inserted per statement when a job is recorded: one round trip per chunk rather than
 * per request, with 3 parameters a row well under either engine's limit on parameters.
 */
const ITEM_CHUNK = 200;

/** Records a job and its requests, all pending, in one transaction; returns its id. */
export function createBulkJob(
  sql: Sql,
  selection: BulkSelection,
  who: {
    reason: string;
    userName: string | null;
    via: BulkJobRow['via'];
    address: string;
    credential: string | null;
  },
  created: string,
  requestIds: readonly string[],
): Promise<number> {
  return sql.transaction(async (tx) => {
    const inserted = await tx.get<{ ID: number }>(
      `INSERT INTO BULK_JOB (SERVICE, ACTION, DAY, PIPELINEID, STATUSES, Q, REASON, USERNAME,
         VIA, ADDRESS, CREATED, STATE, TOTAL, CREDENTIAL)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       RETURNING ID AS "ID"`,
      [
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
        who.credential,
      ],
    );
    if (!inserted) throw new Error('BULK_JOB returned no id');
    const id = Number(inserted.ID);
    for (let from = 0; from < requestIds.length; from += ITEM_CHUNK) {
      const chunk = requestIds.slice(from, from + ITEM_CHUNK);
      await tx.run(
        `INSERT INTO BULK_ITEM (JOBID, SEQ, REQUESTID, OUTCOME) VALUES ${chunk
          .map(() => "(?, ?, ?, 'pending')")
          .join(', ')}`,
        chunk.flatMap((requestId, i) => [id, from + i, requestId]),
      );
    }
    if (requestIds.length === 0)
      await tx.run('UPDATE BULK_JOB SET FINISHED = ? WHERE ID = ?', [created, id]);
    return id;
  });
}

export async function getBulkJob(sql: Sql, id: number): Promise<BulkJobRow | undefined> {
  const raw = await sql.get<RawJob>(`SELECT ${JOB_COLUMNS} FROM BULK_JOB WHERE ID = ?`, [id]);
  return raw && job(raw);
}

/** The newest jobs first. */
export async function listBulkJobs(sql: Sql, limit: number): Promise<BulkJobRow[]> {
  return (
    await sql.all<RawJob>(`SELECT ${JOB_COLUMNS} FROM BULK_JOB ORDER BY ID DESC LIMIT ?`, [limit])
  ).map(job);
}

/** Jobs a stop or a crash left unfinished, oldest first. */
export async function runningBulkJobs(sql: Sql): Promise<BulkJobRow[]> {
  return (
    await sql.all<RawJob>(`SELECT ${JOB_COLUMNS} FROM BULK_JOB WHERE STATE = 'running' ORDER BY ID`)
  ).map(job);
}

export async function markResumed(sql: Sql, id: number, time: string): Promise<void> {
  await sql.run('UPDATE BULK_JOB SET RESUMED = ? WHERE ID = ?', [time, id]);
}

/** The next items to do: pending ones, or (after a restart) those started but not ended. */
export function nextBulkItems(
  sql: Sql,
  id: number,
  outcome: 'pending' | 'started',
  limit: number,
): Promise<BulkItemRow[]> {
  return sql.all<BulkItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ? ORDER BY SEQ LIMIT ?`,
    [id, outcome, limit],
  );
}

/** Items marked started together, before any of them is called. */
export async function markStarted(
  sql: Sql,
  id: number,
  seqs: readonly number[],
  time: string,
): Promise<void> {
  await sql.run(
    `UPDATE BULK_ITEM SET OUTCOME = 'started', TIME = ? WHERE JOBID = ? AND ${inList('SEQ', seqs)}`,
    [time, id, ...seqs],
  );
}

const COUNTER = { ok: 'SUCCEEDED', refused: 'REFUSED', failed: 'FAILED' } as const;

/** An item's end, and the job's counter, together. */
export function markEnded(
  sql: Sql,
  id: number,
  seq: number,
  outcome: 'ok' | 'refused' | 'failed',
  message: string,
  time: string,
): Promise<void> {
  return sql.transaction(async (tx) => {
    await tx.run(
      'UPDATE BULK_ITEM SET OUTCOME = ?, MESSAGE = ?, TIME = ? WHERE JOBID = ? AND SEQ = ?',
      [outcome, message, time, id, seq],
    );
    await tx.run(`UPDATE BULK_JOB SET ${COUNTER[outcome]} = ${COUNTER[outcome]} + 1 WHERE ID = ?`, [
      id,
    ]);
  });
}

export async function markJobDone(sql: Sql, id: number, time: string): Promise<void> {
  await sql.run("UPDATE BULK_JOB SET STATE = 'done', FINISHED = ? WHERE ID = ?", [time, id]);
}

/** Ends a job before its end, saying why; its items not done stay as they are. */
/** Stops a running job, saying why; false when it was not running (another gateway stopped it). */
export async function markJobStopped(
  sql: Sql,
  id: number,
  why: string,
  time: string,
): Promise<boolean> {
  const changed = await sql.run(
    "UPDATE BULK_JOB SET STATE = 'stopped', STOPPED = ?, FINISHED = ? WHERE ID = ? AND STATE = 'running'",
    [why, time, id],
  );
  return changed > 0;
}

/**
 * A page of a job's items in order, optionally of one outcome, with their count: by the
 * outcome index, and without one the job's own total (its items never change in number).
 */
export async function bulkItemsPage(
  sql: Sql,
  id: number,
  outcome: ItemOutcome | undefined,
  index: number,
  pageSize: number,
): Promise<{ items: BulkItemRow[]; total: number }> {
  if (outcome === undefined) {
    const total = await scalar<number>(sql, 'SELECT TOTAL FROM BULK_JOB WHERE ID = ?', [id]);
    const items = await sql.all<BulkItemRow>(
      `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? ORDER BY SEQ LIMIT ? OFFSET ?`,
      [id, pageSize, index],
    );
    return { items, total: total ?? 0 };
  }
  const counted = await scalar<number>(
    sql,
    'SELECT COUNT(*) FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ?',
    [id, outcome],
  );
  const items = await sql.all<BulkItemRow>(
    `SELECT ${ITEM_COLUMNS} FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = ? ORDER BY SEQ LIMIT ? OFFSET ?`,
    [id, outcome, pageSize, index],
  );
  return { items, total: counted ?? 0 };
}

/** The requests of a job whose call the service accepted, in the job's order. */
export async function acceptedRequestIds(sql: Sql, id: number): Promise<string[]> {
  return (
    await sql.all<{ requestId: string }>(
      `SELECT REQUESTID AS "requestId" FROM BULK_ITEM WHERE JOBID = ? AND OUTCOME = 'ok' ORDER BY SEQ`,
      [id],
    )
  ).map((row) => row.requestId);
}
