import { execFileSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { startChild } from '../testing/child.ts';
import { ordersCsv, writeTestPipelines } from '../testing/pipelines.ts';
import { eventually, startService, TEST_API_KEY, type TestService } from '../testing/service.ts';

// Inputs that used to hold the engine (a huge record), operators meeting a busy action
// database, restarts after a crash, and a full disk.

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  folders.push(folder);
  return folder;
}

/** A CSV whose one data record is `megabytes` long: no newline until its end. */
async function writeOneHugeRecord(path: string, megabytes: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,amount,note\n1,5,');
  const chunk = 'y'.repeat(1 << 20);
  for (let i = 0; i < megabytes; i++)
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
  out.end('\n');
  await finished(out);
}

async function statusOf(service: TestService, requestId: string) {
  return (await service.client.requestDetail(requestId)).status;
}

describe('a huge record', () => {
  it('fails its request at once with the limit named, and leaves no copy of the input', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(tempFolder('huge-defs-')),
      limits: { maxRecordChars: 64 * 1024 },
    });
    try {
      await writeOneHugeRecord(join(service.dataDir, 'inbox', 'huge.csv'), 8);
      const { requestId } = await service.client.exec('pl_1', 'huge.csv');
      await service.app.engine.whenIdle();
      const detail = await service.client.requestDetail(requestId as string);
      expect(detail.status).toBe('Error');
      expect(detail.stage).toBe('Sensor');
      const withLog = await service.client.requestDetail(requestId as string, { appLog: true });
      expect((withLog.appLog ?? []).map((l) => l.message).join('\n')).toContain(
        '65,536 characters',
      );
      const cache = join(service.dataDir, 'cache', 'pl_1', requestId as string);
      expect(existsSync(join(cache, 'sensor'))).toBe(false);
      expect(existsSync(join(cache, 'sensor.partial'))).toBe(false);
    } finally {
      await service.close();
    }
  });

  it('a cancel stops a request while its Sensor is still reading one long record', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(tempFolder('cancel-defs-')),
      limits: { maxRecordChars: 512 * 1024 * 1024, maxFieldChars: 512 * 1024 * 1024 },
    });
    try {
      await writeOneHugeRecord(join(service.dataDir, 'inbox', 'long.csv'), 160);
      const { requestId } = await service.client.exec('pl_1', 'long.csv');
      const id = requestId as string;
      await eventually(
        async () => ((await statusOf(service, id)) === 'Process' ? true : undefined),
        'the request to run',
      );
      await service.client.cancel(id);
      // Before, the parser held the whole record before the first checkpoint: the cancel
      // waited for the whole file (minutes at this size with the old parser).
      await eventually(
        async () => ((await statusOf(service, id)) === 'Stop' ? true : undefined),
        'the request to stop',
      );
    } finally {
      await service.close();
    }
  });

  it('SIGTERM ends the process cleanly while a Sensor reads one long record', async () => {
    const data = tempFolder('sigterm-');
    mkdirSync(join(data, 'inbox'));
    await writeOneHugeRecord(join(data, 'inbox', 'long.csv'), 160);
    const child = await startChild([
      '--data',
      data,
      '--pipelines',
      writeTestPipelines(data),
      '--no-demo',
      '--api-key',
      TEST_API_KEY,
      '--max-record-kb',
      String(512 * 1024),
      '--max-field-kb',
      String(512 * 1024),
    ]);
    const client = new PipelineClient({ baseUrl: child.url, apiKey: TEST_API_KEY });
    const { requestId } = await client.exec('pl_1', 'long.csv');
    await eventually(
      async () =>
        (await client.requestDetail(requestId as string)).status === 'Process' ? true : undefined,
      'the request to run',
    );
    child.process.kill('SIGTERM');
    // 0 is the graceful exit; the 30 s safety net would exit with 1.
    expect(await child.exited).toBe(0);
  });
});

/** Rows of pl_1 that `ordersCsv(rows)` keeps (amount >= 10: ids whose rest by 50 is 10 or more). */
const keptOrders = (rows: number): number =>
  Array.from({ length: rows }, (_, i) => (i + 1) % 50 >= 10).filter(Boolean).length;

function countOf(service: TestService, table: string): number {
  return service.app.context.dbs.action
    .prepare(`SELECT COUNT(*) FROM "${table}"`)
    .pluck()
    .get() as number;
}

function stagedTables(service: TestService): string[] {
  return service.app.context.dbs.action
    .prepare("SELECT name FROM sqlite_master WHERE name LIKE '\\_JOINT\\_%' ESCAPE '\\'")
    .pluck()
    .all() as string[];
}

/** Starts an ingest of pl_1 into ORDERS (made beforehand) and resolves once its Joint writes. */
async function startLongIngest(service: TestService, rows: number): Promise<string> {
  writeFileSync(join(service.dataDir, 'inbox', 'many.csv'), ordersCsv(rows));
  // ORDERS exists (and shows in the catalogue) once a first request committed to it.
  writeFileSync(join(service.dataDir, 'inbox', 'few.csv'), ordersCsv(3));
  await service.client.exec('pl_1', 'few.csv');
  await service.app.engine.whenIdle();
  const { requestId } = await service.client.exec('pl_1', 'many.csv');
  await eventually(
    () => (service.app.engine.isTableInUse('ORDERS') ? true : undefined),
    'the Joint',
  );
  return requestId as string;
}

describe('operators meeting a busy action database', () => {
  it('deletetable, droptable and pipelinecache of other tables are answered while an ingest runs', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(tempFolder('busy-defs-')),
      limits: { actionWaitMs: 2000 },
    });
    try {
      const action = service.app.context.dbs.action;
      action.exec('CREATE TABLE OTHER (ID INTEGER); INSERT INTO OTHER VALUES (1), (2), (3)');
      action.exec('CREATE TABLE GONE (ID INTEGER); INSERT INTO GONE VALUES (1), (2)');
      const rows = 1_000_000;
      const requestId = await startLongIngest(service, rows);
      const timed = async (path: string) => {
        const started = performance.now();
        const response = await service.keyed(path, { method: 'DELETE' });
        return {
          status: response.status,
          text: await response.text(),
          ms: performance.now() - started,
        };
      };
      const deleted = await timed('/pipelineapi/deletetable/json?table=OTHER');
      const dropped = await timed('/pipelineapi/droptable/json?table=GONE');
      const cleared = await timed('/pipelineapi/pipelinecache/json?pipelineid=pl_2&filter=true');
      // Before, each waited 2 s for the Joint's one transaction and answered 409.
      expect([deleted, dropped, cleared].map((a) => a.status)).toEqual([200, 200, 200]);
      expect(JSON.parse(deleted.text).ExecuteResponse.RowCount).toBe(3);
      expect(JSON.parse(dropped.text).ExecuteResponse.RowCount).toBe(2);
      // Answered while the ingest still ran, as its own status says.
      expect(await statusOf(service, requestId)).toBe('Process');
      // The table being written is still refused at once.
      const inUse = await timed('/pipelineapi/deletetable/json?table=ORDERS');
      expect(inUse.status).toBe(409);
      console.info(
        `answered during the ingest: deletetable ${deleted.ms.toFixed(0)} ms, droptable ${dropped.ms.toFixed(0)} ms, pipelinecache ${cleared.ms.toFixed(0)} ms`,
      );
      // Until its commit the Joint's rows are nowhere the clients look.
      expect(countOf(service, 'ORDERS')).toBe(0);
      await service.app.engine.whenIdle();
      expect(await statusOf(service, requestId)).toBe('Finish');
      expect(countOf(service, 'ORDERS')).toBe(keptOrders(rows));
      expect(countOf(service, 'OTHER')).toBe(0);
      expect(service.app.context.dbs.catalogues.action.find(action, 'GONE')).toBeUndefined();
      expect(stagedTables(service)).toEqual([]);
      // Where a Joint cannot give way (its last transaction, which moves its rows into their
      // tables) the wait is still bounded, and the answer names the request.
      const release = await service.app.engine.actionLock.acquire(requestId);
      try {
        const held = await timed('/pipelineapi/deletetable/xml?table=OTHER');
        expect(held.status).toBe(409);
        expect(held.text).toContain(`being written by request ${requestId}`);
      } finally {
        release();
      }
    } finally {
      await service.close();
    }
  });

  it('a Joint that gave way to an operator and is then cancelled leaves its table as it was', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(tempFolder('yield-cancel-defs-')),
    });
    try {
      service.app.context.dbs.action.exec('CREATE TABLE OTHER (ID INTEGER)');
      const requestId = await startLongIngest(service, 1_000_000);
      // Makes the Joint commit what it staged so far and step aside.
      const other = await service.keyed('/pipelineapi/deletetable/xml?table=OTHER', {
        method: 'DELETE',
      });
      expect(other.status).toBe(200);
      await service.client.cancel(requestId);
      await service.app.engine.whenIdle();
      expect(await statusOf(service, requestId)).toBe('Stop');
      expect(countOf(service, 'ORDERS')).toBe(0);
      expect(stagedTables(service)).toEqual([]);
      // And its retry writes every row once.
      await service.client.retry(requestId);
      await service.app.engine.whenSettled();
      expect(await statusOf(service, requestId)).toBe('Finish');
      expect(countOf(service, 'ORDERS')).toBe(keptOrders(1_000_000));
    } finally {
      await service.close();
    }
  });
});

describe('a full action database (max_page_count, as a full disk answers SQLITE_FULL)', () => {
  it('ends the request in Error within seconds, keeps nothing of it, and its retry writes each row once', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(tempFolder('full-pages-defs-')),
    });
    try {
      const action = service.app.context.dbs.action;
      const rows = 20_000;
      const lines = Array.from({ length: rows }, (_, i) => `{"kind":"k${i % 7}","n":${i}}\n`);
      writeFileSync(join(service.dataDir, 'inbox', 'events.jsonl'), lines.join(''));
      const unbounded = action.pragma('max_page_count', { simple: true }) as number;
      const pages = action.pragma('page_count', { simple: true }) as number;
      // Room for a few pages: far less than 20,000 rows.
      action.pragma(`max_page_count = ${pages + 4}`);
      const started = performance.now();
      const { requestId } = await service.client.exec('pl_2', 'events.jsonl');
      const id = requestId as string;
      const failed = await eventually(
        async () => {
          const d = await service.client.requestDetail(id, { appLog: true });
          return d.status === 'Error' ? d : d.status === 'Finish' ? 'finished' : undefined;
        },
        'the request to fail',
        5_000,
      );
      if (failed === 'finished') throw new Error('the request finished on a full database');
      console.info(`Error after ${(performance.now() - started).toFixed(0)} ms`);
      expect(failed.stage).toBe('Joint');
      expect((failed.appLog ?? []).map((l) => l.message).join('\n')).toContain(
        'The disk of the data folder is full',
      );
      // No partial cache of its Filter's output and nothing staged: the space is left for
      // others, and the retry redoes the Filter from the Sensor's snapshot.
      expect(
        action.prepare('SELECT COUNT(*) FROM _CACHE WHERE REQUESTID = ?').pluck().get(id),
      ).toBe(0);
      expect(stagedTables(service)).toEqual([]);
      expect(service.app.context.dbs.catalogues.action.find(action, 'EVENTS')).toBeUndefined();

      // Space is back.
      action.pragma(`max_page_count = ${unbounded}`);
      await service.client.retry(id);
      await service.app.engine.whenSettled();
      const detail = await service.client.requestDetail(id);
      expect(detail.status).toBe('Finish');
      expect(detail.jointRows).toBe(rows);
      expect(countOf(service, 'EVENTS')).toBe(rows);
      expect(action.prepare('SELECT COUNT(DISTINCT N) FROM EVENTS').pluck().get() as number).toBe(
        rows,
      );
      await expect(service.client.retry(id)).rejects.toMatchObject({ status: 409 });
    } finally {
      await service.close();
    }
  });
});

describe('restart after a crash', () => {
  it('a running request whose cancel was accepted ends Stop; one picked but not begun waits again', async () => {
    const definitions = writeTestPipelines(tempFolder('recover-defs-'));
    const first = await startService({ pipelinesFile: definitions, keepData: true });
    const { dataDir } = first;
    // pl_3 is suspended: its requests wait, so nothing runs them under the test.
    const cancelled = (await first.client.exec('pl_3', 'orders.csv')).requestId as string;
    const picked = (await first.client.exec('pl_3', 'orders.csv')).requestId as string;
    const day = cancelled.slice(5, 13);
    await first.close();
    // What a crash leaves: one request running with its cancel recorded (as the engine
    // records it before answering), one marked Start by the scheduler before it began.
    const raw = new Database(join(dataDir, 'status.db'));
    const set = raw.prepare(`UPDATE STATUS${day} SET STATUS = ? WHERE REQUESTID = ?`);
    set.run('Process', cancelled);
    set.run('Start', picked);
    raw.prepare('UPDATE REQUEST_QUEUE SET CANCELREQUESTED = 1 WHERE REQUESTID = ?').run(cancelled);
    raw.close();
    const second = await startService({ pipelinesFile: definitions, dataDir });
    try {
      expect(await statusOf(second, cancelled)).toBe('Stop');
      expect(await statusOf(second, picked)).toBe('Wait');
    } finally {
      await second.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

/** Mounts a small tmpfs, or says why it can't (not root, no mount in this sandbox). */
function mountSmallFilesystem(megabytes: number): { path: string; unmount: () => void } | string {
  if (process.getuid?.() !== 0)
    return 'mounting a small tmpfs needs root, and the tests do not run as root';
  const path = tempFolder('full-');
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', path], {
      stdio: 'ignore',
    });
  } catch {
    return 'mounting a small tmpfs needs CAP_SYS_ADMIN, which this machine does not give';
  }
  return { path, unmount: () => execFileSync('umount', ['-l', path], { stdio: 'ignore' }) };
}

/** Why a full disk cannot be made here, or undefined when it can (probed once). */
const cannotFillDisk = (() => {
  const probe = mountSmallFilesystem(1);
  if (typeof probe === 'string') return probe;
  probe.unmount();
  return undefined;
})();

describe.skipIf(cannotFillDisk !== undefined)(
  `a full disk${cannotFillDisk ? ` (skipped: ${cannotFillDisk})` : ''}`,
  () => {
    it('ends the request in Error with a clear message, leaves it retryable, and never answers 500', async () => {
      const filesystem = mountSmallFilesystem(24);
      if (typeof filesystem === 'string') throw new Error(filesystem);
      const dataDir = join(filesystem.path, 'data');
      const service = await startService({
        dataDir,
        pipelinesFile: writeTestPipelines(tempFolder('full-defs-')),
      });
      const filler = join(filesystem.path, 'filler');
      try {
        writeFileSync(join(dataDir, 'inbox', 'orders.csv'), ordersCsv(60_000));
        // Everything but about 1 MB of the disk: the input's rows and output file need more.
        const free = () =>
          Number(
            execFileSync('df', ['-B1', '--output=avail', filesystem.path])
              .toString()
              .split('\n')[1],
          );
        writeFileSync(filler, Buffer.alloc(Math.max(0, free() - 1024 * 1024)));
        const { requestId } = await service.client.exec('pl_1', 'orders.csv');
        const id = requestId as string;
        await service.app.engine.whenIdle();
        // Calls while the disk is full: never a 500.
        const exec = await service.keyed('/pipelineapi/exec/xml', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'pipelineid=pl_1&filename=orders.csv',
        });
        expect([200, 503]).toContain(exec.status);
        const login = await service.fetch('/mcapi/auth/login', {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'userName=admin&password=wrong-password-1',
        });
        expect([403, 503]).toContain(login.status);
        rmSync(filler);
        await service.app.engine.whenIdle();
        const detail = await eventually(async () => {
          const d = await service.client.requestDetail(id, { appLog: true });
          return d.status === 'Error' ? d : undefined;
        }, 'the failure to be recorded');
        expect((detail.appLog ?? []).map((l) => l.message).join('\n')).toContain(
          'disk of the data folder is full',
        );
        await service.client.retry(id);
        await service.app.engine.whenIdle();
        await eventually(
          async () => ((await statusOf(service, id)) === 'Finish' ? true : undefined),
          'the retry',
        );
      } finally {
        await service.close();
        filesystem.unmount();
      }
    });

    it('a Joint that fills the disk ends in Error within seconds while the disk is still full', async () => {
      const filesystem = mountSmallFilesystem(48);
      if (typeof filesystem === 'string') throw new Error(filesystem);
      const dataDir = join(filesystem.path, 'data');
      const service = await startService({
        dataDir,
        pipelinesFile: writeTestPipelines(tempFolder('full-joint-defs-')),
      });
      const filler = join(filesystem.path, 'filler');
      try {
        const rows = 300_000;
        const lines = Array.from({ length: rows }, (_, i) => `{"kind":"k${i % 7}","n":${i}}\n`);
        const input = lines.join('');
        writeFileSync(join(dataDir, 'inbox', 'events.jsonl'), input);
        const free = () =>
          Number(
            execFileSync('df', ['-B1', '--output=avail', filesystem.path])
              .toString()
              .split('\n')[1],
          );
        // Room for the Sensor's snapshot of the input and about 2 MB more: the table's
        // rows need several.
        writeFileSync(filler, Buffer.alloc(Math.max(0, free() - input.length - 2 * 1024 * 1024)));
        const started = performance.now();
        const { requestId } = await service.client.exec('pl_2', 'events.jsonl');
        const id = requestId as string;
        // Before, its status stayed Process: the Filter's cache refilled the disk after the
        // rollback, and the Error could not be written while the disk was full.
        const failed = await eventually(
          async () => {
            const d = await service.client.requestDetail(id, { appLog: true });
            return d.status === 'Error' ? d : undefined;
          },
          'the request to fail while the disk is full',
          10_000,
        );
        console.info(`Error after ${(performance.now() - started).toFixed(0)} ms`);
        expect((failed.appLog ?? []).map((l) => l.message).join('\n')).toContain(
          'The disk of the data folder is full',
        );
        rmSync(filler);
        await service.client.retry(id);
        await service.app.engine.whenSettled();
        expect(await statusOf(service, id)).toBe('Finish');
        expect(countOf(service, 'EVENTS')).toBe(rows);
      } finally {
        await service.close();
        filesystem.unmount();
      }
    });
  },
);
