import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completion } from '../db/action/cache.ts';
import { actionMigrations } from '../db/action/migrations.ts';
import { openDatabase } from '../db/sqlite.ts';
import { parseDefinitions } from '../pipelines/definition.ts';
import { JointThread, JointWriteFailure, type TableSpec } from './joint-thread.ts';
import { encodeRows } from './stage-wire.ts';

const folder = mkdtempSync(join(tmpdir(), 'joint-thread-'));
const db = openDatabase(join(folder, 'action.db'), actionMigrations);
const thread = new JointThread(db);
afterAll(async () => {
  await thread.close();
  db.close();
  rmSync(folder, { recursive: true, force: true });
});

const spec = (name: string): TableSpec => ({
  name,
  columns: [
    { name: 'ID', type: 'INTEGER', from: 'id' },
    { name: 'NAME', type: 'VARCHAR', from: 'name' },
  ],
});
const rows = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ id: from + i, name: `row ${from + i}` }));
const count = (table: string): number =>
  db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe("the Joint's writer thread", () => {
  it('writes in one transaction with its marker, and copies the log after the commit', async () => {
    const file = join(folder, 'action.db');
    const before = statSync(file).size;
    await thread.begin();
    await thread.table(spec('T'));
    await thread.file(join(folder, 'out.partial'), 'csv');
    for (let i = 0; i < 20; i++) await thread.rows(encodeRows(rows(i * 2500, 2500)));
    await thread.rows({ rows: rows(50_000, 3) });
    expect(await thread.commit('r1', 'pl_1')).toEqual([50_003, 50_003]);
    // The thread copied the log into the database; the main connection's own checkpoint,
    // off meanwhile, is back.
    await thread.whenCheckpointed();
    expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    expect(statSync(file).size).toBeGreaterThan(before + 500_000);
    expect(count('T')).toBe(50_003);
    expect(completion(db, 'r1', 'JointTables')).toEqual({ tables: ['T'] });
    const csv = readFileSync(join(folder, 'out.partial'), 'utf8').split('\n');
    expect(csv.slice(0, 2)).toEqual(['id,name', '0,row 0']);
  });

  it("writes a table too wide for 250 rows a statement within SQLite's limit on values", async () => {
    const width = 200;
    const wide: TableSpec = {
      name: 'WIDE',
      columns: Array.from({ length: width }, (_, c) => ({
        name: `C${c}`,
        type: 'INTEGER' as const,
        from: `c${c}`,
      })),
    };
    const row = (r: number) =>
      Object.fromEntries(Array.from({ length: width }, (_, c) => [`c${c}`, r * c]));
    await thread.begin();
    await thread.table(wide);
    await thread.rows(encodeRows(Array.from({ length: 400 }, (_, r) => row(r))));
    expect(await thread.commit('r-wide', 'pl_1')).toEqual([400]);
    expect(db.prepare('SELECT SUM(C199) FROM WIDE').pluck().get()).toBe(199 * ((399 * 400) / 2));
  });

  it('refuses a definition of more columns than SQLite allows a table, before any request', () => {
    const columns = (n: number) =>
      Array.from({ length: n }, (_, c) => ({ name: `C${c}`, type: 'INTEGER' }));
    const definition = (n: number) =>
      JSON.stringify({
        pipelines: [
          { id: 'pl_1', name: 'Wide', joint: [{ table: { name: 'W', columns: columns(n) } }] },
        ],
      });
    expect(parseDefinitions(definition(2000))).toHaveLength(1);
    expect(() => parseDefinitions(definition(2001))).toThrow(
      'pl_1: table W has 2001 columns; a table has at most 2000',
    );
  });

  it('rolls back a failed write, names the table, and removes its files', async () => {
    await thread.begin();
    await thread.table(spec('U'));
    const output = join(folder, 'u.partial');
    await thread.file(output, 'jsonl');
    await thread.rows(encodeRows(rows(0, 10)));
    const failure = await thread
      .rows(encodeRows([{ id: 'twelve', name: 'x' }]))
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(JointWriteFailure);
    expect(failure).toMatchObject({ table: 'U', message: expect.stringMatching(/not an integer/) });
    // The transaction stays failed until it is rolled back.
    await expect(thread.commit('r2', 'pl_1')).rejects.toBeInstanceOf(JointWriteFailure);
    await thread.rollback();
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'U'").get()).toBeUndefined();
    expect(existsSync(output)).toBe(false);
    expect(completion(db, 'r2', 'JointTables')).toBeUndefined();
  });

  it('writes the same values from encoded rows as from objects, newest row last for a key', async () => {
    const keyed = (name: string): TableSpec => ({
      name,
      columns: [
        { name: 'ID', type: 'INTEGER', from: 'id', key: true },
        { name: 'NAME', type: 'VARCHAR', from: 'name' },
        { name: 'AMOUNT', type: 'DOUBLE', from: 'amount' },
        { name: 'MISSING', type: 'VARCHAR', from: 'absent' },
      ],
    });
    // 300 rows of ids 0–99: three versions of each key, across statements and batches.
    const source = Array.from({ length: 300 }, (_, i) => ({
      id: i % 100,
      name: i % 7 === 0 ? null : `v${i} é "q"`,
      amount: i % 5 === 0 ? '' : i / 4,
      flag: i % 2 === 0,
    }));
    for (const [table, encode] of [
      ['ENCODED', true],
      ['OBJECTS', false],
    ] as const) {
      await thread.begin();
      await thread.table(keyed(table));
      for (let from = 0; from < source.length; from += 70) {
        const batch = source.slice(from, from + 70);
        await thread.rows(encode ? encodeRows(batch) : { rows: batch });
      }
      expect(await thread.commit(`r-${table}`, 'pl_1')).toEqual([300]);
    }
    const read = (table: string) =>
      db.prepare(`SELECT * FROM ${table} ORDER BY ID`).all() as Record<string, unknown>[];
    expect(read('ENCODED')).toEqual(read('OBJECTS'));
    expect(read('ENCODED')).toHaveLength(100);
    expect(read('ENCODED')[1]).toEqual({ ID: 1, NAME: 'v201 é "q"', AMOUNT: 50.25, MISSING: null });
  });
});
