import { prepared, type Db } from '../sqlite.ts';
import type { AttemptLog, IndexChange } from './attempts.ts';

// A day's list as an upstream gives it, taken into the index (request-index.ts): what is
// new numbered in the day's order, what changed marked with its time, failures handed to
// the attempts log. One answer may hold a whole day of 100,000 requests.

/** A request as an upstream's requestlist shows it (interfaces.md's fields). */
export interface ListedRequest {
  readonly requestId: string;
  readonly pipelineId: string;
  readonly name: string;
  readonly status: string;
  readonly stage: string;
  /** `YYYY-MM-DD hh:mm:ss` in the service's zone. */
  readonly beginDate: string;
}

/**
 * Terminal by our contract's words alone. Any other status (an open set) counts as not
 * ended until a requestdetail shows its EndTime, which settles it for any vendor's words.
 */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['Finish', 'Error', 'Stop']);

/** Rows written per transaction of an ingest, with other calls let through between. */
const INGEST_CHUNK = 5000;

/** Request ids looked up per query of an ingest. */
const KNOWN_CHUNK = 20_000;

const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The hour of a begin date, or of the `_hh-` of the request id when the date is odd. */
function hourOf(request: ListedRequest): number {
  const fromDate = /^\d{4}-\d{2}-\d{2}[ T](\d{2})/.exec(request.beginDate)?.[1];
  const fromId = /_(\d{2})-\d+$/.exec(request.requestId)?.[1];
  const hour = Number(fromDate ?? fromId ?? 0);
  return hour >= 0 && hour < 24 ? hour : 0;
}

/** One requestlist answer of a service's day, as RequestIndex.ingest takes it. */
export type IngestArgs = [
  service: string,
  day: string,
  /** Newest first. */
  listed: readonly ListedRequest[],
  /** The upstream may have had older ones out of reach of this answer. */
  full: boolean,
  /** Our clock: the round's start, shared by all its answers. */
  nowMs: number,
];

/** What an ingest took in. */
export interface Ingested {
  readonly added: number;
  readonly changed: number;
  /** The answer was full and its oldest request new this round: older ones may be missing. */
  readonly gap: boolean;
  /** Requests seen in a status they were not in before (metrics). */
  readonly entered: ListedRequest[];
}

/**
 * Takes in one requestlist answer of a day (newest first; RequestIndex.ingest), `full` when
 * the upstream may have had older ones out of reach of it. New requests are numbered oldest first; a
 * known one whose status or stage changed gets `changedMs`. `gap`: the answer was full
 * and its oldest request is new this round, so requests older than it may be missing.
 *
 * A whole day of a vendor that answers it in one piece is 100,000 rows: what is known is
 * read in one query, and the writes go in transactions of INGEST_CHUNK rows with the
 * event loop let through between them, so that no other call waits for all of them.
 */
export async function ingestListed(
  db: Db,
  attempts: AttemptLog,
  ...[service, day, listed, full, nowMs]: IngestArgs
): Promise<Ingested> {
  const known = new Map<string, { status: string; stage: string; first: number }>();
  const ids = listed.map((r) => r.requestId);
  // The known rows of these requests, whatever day the index filed them under.
  for (let i = 0; i < ids.length; i += KNOWN_CHUNK) {
    const rows = prepared(
      db,
      `SELECT request_id AS id, status, stage, first_ms AS first FROM indexed_request
       WHERE service = ? AND request_id IN (SELECT value FROM json_each(?))`,
    ).all(service, JSON.stringify(ids.slice(i, i + KNOWN_CHUNK))) as {
      id: string;
      status: string;
      stage: string;
      first: number;
    }[];
    for (const row of rows) known.set(row.id, row);
  }
  // New to this round (whose rounds share one `nowMs`), not only to this answer: a
  // pipeline's list of the same round must not count as reaching further back.
  const oldest = listed.at(-1);
  const firstSeen = oldest === undefined ? undefined : known.get(oldest.requestId)?.first;
  const gap = full && oldest !== undefined && (firstSeen === undefined || firstSeen >= nowMs);
  const counters = prepared(
    db,
    'SELECT first_seq, last_seq FROM indexed_service WHERE service = ?',
  ).get(service) as { first_seq: number; last_seq: number } | undefined;
  if (!counters) prepared(db, 'INSERT INTO indexed_service (service) VALUES (?)').run(service);
  let seq = counters?.last_seq ?? 0;
  let first = counters?.first_seq ?? 1;
  // New requests listed after the oldest known one are older than everything known (a
  // pipeline's list reaching further back): numbered below, newest first. The others
  // are newer: numbered above, oldest first.
  let lastKnown = -1;
  for (let i = listed.length - 1; i >= 0 && lastKnown < 0; i--)
    if (known.has((listed[i] as ListedRequest).requestId)) lastKnown = i;
  const seqOf = new Map<string, number>();
  for (let i = lastKnown + 1; i < listed.length && lastKnown >= 0; i++)
    seqOf.set((listed[i] as ListedRequest).requestId, --first);
  const inserts: unknown[][] = [];
  const updates: unknown[][] = [];
  const seen: string[] = [];
  // What the attempts log takes in: status changes, and new requests already failing.
  const changes: IndexChange[] = [];
  // Requests seen in a status they were not in before (metrics): a new one's Wait is its
  // creation, not a change.
  const entered: ListedRequest[] = [];
  for (let i = listed.length - 1; i >= 0; i--) {
    const r = listed[i] as ListedRequest;
    const before = known.get(r.requestId);
    const terminal = TERMINAL_STATUSES.has(r.status) ? 1 : 0;
    if (!before) {
      // A request listed twice in one answer is taken once.
      known.set(r.requestId, { status: r.status, stage: r.stage, first: nowMs });
      if (attempts.isFailed(service, r.status))
        changes.push({ requestId: r.requestId, before: null, status: r.status, stage: r.stage });
      if (r.status !== 'Wait') entered.push(r);
      inserts.push([
        service,
        r.requestId,
        day,
        seqOf.get(r.requestId) ?? ++seq,
        r.pipelineId,
        r.name,
        r.status,
        r.stage,
        r.beginDate,
        hourOf(r),
        terminal,
        nowMs,
        nowMs,
        nowMs,
      ]);
    } else if (before.status !== r.status || before.stage !== r.stage) {
      updates.push([r.status, r.stage, r.name, terminal, nowMs, nowMs, service, r.requestId]);
      if (before.status !== r.status)
        changes.push({
          requestId: r.requestId,
          before: { status: before.status, stage: before.stage, firstMs: before.first },
          status: r.status,
          stage: r.stage,
        });
      if (before.status !== r.status) entered.push(r);
      // Listed twice in one answer (a page boundary moving): one change, not two.
      known.set(r.requestId, { ...before, status: r.status, stage: r.stage });
    } else seen.push(r.requestId);
  }
  const insert = prepared(
    db,
    `INSERT INTO indexed_request (service, request_id, day, seq, pipeline_id, name, status,
       stage, begin_date, hour, terminal, first_ms, changed_ms, checked_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = prepared(
    db,
    `UPDATE indexed_request SET status = ?, stage = ?, name = ?, end_time = '',
       terminal = ?, changed_ms = ?, checked_ms = ? WHERE service = ? AND request_id = ?`,
  );
  const check = prepared(
    db,
    `UPDATE indexed_request SET checked_ms = ?
     WHERE service = ? AND request_id IN (SELECT value FROM json_each(?))`,
  );
  // Counters first: a chunk written is then never numbered again by a round that fails.
  prepared(db, 'UPDATE indexed_service SET first_seq = ?, last_seq = ? WHERE service = ?').run(
    first,
    seq,
    service,
  );
  for (let i = 0; i < inserts.length; i += INGEST_CHUNK) {
    db.transaction(() => {
      for (const values of inserts.slice(i, i + INGEST_CHUNK)) insert.run(...values);
    })();
    await yieldToEvents();
  }
  for (let i = 0; i < updates.length; i += INGEST_CHUNK) {
    db.transaction(() => {
      for (const values of updates.slice(i, i + INGEST_CHUNK)) update.run(...values);
    })();
    await yieldToEvents();
  }
  for (let i = 0; i < seen.length; i += INGEST_CHUNK) {
    check.run(nowMs, service, JSON.stringify(seen.slice(i, i + INGEST_CHUNK)));
    await yieldToEvents();
  }
  for (let i = 0; i < changes.length; i += INGEST_CHUNK) {
    attempts.seen(service, changes.slice(i, i + INGEST_CHUNK), nowMs);
    await yieldToEvents();
  }
  return { added: inserts.length, changed: updates.length, gap, entered };
}
