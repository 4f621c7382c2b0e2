import { inList, type Sql, type SqlValue } from '../sql.ts';
import type { IndexChange } from './attempt-record.ts';
import type { AttemptLog } from './attempts.ts';
import { IDS_PER_LOOKUP, paddedList, pieces, valuesRows } from './batches.ts';

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
const INGEST_CHUNK = 4096;

const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The hour of a begin date, or of the `_hh-` of the request id when the date is odd. */
function hourOf(request: ListedRequest): number {
  const fromDate = /^\d{4}-\d{2}-\d{2}[ T](\d{2})/.exec(request.beginDate)?.[1];
  const fromId = /_(\d{2})-\d+$/.exec(request.requestId)?.[1];
  const hour = Number(fromDate ?? fromId ?? 0);
  return hour >= 0 && hour < 24 ? hour : 0;
}

/** Whether a list runs oldest first: its last request began after its first. */
function listedAscending(listed: readonly ListedRequest[]): boolean {
  const first = listed[0]?.beginDate ?? '';
  const last = listed.at(-1)?.beginDate ?? '';
  // Begin dates are in one form by now (YYYY-MM-DD hh:mm:ss): their text sorts by time.
  return first !== '' && last > first;
}

/** One requestlist answer of a service's day, as RequestIndex.ingest takes it. */
export type IngestArgs = [
  service: string,
  day: string,
  /** As the upstream listed them: newest first, or oldest first. */
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
  /** The new request that began last, wherever the upstream listed it (its order is its own). */
  readonly newest: ListedRequest | undefined;
}

/** The columns of a new request, in the order `insertRow` gives them. */
const INSERT_COLUMNS = `service, request_id, day, seq, pipeline_id, name, status, stage, begin_date,
  hour, terminal, first_ms, changed_ms, checked_ms`;
const INSERT_WIDTH = 14;

/**
 * A known request's new status and stage, as a multi-row upsert on its key: the row exists
 * (it was read this ingest, and nothing deletes one), so only the SET part applies, and the
 * VALUES carry the new values (the others only satisfy NOT NULL). One statement updates
 * many rows in both engines, where an UPDATE per row would be a round trip each.
 */
const UPDATE_SET = `ON CONFLICT (service, request_id) DO UPDATE SET status = excluded.status,
  stage = excluded.stage, name = excluded.name, end_time = '', terminal = excluded.terminal,
  changed_ms = excluded.changed_ms, checked_ms = excluded.checked_ms`;

/** Writes `rows` (INSERT_WIDTH values each) in statements of many rows. */
async function writeRows(sql: Sql, rows: readonly SqlValue[][], upsert: boolean): Promise<void> {
  for (const piece of pieces(rows))
    await sql.run(
      `INSERT INTO indexed_request (${INSERT_COLUMNS}) VALUES ${valuesRows(piece.length, INSERT_WIDTH)}${
        upsert ? ` ${UPDATE_SET}` : ''
      }`,
      piece.flat(),
    );
}

/** The known rows of these requests, whatever day the index filed them under. */
async function knownOf(
  sql: Sql,
  service: string,
  ids: readonly string[],
): Promise<Map<string, { status: string; stage: string; first: number }>> {
  const known = new Map<string, { status: string; stage: string; first: number }>();
  for (let i = 0; i < ids.length; i += IDS_PER_LOOKUP) {
    const chunk = paddedList(ids.slice(i, i + IDS_PER_LOOKUP));
    const rows = await sql.all<{ id: string; status: string; stage: string; first: number }>(
      `SELECT request_id AS "id", status AS "status", stage AS "stage", first_ms AS "first"
       FROM indexed_request WHERE service = ? AND ${inList('request_id', chunk)}`,
      [service, ...chunk],
    );
    for (const row of rows) known.set(row.id, row);
  }
  return known;
}

/**
 * Takes in one requestlist answer of a day (newest first; RequestIndex.ingest), `full` when
 * the upstream may have had older ones out of reach of it. New requests are numbered oldest first; a
 * known one whose status or stage changed gets `changedMs`. `gap`: the answer was full
 * and its oldest request is new this round, so requests older than it may be missing.
 *
 * A whole day of a vendor that answers it in one piece is 100,000 rows: what is known is
 * read in a few queries, and the writes go in statements of many rows, in transactions of
 * INGEST_CHUNK rows with the event loop let through between them, so that no other call
 * waits for all of them.
 */
export async function ingestListed(
  sql: Sql,
  attempts: AttemptLog,
  ...[service, day, asListed, full, nowMs]: IngestArgs
): Promise<Ingested> {
  // interfaces.md's example lists newest first, and a vendor may list oldest first (as a
  // table is): taken newest first here. Cut short, such a list leaves out the newest, which
  // no later round shows either: requests may be missing whatever was known.
  const ascending = listedAscending(asListed);
  const listed = ascending ? [...asListed].reverse() : asListed;
  const known = await knownOf(
    sql,
    service,
    listed.map((r) => r.requestId),
  );
  // New to this round (whose rounds share one `nowMs`), not only to this answer: a
  // pipeline's list of the same round must not count as reaching further back.
  const oldest = listed.at(-1);
  const firstSeen = oldest === undefined ? undefined : known.get(oldest.requestId)?.first;
  const gap =
    full && oldest !== undefined && (ascending || firstSeen === undefined || firstSeen >= nowMs);
  const counters = await sql.get<{ first: number; last: number }>(
    'SELECT first_seq AS "first", last_seq AS "last" FROM indexed_service WHERE service = ?',
    [service],
  );
  if (!counters)
    await sql.run(
      'INSERT INTO indexed_service (service) VALUES (?) ON CONFLICT (service) DO NOTHING',
      [service],
    );
  let seq = counters?.last ?? 0;
  let first = counters?.first ?? 1;
  // New requests listed after the oldest known one are older than everything known (a
  // pipeline's list reaching further back): numbered below, newest first. The others
  // are newer: numbered above, oldest first.
  let lastKnown = -1;
  for (let i = listed.length - 1; i >= 0 && lastKnown < 0; i--)
    if (known.has((listed[i] as ListedRequest).requestId)) lastKnown = i;
  const seqOf = new Map<string, number>();
  for (let i = lastKnown + 1; i < listed.length && lastKnown >= 0; i++)
    seqOf.set((listed[i] as ListedRequest).requestId, --first);
  const inserts: SqlValue[][] = [];
  // By request: one listed twice in an answer (a page boundary moving) is written once, as
  // last seen, since one statement may not change a row twice.
  const updates = new Map<string, SqlValue[]>();
  const seen: string[] = [];
  // What the attempts log takes in: status changes, and new requests already failing.
  const changes: IndexChange[] = [];
  // Requests seen in a status they were not in before (metrics): a new one's Wait is its
  // creation, not a change.
  const entered: ListedRequest[] = [];
  let newest: ListedRequest | undefined;
  for (let i = listed.length - 1; i >= 0; i--) {
    const r = listed[i] as ListedRequest;
    const before = known.get(r.requestId);
    const terminal = TERMINAL_STATUSES.has(r.status) ? 1 : 0;
    const row = (seqNo: number, firstMs: number): SqlValue[] => [
      service,
      r.requestId,
      day,
      seqNo,
      r.pipelineId,
      r.name,
      r.status,
      r.stage,
      r.beginDate,
      hourOf(r),
      terminal,
      firstMs,
      nowMs,
      nowMs,
    ];
    if (!before) {
      // A request listed twice in one answer is taken once.
      known.set(r.requestId, { status: r.status, stage: r.stage, first: nowMs });
      if (attempts.isFailed(service, r.status))
        changes.push({ requestId: r.requestId, before: null, status: r.status, stage: r.stage });
      if (r.status !== 'Wait') entered.push(r);
      // Begin dates are in one form by now (YYYY-MM-DD hh:mm:ss): their text sorts by time.
      if (newest === undefined || r.beginDate > newest.beginDate) newest = r;
      inserts.push(row(seqOf.get(r.requestId) ?? ++seq, nowMs));
    } else if (before.status !== r.status || before.stage !== r.stage) {
      updates.set(r.requestId, row(0, before.first));
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
  // Counters first: a chunk written is then never numbered again by a round that fails.
  await sql.run('UPDATE indexed_service SET first_seq = ?, last_seq = ? WHERE service = ?', [
    first,
    seq,
    service,
  ]);
  for (const [rows, upsert] of [
    [inserts, false],
    [[...updates.values()], true],
  ] as const)
    for (let i = 0; i < rows.length; i += INGEST_CHUNK) {
      await sql.transaction((tx) => writeRows(tx, rows.slice(i, i + INGEST_CHUNK), upsert));
      await yieldToEvents();
    }
  for (let i = 0; i < seen.length; i += INGEST_CHUNK) {
    await sql.transaction(async (tx) => {
      for (const piece of pieces(seen.slice(i, i + INGEST_CHUNK), IDS_PER_LOOKUP)) {
        const ids = paddedList(piece);
        await tx.run(
          `UPDATE indexed_request SET checked_ms = ? WHERE service = ? AND ${inList('request_id', ids)}`,
          [nowMs, service, ...ids],
        );
      }
    });
    await yieldToEvents();
  }
  for (let i = 0; i < changes.length; i += INGEST_CHUNK) {
    await attempts.seen(service, changes.slice(i, i + INGEST_CHUNK), nowMs);
    await yieldToEvents();
  }
  return { added: inserts.length, changed: updates.size, gap, entered, newest };
}
