import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { xmlToTree } from '../../kit/index.ts';
import { startChild } from '../testing/child.ts';
import { startService, TEST_API_KEY, type TestService } from '../testing/service.ts';
import { AnswerCache } from './answer-cache.ts';

// Bounds on answers and connections: the answer cache holds at most its bytes, a page too
// large to build is refused with a 400 naming the limit, and slow or surplus connections
// are closed instead of held.

describe('the answer cache', () => {
  it('never holds more than its bytes and never keeps an answer over the entry bound', () => {
    const cache = new AnswerCache(10_000, 3_000);
    for (let i = 0; i < 600; i++) {
      cache.set(`page-${i}`, { version: 1, body: Buffer.alloc(1000 + (i % 7) * 300) });
      expect(cache.size).toBeLessThanOrEqual(10_000);
    }
    cache.set('huge', { version: 1, body: Buffer.alloc(3_001) });
    expect(cache.get('huge')).toBeUndefined();
    // The most recent survive; the oldest went first.
    expect(cache.get('page-599')).toBeDefined();
    expect(cache.get('page-0')).toBeUndefined();
    // Replacing an entry does not count it twice.
    cache.set('page-599', { version: 2, body: Buffer.alloc(1000) });
    cache.set('page-599', { version: 3, body: Buffer.alloc(1000) });
    expect(cache.size).toBeLessThanOrEqual(10_000);
    expect(cache.get('page-599')?.version).toBe(3);
  });
});

describe('bounded answers and connections', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startService({
      limits: {
        maxAnswerBytes: 256 * 1024,
        headersTimeoutMs: 500,
        requestTimeoutMs: 1000,
        maxConnections: 4,
      },
    });
    // A table of wide rows: 40 rows of 20 KB each, about 800 KB in all.
    const action = service.app.context.dbs.action;
    action.exec('CREATE TABLE WIDE (ID INTEGER PRIMARY KEY, TEXT VARCHAR)');
    const insert = action.prepare('INSERT INTO WIDE (ID, TEXT) VALUES (?, ?)');
    for (let i = 1; i <= 40; i++) insert.run(i, 'x'.repeat(20_000));
    service.app.context.dbs.touch();
  });

  afterAll(async () => {
    await service.close();
  });

  it('a page larger than the answer limit is a 400 naming the limit; a smaller page works', async () => {
    for (const type of ['xml', 'json', 'htm']) {
      const response = await service.keyed(
        `/pipelineapi/actiondb/${type}?tablename=WIDE&pagesize=40`,
      );
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).toContain('256 KiB');
      expect(text).toContain('pagesize');
    }
    const small = await service.keyed('/pipelineapi/actiondb/xml?tablename=WIDE&pagesize=5');
    expect(small.status).toBe(200);
    const tree = xmlToTree(await small.text()) as { Result: { Record: unknown[] } };
    expect(tree.Result.Record).toHaveLength(5);
  });

  it('a client that trickles its headers is cut off', async () => {
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('GET /pipelineapi/version/xml HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const closed = await new Promise<string>((resolve) => {
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.once('close', () => resolve(answer));
      // Keeps sending a header line now and then, never finishing the request.
      const drip = setInterval(() => socket.write('X-Slow: 1\r\n'), 100);
      socket.once('close', () => clearInterval(drip));
    });
    expect(closed === '' || closed.startsWith('HTTP/1.1 408')).toBe(true);
  });

  it('connections past the cap are closed as they arrive', async () => {
    const port = Number(new URL(service.url).port);
    const open: Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      open.push(socket);
    }
    const extra = connect(port, '127.0.0.1');
    const outcome = await new Promise<string>((resolve) => {
      let answer = '';
      extra.once('connect', () =>
        extra.write(
          'GET /pipelineapi/version/xml HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ),
      );
      extra.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      extra.once('error', () => resolve('error'));
      extra.once('close', () => resolve(answer === '' ? 'closed' : answer));
    });
    expect(['closed', 'error']).toContain(outcome);
    for (const socket of open) socket.destroy();
    // Once they are gone, calls are served again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await service.keyed('/pipelineapi/version/xml')).status).toBe(200);
  });
});

describe('memory after many distinct large answers', () => {
  it('stays near the cache bound instead of keeping every answer', async () => {
    const data = mkdtempSync(join(tmpdir(), 'answers-'));
    const action = new Database(join(data, 'action.db'));
    action.exec('CREATE TABLE WIDE (ID INTEGER PRIMARY KEY, TEXT VARCHAR)');
    const insert = action.prepare('INSERT INTO WIDE (ID, TEXT) VALUES (?, ?)');
    for (let i = 1; i <= 500; i++) insert.run(i, String(i).padEnd(1024 * 1024, 'x'));
    action.close();
    const child = await startChild(['--data', data, '--no-demo', '--api-key', TEST_API_KEY]);
    try {
      const rss = () => {
        const status = readFileSync(`/proc/${child.process.pid}/status`, 'utf8');
        return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024;
      };
      const get = (index: number) =>
        fetch(`${child.url}/pipelineapi/actiondb/json?tablename=WIDE&pagesize=1&index=${index}`, {
          headers: { 'X-Pipelinewebapi': TEST_API_KEY },
        }).then((r) => r.arrayBuffer());
      await get(0);
      const before = rss();
      for (let i = 0; i < 500; i++) expect((await get(i)).byteLength).toBeGreaterThan(1024 * 1024);
      const growth = rss() - before;
      // 500 answers of 1 MiB each: the old cache kept all of them (over 500 MB); this one
      // keeps at most its 64 MiB, plus garbage the collector has not yet returned.
      expect(growth).toBeLessThan(250 * 1024 * 1024);
    } finally {
      child.process.kill('SIGTERM');
      await child.exited;
      rmSync(data, { recursive: true, force: true });
    }
  }, 120_000);
});
