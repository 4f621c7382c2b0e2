import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { Checkpointer } from './checkpointer.ts';

const folder = mkdtempSync(join(tmpdir(), 'checkpointer-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the action database checkpointer', () => {
  it('commits without copying the log into the database, then copies it on its thread', async () => {
    const file = join(folder, 'action.db');
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE T (ID INTEGER, NAME TEXT)');
    const checkpointer = new Checkpointer(db);
    try {
      const empty = statSync(file).size;
      db.exec('BEGIN IMMEDIATE');
      const insert = db.prepare('INSERT INTO T VALUES (?, ?)');
      for (let i = 0; i < 50_000; i++) insert.run(i, `name ${i}`);
      checkpointer.commit();
      // Nothing was copied in the COMMIT: the rows are in the log only.
      expect(statSync(file).size).toBe(empty);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await checkpointer.whenDone();
      expect(statSync(file).size).toBeGreaterThan(empty + 500_000);
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(db.prepare('SELECT COUNT(*) FROM T').pluck().get()).toBe(50_000);
    } finally {
      await checkpointer.close();
      db.close();
    }
  });
});
