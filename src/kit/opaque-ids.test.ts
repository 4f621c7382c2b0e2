import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startVendorService,
  VENDOR_IDS,
  VENDOR_VARIANTS,
  type ReceivedCall,
  type VendorService,
} from '../service/testing/vendor/vendor-service.ts';
import { cli } from './cli/pipelinectl.ts';
import { dayOfRequestId, PipelineClient, retriedAs, type RequestDetail } from './index.ts';

// Issue 37, item 1, without our server between: the kit and pipelinectl pointed straight at
// a vendor whose pipeline and request ids are its own (a version, another script, `/ # ? &
// + %` and spaces). Nothing refuses them for their shape; every call carries them exactly
// as the vendor wrote them, form-encoded; what reads a day out of an id says it cannot.

const variant = VENDOR_VARIANTS.kanto;
const [sales, stock, archive] = VENDOR_IDS.own.pipelines;

let vendor: VendorService;
let client: PipelineClient;

/** The latest call of `api` the vendor received. */
const lastCall = (api: string): ReceivedCall | undefined =>
  vendor
    .received()
    .filter((c) => c.api === api)
    .at(-1);

const newest = (pipelineId: string) =>
  vendor.requests().find((r) => r.pipelineId === pipelineId)?.requestId as string;

beforeAll(async () => {
  vendor = await startVendorService({ variant, ids: VENDOR_IDS.own });
  client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
  vendor.addRequests(sales, 2, 'daily.csv', 'done');
  vendor.addRequests(stock, 1, 'fail-0703.csv', 'failed');
});
afterAll(() => vendor.close());

describe('the kit, pointed at a vendor whose ids are its own', () => {
  it('lists its pipelines and one pipeline’s requests by their ids', async () => {
    expect((await client.listPipelines('xml')).map((p) => p.id)).toEqual([sales, stock, archive]);
    const list = await client.requestList({ id: sales }, 'xml');
    expect(list.requests.map((r) => r.requestId)).toEqual(
      vendor
        .requests()
        .filter((r) => r.pipelineId === sales)
        .map((r) => r.requestId),
    );
    expect(lastCall('requestlist')?.fields.id).toBe(sales);
  });

  it('opens a request and follows it to its end by its id', async () => {
    const id = newest(sales);
    const detail = await client.requestDetail(id, { requestLog: true }, 'xml');
    expect(detail).toMatchObject({ requestId: id, pipelineId: sales, status: variant.status.done });
    const asked = lastCall('requestdetail');
    expect(asked?.path).toBe('/pipelineapi/requestdetail/xml');
    expect(asked?.fields.requestid).toBe(id);
    expect(asked?.query).not.toContain(id);
    const followed = await client.followRequest(id, { format: 'xml', pollMs: 1 });
    expect(followed).toMatchObject({ requestId: id, outcome: 'ok' });
  });

  it('starts a request and finds it in the list, as interfaces.md’s exec names none', async () => {
    const started = await client.startRequest(
      archive,
      'orders.csv',
      { region: 'EU' },
      { find: true, format: 'xml' },
    );
    const sent = lastCall('exec');
    expect(sent?.path).toBe('/pipelineapi/exec/xml');
    expect(sent?.fields).toEqual({ pipelineid: archive, filename: 'orders.csv', region: 'EU' });
    expect(sent?.body).not.toContain(archive);
    expect(started.requestIdFrom).toBe('list');
    expect(started.requestId).toBe(newest(archive));
  });

  it('retries, cancels, resumes and suspends by ids as written', async () => {
    const failed = newest(stock);
    await client.retry(failed, 'xml');
    expect(lastCall('requestretry')?.fields.requestid).toBe(failed);
    expect(vendor.requests().find((r) => r.requestId === failed)?.status).toBe(
      variant.status.waiting,
    );
    const waiting = newest(archive);
    await client.cancel(waiting, 'xml');
    expect(lastCall('requestcancel')?.fields.requestid).toBe(waiting);
    await client.resume(archive, 'xml');
    expect(vendor.pipelines().find((p) => p.id === archive)?.runmode).toBe('run');
    await client.suspend(archive, 'xml');
    expect(lastCall('suspend')?.fields.pipelineid).toBe(archive);
    expect(vendor.pipelines().find((p) => p.id === archive)?.runmode).toBe('stop');
  });

  it('says an id of another shape names no day, and follows a retry only to a later id of its form', () => {
    const id = newest(sales);
    expect(dayOfRequestId(id)).toBeUndefined();
    // Words naming a later request of the vendor's own form: that request runs the retry;
    // an earlier one (waited behind) does not, nor the same request run again.
    const other = newest(stock);
    const words = `Request ${id} is retried as request ${other}`;
    expect(retriedAs({ message: words, requestId: undefined }, id)).toBe(other);
    const backwards = `Request ${other} waits behind request ${id}`;
    expect(retriedAs({ message: backwards, requestId: undefined }, other)).toBeUndefined();
    expect(retriedAs({ message: 'Success', requestId: id }, id)).toBeUndefined();
  });
});

describe('pipelinectl, pointed at a vendor whose ids are its own', () => {
  /** pipelinectl as the command line runs it, in this process (the vendor answers here). */
  async function ctl(...args: string[]) {
    let stdout = '';
    let stderr = '';
    const code = await cli(
      [...args, '--url', vendor.url],
      { PIPELINE_API_KEY: vendor.apiKey },
      { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    );
    return { code, stdout, stderr };
  }

  it('shows a request and a pipeline’s requests by their ids', async () => {
    const id = newest(sales);
    const detail = await ctl('detail', id, '--json', '--wire', 'xml');
    expect(detail.stderr).toBe('');
    expect(detail.code).toBe(0);
    expect((JSON.parse(detail.stdout) as RequestDetail).requestId).toBe(id);
    expect(lastCall('requestdetail')?.fields.requestid).toBe(id);
    const requests = await ctl('requests', '--pipeline', stock, '--json', '--wire', 'xml');
    expect(requests).toMatchObject({ code: 0, stderr: '' });
    expect(requests.stdout).toContain(JSON.stringify(newest(stock)));
    expect(lastCall('requestlist')?.fields.id).toBe(stock);
  });

  it('changes a pipeline and a request by their ids', async () => {
    expect(await ctl('resume', stock)).toMatchObject({ code: 0, stderr: '' });
    expect(lastCall('resume')?.fields.pipelineid).toBe(stock);
    vendor.addRequests(sales, 1, 'fail-0704.csv', 'failed');
    const failed = newest(sales);
    expect(await ctl('retry', failed)).toMatchObject({ code: 0, stderr: '' });
    expect(lastCall('requestretry')?.fields.requestid).toBe(failed);
  });
});
