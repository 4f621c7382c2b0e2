import { prepared, type Db } from '../sqlite.ts';
import type { Row } from './row.ts';

/** Cache parts in the database: the Filter's output, and the marker that a Joint's table writes committed. */
export type CachePart = 'Filter' | 'JointTables';

const MARKER = -1;

// This part of the action cache lives in the action database's `_CACHE` table: one row per
// chunk of the Filter's output (a JSON array of rows) plus a marker row written when it was
// complete; chunks without their marker are replaced on the next run. The Sensor's output,
// a snapshot of the input file, is a file beside the databases (see engine/pass.ts).

export function clearPart(db: Db, requestId: string, part: CachePart): void {
  prepared(db, 'DELETE FROM _CACHE WHERE REQUESTID = ? AND STAGE = ?').run(requestId, part);
}

export function writeChunk(
  db: Db,
  requestId: string,
  pipelineId: string,
  part: CachePart,
  chunk: number,
  rows: readonly Row[],
): void {
  prepared(
    db,
    'INSERT INTO _CACHE (REQUESTID, PIPELINEID, STAGE, CHUNK, DATA) VALUES (?, ?, ?, ?, ?)',
  ).run(requestId, pipelineId, part, chunk, Buffer.from(JSON.stringify(rows)));
}

export function markComplete(
  db: Db,
  requestId: string,
  pipelineId: string,
  part: CachePart,
  meta: object,
): void {
  prepared(
    db,
    'INSERT OR REPLACE INTO _CACHE (REQUESTID, PIPELINEID, STAGE, CHUNK, DATA) VALUES (?, ?, ?, ?, ?)',
  ).run(requestId, pipelineId, part, MARKER, Buffer.from(JSON.stringify(meta)));
}

export function completion<T>(db: Db, requestId: string, part: CachePart): T | undefined {
  const row = prepared(
    db,
    'SELECT DATA FROM _CACHE WHERE REQUESTID = ? AND STAGE = ? AND CHUNK = ?',
  ).get(requestId, part, MARKER) as { DATA: Buffer } | undefined;
  return row ? (JSON.parse(row.DATA.toString('utf8')) as T) : undefined;
}

export function readChunk(
  db: Db,
  requestId: string,
  part: CachePart,
  chunk: number,
): Row[] | undefined {
  const row = prepared(
    db,
    'SELECT DATA FROM _CACHE WHERE REQUESTID = ? AND STAGE = ? AND CHUNK = ?',
  ).get(requestId, part, chunk) as { DATA: Buffer } | undefined;
  return row ? (JSON.parse(row.DATA.toString('utf8')) as Row[]) : undefined;
}

/** Deletes the cached parts of every request of a pipeline; returns the rows removed. */
export function clearPipelineParts(
  db: Db,
  pipelineId: string,
  parts: readonly CachePart[],
): number {
  let removed = 0;
  for (const part of parts) {
    removed += prepared(db, 'DELETE FROM _CACHE WHERE PIPELINEID = ? AND STAGE = ?').run(
      pipelineId,
      part,
    ).changes;
  }
  return removed;
}

export function clearRequest(db: Db, requestId: string): void {
  prepared(db, 'DELETE FROM _CACHE WHERE REQUESTID = ?').run(requestId);
}
