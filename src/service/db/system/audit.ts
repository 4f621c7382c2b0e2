import type { AuditFilter, AuditPageQuery } from '../../../kit/audit.ts';
import { boundEntry, ENTRY_BYTES, TRUNCATION_NOTE, type AuditFields } from './audit-bounds.ts';
import { scalar, type Sql, type SqlValue } from '../sql.ts';

/**
 * One state-changing call through the server and its outcome: `time`; `day` (yyyymmdd in
 * the service's zone, for filtering); `userName` (the signed-in person, or null for the API
 * key, a cookie or no credentials); `via`; `address`; `service` (null for the server's own
 * sign-in and settings); `operation`; `parameters`; the outcome; `requestId`. Written
 * within the bounds of audit-bounds.ts.
 */
export type AuditEntry = AuditFields;

/** An entry as read back: `truncated` when it lost parameters or text to its bounds. */
export type ReadAuditEntry = AuditEntry & { readonly truncated: boolean };

/** Writes an entry; returns its sequence number (for a summary that grows in place). */
export async function appendAudit(sql: Sql, entry: AuditEntry): Promise<number> {
  const row = await sql.get<{ SEQ: number }>(
    `INSERT INTO AUDIT (TIME, DAY, USERNAME, VIA, ADDRESS, SERVICE, OPERATION, PARAMETERS,
       HTTPSTATUS, STATUS, MESSAGE, REQUESTID) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     RETURNING SEQ AS "SEQ"`,
    [
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
    ],
  );
  return (row as { SEQ: number }).SEQ;
}

/** Rewrites a summary entry's count: its parameters, message and last status. */
export async function updateAuditSummary(
  sql: Sql,
  seq: number,
  change: { parameters: Readonly<Record<string, string>>; message: string; httpStatus: number },
): Promise<void> {
  await sql.run('UPDATE AUDIT SET PARAMETERS = ?, MESSAGE = ?, HTTPSTATUS = ? WHERE SEQ = ?', [
    JSON.stringify(change.parameters),
    change.message,
    change.httpStatus,
    seq,
  ]);
}

/** Removes entries older than `before` (an ISO time); returns how many went. */
export function pruneAudit(sql: Sql, before: string): Promise<number> {
  return sql.run('DELETE FROM AUDIT WHERE TIME < ?', [before]);
}

/**
 * Which entries: every filter given must match. Days are yyyymmdd, inclusive. The kit's
 * filter (kit/audit.ts), so the one the dashboard and clients send is the one read here.
 */
export type AuditFilters = AuditFilter;

export interface AuditQuery extends AuditPageQuery {
  /** Largest sum of the entries' JSON sizes; a page ends early rather than pass it. */
  readonly maxBytes?: number | undefined;
}

/** The longest text read of each column: an entry written before entries were bounded may be far longer. */
const READ_CHARS = { PARAMETERS: 8192, MESSAGE: 1024, OTHER: 256 };

interface AuditRow {
  SEQ: number;
  TIME: string;
  DAY: string;
  USERNAME: string | null;
  VIA: AuditEntry['via'];
  ADDRESS: string;
  SERVICE: string | null;
  OPERATION: string;
  PARAMETERS: string;
  PARAMETERSLENGTH: number;
  HTTPSTATUS: number;
  STATUS: string;
  MESSAGE: string;
  REQUESTID: string | null;
}

const COLUMNS = `SEQ AS "SEQ", TIME AS "TIME", DAY AS "DAY",
  substr(USERNAME, 1, ${READ_CHARS.OTHER}) AS "USERNAME", VIA AS "VIA",
  substr(ADDRESS, 1, ${READ_CHARS.OTHER}) AS "ADDRESS",
  substr(SERVICE, 1, ${READ_CHARS.OTHER}) AS "SERVICE",
  substr(OPERATION, 1, ${READ_CHARS.OTHER}) AS "OPERATION",
  substr(PARAMETERS, 1, ${READ_CHARS.PARAMETERS}) AS "PARAMETERS",
  length(PARAMETERS) AS "PARAMETERSLENGTH", HTTPSTATUS AS "HTTPSTATUS",
  substr(STATUS, 1, ${READ_CHARS.OTHER}) AS "STATUS",
  substr(MESSAGE, 1, ${READ_CHARS.MESSAGE}) AS "MESSAGE",
  substr(REQUESTID, 1, ${READ_CHARS.OTHER}) AS "REQUESTID"`;

// Each filter is a parameter, compared with `IS NULL OR`: one statement serves every
// combination and nothing a client sends becomes SQL. (PostgreSQL must be told a bare
// parameter's type: CAST.)
const FILTERS = [
  ['from', 'DAY >='],
  ['to', 'DAY <='],
  ['user', 'USERNAME ='],
  ['service', 'SERVICE ='],
  ['operation', 'OPERATION ='],
  ['requestId', 'REQUESTID ='],
] as const;
const WHERE = `WHERE ${FILTERS.map(([, test]) => `(CAST(? AS VARCHAR) IS NULL OR ${test} ?)`).join(' AND ')}`;

/** The filters' values as WHERE binds them: each twice. */
function filterValues(query: AuditFilters): SqlValue[] {
  return FILTERS.flatMap(([name]) => {
    const value = query[name] ?? null;
    return [value, value];
  });
}

/**
 * A row as an entry within its bounds. Entries written since they are bounded pass as they
 * are; an older one too long (from before) is bounded now, its parameters dropped whole
 * when their text was too long to read.
 */
function entryOf(r: AuditRow): ReadAuditEntry {
  let parameters: unknown = {};
  let lost: string | undefined;
  if (r.PARAMETERSLENGTH > READ_CHARS.PARAMETERS)
    lost = `parameters (${r.PARAMETERSLENGTH} characters) not shown`;
  else {
    try {
      parameters = JSON.parse(r.PARAMETERS) as unknown;
    } catch {
      lost = 'parameters unreadable';
    }
  }
  const entry = {
    time: r.TIME,
    day: r.DAY,
    userName: r.USERNAME,
    via: r.VIA,
    address: r.ADDRESS,
    service: r.SERVICE,
    operation: r.OPERATION,
    parameters: parameters as Record<string, string>,
    httpStatus: r.HTTPSTATUS,
    status: r.STATUS,
    message: r.MESSAGE,
    requestId: r.REQUESTID,
  };
  const size = Buffer.byteLength(JSON.stringify({ ...entry, truncated: false }), 'utf8');
  if (lost === undefined && size <= ENTRY_BYTES)
    return { ...entry, truncated: Object.hasOwn(entry.parameters, TRUNCATION_NOTE) };
  return boundEntry(entry, { stored: true, ...(lost === undefined ? {} : { lost }) });
}

const entryBytes = (entry: ReadAuditEntry) => Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;

/**
 * A page of entries, newest first, and how many match in all. The page ends early, rather
 * than pass `maxBytes` (each entry's JSON counted), at the entry `next` names; -1 when none
 * follows.
 */
export async function queryAudit(
  sql: Sql,
  query: AuditQuery,
): Promise<{ total: number; next: number; entries: ReadAuditEntry[] }> {
  const filters = filterValues(query);
  const total = (await scalar<number>(sql, `SELECT COUNT(*) FROM AUDIT ${WHERE}`, filters)) ?? 0;
  const entries: ReadAuditEntry[] = [];
  let bytes = 0;
  const rows = await sql.all<AuditRow>(
    `SELECT ${COLUMNS} FROM AUDIT ${WHERE} ORDER BY SEQ DESC LIMIT ? OFFSET ?`,
    [...filters, query.pageSize, query.index],
  );
  for (const row of rows) {
    const entry = entryOf(row);
    const size = entryBytes(entry);
    if (query.maxBytes !== undefined && entries.length > 0 && bytes + size > query.maxBytes) break;
    bytes += size;
    entries.push(entry);
  }
  const next = query.index + entries.length < total ? query.index + entries.length : -1;
  return { total, next, entries };
}

/**
 * Up to `limit` entries matching the filters, newest first, older than the entry `before`
 * (a sequence number): an export reads a range in such batches, each a statement of its
 * own, so nothing holds the database between them. `last` is where the next batch starts.
 */
export async function auditBatch(
  sql: Sql,
  filters: AuditFilters,
  before: number,
  limit: number,
): Promise<{ entries: ReadAuditEntry[]; last: number | undefined }> {
  const rows = await sql.all<AuditRow>(
    `SELECT ${COLUMNS} FROM AUDIT ${WHERE} AND SEQ < ? ORDER BY SEQ DESC LIMIT ?`,
    [...filterValues(filters), before, limit],
  );
  return { entries: rows.map(entryOf), last: rows.at(-1)?.SEQ };
}

/** The sequence number after the newest entry: an export's range ends before it. */
export async function nextAuditSeq(sql: Sql): Promise<number> {
  return (
    ((await sql.get<{ seq: number | null }>('SELECT MAX(SEQ) AS "seq" FROM AUDIT'))?.seq ?? 0) + 1
  );
}
