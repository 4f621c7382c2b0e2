import { rm } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import * as cache from '../db/action/cache.ts';
import { dropStagedTables, FileWriter, STAGE_PREFIX, TableWriter } from './joint.ts';
import type { FromJoint, ToJoint } from './joint-thread.ts';
import { decodeRows, type ColumnRows, type EncodedRows } from './stage-wire.ts';
import type { Row } from './values.ts';

// The Joint's writer thread (see joint-thread.ts): one transaction at a time on its own
// connection to the action database, driven by the main thread's messages. It keeps the
// process's priority: A/B runs of the ingest benchmark (load average 11–13) measured no
// better light-read latency with it at nice 10 (p99 during the ingest 14–34 ms against
// 27–34 ms) and it holds the action database's lock while it writes, so a lower priority
// would only keep operators' deletes waiting longer.

const port = parentPort;
if (!port) throw new Error('joint-worker.ts runs as a worker thread');

const db = new Database((workerData as { file: string }).file);
// As the main connection (sqlite.ts): durable across a process crash at WAL's cheap cost.
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
// A checkpoint inside the COMMIT would only delay the request's end: this thread copies the
// log after it has answered the commit.
db.pragma('wal_autocheckpoint = 0');

let tables: TableWriter[] = [];
let files: FileWriter[] = [];
/** The first failure of the open transaction's writes: later batches only repeat it. */
let failed: FromJoint | undefined;

function failure(error: unknown, table?: string): FromJoint {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    kind: 'failed',
    message: error instanceof Error ? error.message : String(error),
    code: typeof code === 'string' ? code : undefined,
    table,
  };
}

async function write(encoded: EncodedRows): Promise<FromJoint> {
  const started = performance.now();
  // Tables read the encoded rows as they lie; only files need them as objects.
  const rows = 'rows' in encoded || files.length > 0 ? decodeRows(encoded) : undefined;
  for (const writer of tables) {
    try {
      if (rows) writer.write(rows);
      else writer.writeColumns(encoded as ColumnRows);
    } catch (error) {
      return (failed = failure(error, writer.table));
    }
  }
  try {
    for (const writer of files) await writer.write(rows as Row[]);
  } catch (error) {
    return (failed = failure(error));
  }
  return { kind: 'done', ms: performance.now() - started };
}

async function handle(message: ToJoint): Promise<FromJoint> {
  switch (message.kind) {
    case 'begin':
      tables = [];
      files = [];
      failed = undefined;
      db.pragma(`max_page_count = ${Math.trunc(message.maxPages)}`);
      // What others committed since the last Joint goes into the database first: the log
      // then holds this Joint's rows alone, and a rollback can give all of its space back.
      checkpoint('PASSIVE');
      db.exec('BEGIN IMMEDIATE');
      // Left by a Joint whose rollback could not drop them, or by a crash.
      dropStagedTables(db);
      break;
    case 'table':
      tables.push(new TableWriter(db, message.spec, `${STAGE_PREFIX}${tables.length + 1}`));
      break;
    case 'file':
      files.push(new FileWriter(message.path, message.format));
      break;
    case 'rows':
      return failed ?? (await write(message.rows));
    case 'pause':
      if (failed) return failed;
      db.exec('COMMIT');
      break;
    case 'resume':
      db.exec('BEGIN IMMEDIATE');
      break;
    case 'commit': {
      if (failed) return failed;
      for (const writer of tables) {
        try {
          writer.flush();
        } catch (error) {
          return (failed = failure(error, writer.table));
        }
      }
      for (const writer of files) await writer.close();
      for (const writer of tables) {
        try {
          writer.finish();
        } catch (error) {
          return (failed = failure(error, writer.table));
        }
      }
      cache.markComplete(db, message.requestId, message.pipelineId, 'JointTables', {
        tables: tables.map((t) => t.table),
      });
      db.exec('COMMIT');
      return { kind: 'done', written: [...tables, ...files].map((w) => w.written) };
    }
    case 'rollback':
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const writer of files) {
        writer.destroy();
        await rm(writer.path, { force: true });
      }
      tables = [];
      files = [];
      failed = undefined;
      // Rows committed while the Joint gave way to others: a rollback takes them too.
      dropStagedTables(db);
      break;
  }
  return { kind: 'done' };
}

/**
 * After a commit, PASSIVE: copies what no reader still needs and never waits for anyone.
 * After a rollback, TRUNCATE: the log holds the rolled-back rows, and giving their space
 * back to the file system is what lets the request's Error be written when the disk is full.
 */
function checkpoint(mode: 'PASSIVE' | 'TRUNCATE'): FromJoint {
  try {
    if (!db.inTransaction) db.pragma(`wal_checkpoint(${mode})`);
    return { kind: 'checkpointed' };
  } catch (error) {
    return { kind: 'checkpointed', error: error instanceof Error ? error.message : String(error) };
  }
}

// One message at a time, in order: a batch's file writes wait for their streams.
let queue = Promise.resolve();
port.on('message', (message: ToJoint) => {
  queue = queue.then(async () => {
    let answer: FromJoint;
    try {
      answer = await handle(message);
    } catch (error) {
      answer = failure(error);
    }
    port.postMessage(answer);
    if (message.kind === 'commit') port.postMessage(checkpoint('PASSIVE'));
    else if (message.kind === 'rollback') port.postMessage(checkpoint('TRUNCATE'));
  });
});
