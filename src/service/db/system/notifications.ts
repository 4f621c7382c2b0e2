import type { Sql } from '../sql.ts';

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
export async function claimNotification(
  sql: Sql,
  entry: { time: string; target: string; targetHash: string; requestId: string; status: string },
): Promise<boolean> {
  // The unique (REQUESTID, STATUS, TARGETHASH) is the claim: of several gateways sharing the
  // database, or one told twice, exactly one inserts the row.
  const inserted = await sql.run(
    `INSERT INTO NOTIFICATION (TIME, TARGET, TARGETHASH, REQUESTID, STATUS, OUTCOME)
     VALUES (?, ?, ?, ?, ?, 'pending') ON CONFLICT DO NOTHING`,
    [entry.time, entry.target, entry.targetHash, entry.requestId, entry.status],
  );
  return inserted === 1;
}

export async function recordAttempt(
  sql: Sql,
  key: { requestId: string; status: string; targetHash: string },
  result: { attempts: number; outcome: NotificationRow['outcome']; message: string },
): Promise<void> {
  await sql.run(
    `UPDATE NOTIFICATION SET ATTEMPTS = ?, OUTCOME = ?, MESSAGE = ?
     WHERE REQUESTID = ? AND STATUS = ? AND TARGETHASH = ?`,
    [result.attempts, result.outcome, result.message, key.requestId, key.status, key.targetHash],
  );
}

export function listNotifications(sql: Sql, limit: number): Promise<NotificationRow[]> {
  return sql.all<NotificationRow>(
    `SELECT TIME AS "time", TARGET AS "target", REQUESTID AS "requestId", STATUS AS "status",
       ATTEMPTS AS "attempts", OUTCOME AS "outcome", MESSAGE AS "message"
     FROM NOTIFICATION ORDER BY SEQ DESC LIMIT ?`,
    [limit],
  );
}
