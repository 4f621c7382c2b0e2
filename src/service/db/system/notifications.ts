import { prepared, type Db } from '../sqlite.ts';

export interface NotificationRow {
  readonly time: string;
  /** The receiver's origin only. */
  readonly target: string;
  readonly requestId: string;
  readonly status: string;
  readonly attempts: number;
  readonly outcome: 'pending' | 'sent' | 'failed';
  readonly message: string;
}

/** Claims the one notification of a request, state and receiver; false if it was claimed before. */
export function claimNotification(
  db: Db,
  entry: { time: string; target: string; targetHash: string; requestId: string; status: string },
): boolean {
  return (
    prepared(
      db,
      `INSERT OR IGNORE INTO NOTIFICATION (TIME, TARGET, TARGETHASH, REQUESTID, STATUS, OUTCOME)
       VALUES (?, ?, ?, ?, ?, 'pending')`,
    ).run(entry.time, entry.target, entry.targetHash, entry.requestId, entry.status).changes === 1
  );
}

export function recordAttempt(
  db: Db,
  key: { requestId: string; status: string; targetHash: string },
  result: { attempts: number; outcome: NotificationRow['outcome']; message: string },
): void {
  prepared(
    db,
    `UPDATE NOTIFICATION SET ATTEMPTS = ?, OUTCOME = ?, MESSAGE = ?
     WHERE REQUESTID = ? AND STATUS = ? AND TARGETHASH = ?`,
  ).run(result.attempts, result.outcome, result.message, key.requestId, key.status, key.targetHash);
}

export function listNotifications(db: Db, limit: number): NotificationRow[] {
  return prepared(
    db,
    `SELECT TIME AS time, TARGET AS target, REQUESTID AS requestId, STATUS AS status,
       ATTEMPTS AS attempts, OUTCOME AS outcome, MESSAGE AS message
     FROM NOTIFICATION ORDER BY SEQ DESC LIMIT ?`,
  ).all(limit) as NotificationRow[];
}
