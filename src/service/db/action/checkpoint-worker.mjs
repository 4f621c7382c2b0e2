// Copies the action database's write-ahead log into the database file on a thread of its
// own (see checkpointer.ts). Plain JavaScript: it needs nothing of the service's TypeScript.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
parentPort.on('message', () => {
  let error;
  try {
    // PASSIVE: copies what no reader still needs and never waits for a writer.
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  }
  parentPort.postMessage({ error });
});
