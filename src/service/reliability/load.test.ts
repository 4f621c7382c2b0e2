import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PipelineClient } from '../../kit/index.ts';
import { startChild } from '../testing/child.ts';
import { TEST_API_KEY } from '../testing/service.ts';
import { writeTestPipelines } from '../testing/pipelines.ts';

// 200 concurrent clients for 30 s (RELIABILITY_SECONDS) against the service in its own
// process: reads, execs, retries and cancels mixed. Nothing may answer 5xx, every exec must
// be in the status database afterwards, and memory must come back near where it started.

const SECONDS = Number(process.env.RELIABILITY_SECONDS ?? 30);
const CLIENTS = 200;

const rss = (pid: number): number =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

const folder = mkdtempSync(join(tmpdir(), 'load-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('load', () => {
  it(
    `${CLIENTS} clients for ${SECONDS} s: no 5xx, every exec recorded, memory back near its start`,
    async () => {
      const data = join(folder, 'data');
      mkdirSync(join(data, 'inbox'), { recursive: true });
      writeFileSync(join(data, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,a\n2,30,b\n3,5,\n');
      writeFileSync(
        join(data, 'inbox', 'events.jsonl'),
        '{"kind":"a","n":1}\n{"kind":"b","n":2}\n',
      );
      const child = await startChild([
        '--data',
        data,
        '--pipelines',
        writeTestPipelines(folder),
        '--no-demo',
        '--api-key',
        TEST_API_KEY,
      ]);
      const pid = child.process.pid as number;
      try {
        const client = new PipelineClient({
          baseUrl: child.url,
          apiKey: TEST_API_KEY,
          timeoutMs: 60_000,
        });
        // Warm up, then take the starting level.
        for (let i = 0; i < 50; i++) await client.listPipelines();
        const startRss = rss(pid);
        const execs = new Set<string>();
        const known: string[] = [];
        const statuses = new Map<number, number>();
        const serverErrors: string[] = [];
        const end = Date.now() + SECONDS * 1000;
        let calls = 0;
        const record = (status: number, what: string) => {
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status >= 500) serverErrors.push(`${what}: ${status}`);
        };
        const worker = async (n: number) => {
          let i = n;
          while (Date.now() < end) {
            i++;
            const pick = i % 10;
            const some = known[(i * 7919) % Math.max(1, known.length)];
            let result;
            if (pick < 2) {
              const missing = i % 4 === 0;
              result = await client.post(i % 3 === 0 ? '/exec/xml' : '/exec/json', {
                pipelineid: i % 2 ? 'pl_1' : 'pl_2',
                filename: missing ? `missing-${i}.csv` : i % 2 ? 'orders.csv' : 'events.jsonl',
              });
              const id = /"RequestId":"([^"]+)"|<RequestId>([^<]+)</.exec(result.text());
              const requestId = id?.[1] ?? id?.[2];
              if (requestId) {
                execs.add(requestId);
                known.push(requestId);
              }
            } else if (pick === 2 && some) {
              result = await client.put('/requestretry/json', { requestid: some });
            } else if (pick === 3 && some) {
              result = await client.delete('/requestcancel/json', { requestid: some });
            } else if (pick === 4 && some) {
              result = await client.get('/requestdetail/json', {
                requestid: some,
                requestlog: 'true',
                applog: 'true',
              });
            } else if (pick === 5) {
              result = await client.get('/requestlist/xml', {
                pagesize: '100',
                index: String(i % 3 === 0 ? 100 : 0),
              });
            } else if (pick === 6) {
              result = await client.get('/statusdb/json', { pagesize: '50' });
            } else {
              result = await client.get(i % 2 ? '/list/json' : '/list/htm');
            }
            calls++;
            record(result.httpStatus, result.url);
          }
        };
        await Promise.all(Array.from({ length: CLIENTS }, (_, n) => worker(n)));
        expect(serverErrors).toEqual([]);
        expect(calls).toBeGreaterThan(CLIENTS);
        expect(execs.size).toBeGreaterThan(0);

        // Every exec is in the status database, and each ends terminal (or waits its turn).
        const everything = async () => {
          const all = [];
          for (let index = 0; ;) {
            const page = await client.requestList({ index, pageSize: 1000 });
            all.push(...page.requests);
            if (page.info.next < 0) return all;
            index = page.info.next;
          }
        };
        const deadline = Date.now() + 150_000;
        let requests = await everything();
        while (
          requests.some((r) => ['Wait', 'Start', 'Process'].includes(r.status)) &&
          Date.now() < deadline
        ) {
          await new Promise((resolve) => setTimeout(resolve, 500));
          requests = await everything();
        }
        const recorded = new Set(requests.map((r) => r.requestId));
        expect(requests.filter((r) => !['Finish', 'Error', 'Stop'].includes(r.status))).toEqual([]);
        const missing = [...execs].filter((id) => !recorded.has(id));
        expect(missing).toEqual([]);

        await new Promise((resolve) => setTimeout(resolve, 5000));
        const endRss = rss(pid);
        console.log(
          `load: ${calls} calls in ${SECONDS} s by ${CLIENTS} clients, ${execs.size} execs; statuses ${JSON.stringify(Object.fromEntries(statuses))}; RSS ${startRss.toFixed(0)} MB → ${endRss.toFixed(0)} MB`,
        );
        // A leak grows with the number of calls; this bound leaves room for caches and heap slack.
        expect(endRss).toBeLessThan(startRss + 150);
      } finally {
        child.process.kill('SIGTERM');
        await child.exited;
      }
    },
    (SECONDS + 180) * 1000,
  );
});
