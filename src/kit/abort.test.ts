import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeTestPipelines, ordersCsv } from '../service/testing/pipelines.ts';
import { startService, TEST_API_KEY, type TestService } from '../service/testing/service.ts';
import {
  ManagementConsoleClient,
  PipelineClient,
  TimeoutError,
  Transport,
  type FetchLike,
} from './index.ts';

// A caller's AbortSignal reaches fetch through every client of the kit (issue 27, item 2),
// against the real service in this process.

let service: TestService;

beforeAll(async () => {
  service = await startService({
    pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'kit-abort-'))),
    adminPassword: 'admin-password-1',
  });
  writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), ordersCsv(5));
});

afterAll(async () => {
  await service.close();
});

/** The fetch of the real service, counting the calls that reach it. */
function countingFetch(): { fetch: FetchLike; calls: () => number } {
  let calls = 0;
  return {
    fetch: (input, init) => {
      calls++;
      return service.checkedFetch(input, init);
    },
    calls: () => calls,
  };
}

const client = (fetch: FetchLike) =>
  new PipelineClient({ baseUrl: service.url, apiKey: TEST_API_KEY, fetch });

describe('a caller cancelling a call', () => {
  it('never sends a call whose signal is already aborted, and rejects with its reason', async () => {
    const counted = countingFetch();
    const reason = new Error('the page was left');
    const before = (await service.client.requestList({ id: 'pl_1' })).requests.length;
    await expect(
      client(counted.fetch).exec('pl_1', 'orders.csv', {}, 'json', {
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(counted.calls()).toBe(0);
    await service.app.engine.whenIdle();
    expect((await service.client.requestList({ id: 'pl_1' })).requests.length).toBe(before);
  });

  it('cancels a call under way: fetch is aborted and the call rejects with the reason', async () => {
    const counted = countingFetch();
    const controller = new AbortController();
    const reason = new Error('stop');
    const call = client(counted.fetch).requestList({}, 'xml', { signal: controller.signal });
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    expect(counted.calls()).toBe(1);
  });

  it('passes the signal through the untyped calls, bulk and the session clients', async () => {
    const reason = new Error('cancelled');
    const signal = AbortSignal.abort(reason);
    const counted = countingFetch();
    const pipeline = client(counted.fetch);
    await expect(pipeline.get('/version/json', undefined, undefined, { signal })).rejects.toBe(
      reason,
    );
    await expect(pipeline.bulk.jobs({ signal })).rejects.toBe(reason);
    await expect(
      pipeline.startRequest('pl_1', 'orders.csv', {}, { find: true, signal }),
    ).rejects.toBe(reason);
    await expect(pipeline.followRequest('pl_1-20261121_09-000001', { signal })).rejects.toBe(
      reason,
    );
    const mc = new ManagementConsoleClient({ baseUrl: service.url, fetch: counted.fetch });
    await expect(
      mc.login({ userName: 'admin', password: 'admin-password-1' }, { signal }),
    ).rejects.toBe(reason);
    expect(counted.calls()).toBe(0);
    // Without a signal the same clients still answer.
    expect(await pipeline.version()).toMatch(/\S/);
    await mc.login({ userName: 'admin', password: 'admin-password-1' });
    await expect(mc.services({ signal })).rejects.toBe(reason);
    expect((await mc.services()).length).toBeGreaterThan(0);
  });

  it('still times out with TimeoutError when the caller’s signal does not fire', async () => {
    // A network that never answers: only an abort ends the call.
    const silent: FetchLike = (_input, init) =>
      new Promise((_resolve, reject) =>
        init?.signal?.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    const transport = new Transport({ baseUrl: service.url, fetch: silent, timeoutMs: 50 });
    const call = transport.send('GET', '/pipelineapi/version/json', undefined, undefined, {
      signal: new AbortController().signal,
    });
    await expect(call).rejects.toBeInstanceOf(TimeoutError);
  });
});
