import { prepared, type Db } from '../sqlite.ts';

/** One state-changing call through the server and its outcome. */
export interface AuditEntry {
  readonly time: string;
  /** yyyymmdd in the service's time zone, for filtering by day. */
  readonly day: string;
  /** The signed-in person, or null for the API key, a cookie or no credentials. */
  readonly userName: string | null;
  readonly via: 'session' | 'key' | 'cookie' | 'none';
  readonly address: string;
  /** The pipeline service it went to; null for the server's own sign-in and settings. */
  readonly service: string | null;
  readonly operation: string;
  readonly parameters: Readonly<Record<string, string>>;
  readonly httpStatus: number;
  readonly status: string;
  readonly message: string;
  readonly requestId: string | null;
}

export function appendAudit(db: Db, entry: AuditEntry): void {
  prepared(
    db,
    `INSERT INTO AUDIT (TIME, DAY, USERNAME, VIA, ADDRESS, SERVICE, OPERATION, PARAMETERS,
       HTTPSTATUS, STATUS, MESSAGE, REQUESTID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    entry.time,
    entry.day,
    entry.userName,
    entry.via,
    entry.address,
    entry.service,
    entry.operation,
    JSON.stringify(entry.parameters),
    entry.httpStatus,
    entry.status,
    entry.message,
    entry.requestId,
  );
}

/** Removes entries older than `before` (an ISO time); returns how many went. */
export function pruneAudit(db: Db, before: string): number {
  return prepared(db, 'DELETE FROM AUDIT WHERE TIME < ?').run(before).changes;
}

export interface AuditQuery {
  /** yyyymmdd, inclusive. */
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly user?: string | undefined;
  readonly service?: string | undefined;
  readonly operation?: string | undefined;
  readonly requestId?: string | undefined;
  readonly index: number;
  readonly pageSize: number;
}

interface AuditRow {
  TIME: string;
  DAY: string;
  USERNAME: string | null;
  VIA: AuditEntry['via'];
  ADDRESS: string;
  SERVICE: string | null;
  OPERATION: string;
  PARAMETERS: string;
  HTTPSTATUS: number;
  STATUS: string;
  MESSAGE: string;
  REQUESTID: string | null;
}

// Each filter is a parameter, compared with `IS NULL OR`: one statement serves every
// combination and nothing a client sends becomes SQL.
const WHERE = `WHERE (@from IS NULL OR DAY >= @from) AND (@to IS NULL OR DAY <= @to)
  AND (@user IS NULL OR USERNAME = @user) AND (@service IS NULL OR SERVICE = @service)
  AND (@operation IS NULL OR OPERATION = @operation)
  AND (@requestId IS NULL OR REQUESTID = @requestId)`;

/** A page of entries, newest first, and how many match in all. */
export function queryAudit(db: Db, query: AuditQuery): { total: number; entries: AuditEntry[] } {
  const filters = {
    from: query.from ?? null,
    to: query.to ?? null,
    user: query.user ?? null,
    service: query.service ?? null,
    operation: query.operation ?? null,
    requestId: query.requestId ?? null,
  };
  const total = (
    prepared(db, `SELECT COUNT(*) AS n FROM AUDIT ${WHERE}`).get(filters) as { n: number }
  ).n;
  const rows = prepared(
    db,
    `SELECT * FROM AUDIT ${WHERE} ORDER BY SEQ DESC LIMIT @limit OFFSET @offset`,
  ).all({ ...filters, limit: query.pageSize, offset: query.index }) as AuditRow[];
  return {
    total,
    entries: rows.map((r) => ({
      time: r.TIME,
      day: r.DAY,
      userName: r.USERNAME,
      via: r.VIA,
      address: r.ADDRESS,
      service: r.SERVICE,
      operation: r.OPERATION,
      parameters: JSON.parse(r.PARAMETERS) as Record<string, string>,
      httpStatus: r.HTTPSTATUS,
      status: r.STATUS,
      message: r.MESSAGE,
      requestId: r.REQUESTID,
    })),
  };
}
