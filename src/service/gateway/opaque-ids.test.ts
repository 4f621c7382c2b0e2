import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, type PipelineClient } from '../../kit/index.ts';
import { ErrorCode } from '../../kit/wire.ts';
import { addUser } from '../auth/users.ts';
import { startGatewayBefore, type GatewayBefore } from '../testing/gateway-before.ts';
import { signIn, startService, type TestService } from '../testing/service.ts';
import {
  VENDOR_IDS,
  VENDOR_VARIANTS,
  type ReceivedCall,
} from '../testing/vendor/vendor-service.ts';

// Issue 37, item 1: a vendor's values are opaque. interfaces.md shows `pl_<number>` and
// `<pipeline id>-<yyyymmdd>_<hh>-<serial>` but promises neither, so behind the gateway a
// service's own ids (a version, another script, `/ # ? & + %` and spaces) are listed,
// opened and passed back to it exactly as it wrote them, form-encoded, never in a path. Our
// shapes still bind the embedded service, whose refusals are unchanged.

const variant = VENDOR_VARIANTS.kanto;
const [sales, stock, archive] = VENDOR_IDS.own.pipelines;
const PASSWORD = 'opaque-ids-password-1';

/** The status, code and words of a kit call's refusal. */
async function refusal(call: () => Promise<unknown>) {
  const error: unknown = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof HttpError)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { status: error.status, code: error.code, message: error.serviceMessage ?? '' };
}

describe('a vendor whose ids are its own, behind the gateway', () => {
  let started: GatewayBefore;
  let client: PipelineClient;
  let sessionId: string;

  /** The latest call of `api` the vendor received. */
  const lastCall = (api: string): ReceivedCall | undefined =>
    started.vendor
      .received()
      .filter((c) => c.api === api)
      .at(-1);

  /** A Part A extension's answer through the gateway, with the signed-in session. */
  async function mc(path: string, fields: Record<string, string>) {
    const response = await started.gateway.fetch(`${path}?${new URLSearchParams(fields)}`, {
      headers: { 'X-As-SessionId': sessionId },
    });
    const body = (await response.json()) as {
      result: { message?: string; data?: Record<string, unknown> };
    };
    return { status: response.status, data: body.result.data ?? {}, message: body.result.message };
  }

  beforeAll(async () => {
    started = await startGatewayBefore({
      vendor: { variant, ids: VENDOR_IDS.own },
      entry: { failedStatuses: [variant.status.failed] },
    });
    client = started.gateway.client;
    await addUser(started.gateway.app.context.shared, 'olga', PASSWORD, 'operator', 'now');
    sessionId = await signIn(started.gateway, 'olga', PASSWORD);
    const { vendor } = started;
    vendor.addRequests(sales, 2, 'daily.csv', 'done');
    vendor.addRequests(stock, 1, 'fail-0702.csv', 'failed');
  });
  afterAll(() => started.close());

  it('lists them as the vendor wrote them, all of a day and one pipeline’s', async () => {
    const written = started.vendor.requests().map((r) => r.requestId);
    expect(written[0]).toMatch(/^REQ\/\d{4}\/\d{2}\/\d{2}#3 受付\?x=1&y=\+%$/);
    const day = await client.requestList({}, 'json');
    expect(day.requests.map((r) => r.requestId)).toEqual(written);
    const ofSales = await client.requestList({ id: sales }, 'json');
    expect(ofSales.requests.map((r) => r.pipelineId)).toEqual([sales, sales]);
    // The day before the index watched it is asked of the vendor, with the id as written.
    expect(lastCall('requestlist')?.fields.id).toBe(sales);
    // And once the index watched it, from the index, the same.
    await started.poller.pollNow();
    const indexed = await client.requestList({ id: stock }, 'json');
    expect(indexed.requests.map((r) => r.requestId)).toEqual([written[0]]);
  });

  it('opens one, asking the vendor for it exactly as written', async () => {
    const failed = started.vendor.requests().find((r) => r.pipelineId === stock);
    const id = failed?.requestId as string;
    const detail = await client.requestDetail(id, { requestLog: true }, 'json');
    expect(detail.requestId).toBe(id);
    expect(detail.pipelineId).toBe(stock);
    expect(detail.status).toBe(variant.status.failed);
    const asked = lastCall('requestdetail');
    expect(asked?.fields.requestid).toBe(id);
    // In the form, encoded; the path is the operation's alone.
    expect(asked?.path).toBe('/pipelineapi/requestdetail/xml');
    expect(new URLSearchParams(asked?.query).get('requestid')).toBe(id);
    expect(asked?.query).not.toContain(id);
  });

  it('runs exec of a pipeline whose id needs encoding, and tells the request it started', async () => {
    const answer = await client.exec(archive, 'orders.csv', { region: '東京 & co' }, 'json');
    const sent = lastCall('exec');
    expect(sent?.method).toBe('POST');
    expect(sent?.path).toBe('/pipelineapi/exec/xml');
    expect(sent?.fields.pipelineid).toBe(archive);
    expect(sent?.fields.region).toBe('東京 & co');
    // Form-encoded in the body: no `#`, `?`, `&` or space of the id is taken for syntax.
    expect(new URLSearchParams(sent?.body).get('pipelineid')).toBe(archive);
    expect(sent?.body).not.toContain(archive);
    const newest = started.vendor.requests()[0];
    expect(newest?.pipelineId).toBe(archive);
    expect(answer.requestId).toBe(newest?.requestId);
  });

  it('passes retry and cancel on with the request id as written', async () => {
    const { vendor } = started;
    const failed = vendor.requests().find((r) => r.pipelineId === stock)?.requestId as string;
    await client.retry(failed, 'json');
    expect(lastCall('requestretry')?.fields.requestid).toBe(failed);
    expect(vendor.requests().find((r) => r.requestId === failed)?.status).toBe(
      variant.status.waiting,
    );
    // The archive is suspended: its request from exec waits, and can be cancelled.
    const waiting = vendor.requests().find((r) => r.pipelineId === archive)?.requestId as string;
    await client.cancel(waiting, 'json');
    expect(lastCall('requestcancel')?.fields.requestid).toBe(waiting);
    expect(vendor.requests().find((r) => r.requestId === waiting)?.status).toBe(
      variant.status.cancelled,
    );
  });

  it('passes resume, suspend and clear-cache on with the pipeline id as written', async () => {
    const { vendor } = started;
    await client.resume(archive, 'json');
    expect(lastCall('resume')?.fields.pipelineid).toBe(archive);
    expect(vendor.pipelines().find((p) => p.id === archive)?.runmode).toBe('run');
    await client.suspend(stock, 'json');
    expect(lastCall('suspend')?.fields.pipelineid).toBe(stock);
    expect(vendor.pipelines().find((p) => p.id === stock)?.runmode).toBe('stop');
    await client.clearCache(sales, { sensor: true }, 'json');
    expect(lastCall('pipelinecache')?.fields.pipelineid).toBe(sales);
  });

  it('counts, selects in bulk and tells the history of requests with such ids', async () => {
    await started.poller.pollNow();
    const day = (await client.requestList({}, 'json')).info.date;
    const stats = await client.requestStats({ date: day, id: sales }, 'json');
    expect(stats.pipelines.map((p) => p.id)).toEqual([sales]);
    // The retried request of the suspended Stock waits; the one of Sales' two is not.
    const waiting = started.vendor.requests().find((r) => r.pipelineId === stock)?.requestId;
    const statuses = [variant.status.waiting];
    const ofStock = await client.bulk.preview({ action: 'cancel', date: day, id: stock, statuses });
    expect(ofStock.total).toBe(1);
    expect(ofStock.requestIds).toEqual([waiting]);
    const ofSales = await client.bulk.preview({ action: 'cancel', date: day, id: sales, statuses });
    expect(ofSales.total).toBe(0);
    const written = started.vendor.requests().find((r) => r.pipelineId === sales)?.requestId;
    const attempts = await mc('/mcapi/requests/attempts', {
      service: 'v',
      requestid: written as string,
    });
    expect(attempts.status, attempts.message).toBe(200);
    expect(attempts.data.requestId).toBe(written);
    const range = await mc('/mcapi/requests/range', {
      service: 'v',
      from: day,
      to: day,
      id: sales,
      status: variant.status.done,
    });
    expect(range.status, range.message).toBe(200);
    expect(range.data.total).toBe(2);
    const trends = await mc('/mcapi/trends', { service: 'v', pipelineid: archive, days: '1' });
    expect(trends.status, trends.message).toBe(200);
    expect(trends.data.pipelineId).toBe(archive);
  });

  it('still refuses a missing, overlong or multi-line id, naming it, before the vendor', async () => {
    const before = started.vendor.received().length;
    expect(await refusal(() => client.requestDetail('', {}, 'json'))).toMatchObject({
      status: 400,
      code: ErrorCode.MissingParameter,
      message: expect.stringMatching(/requestid/),
    });
    expect(await refusal(() => client.retry('x'.repeat(1025), 'json'))).toMatchObject({
      status: 400,
      code: ErrorCode.BadParameter,
      message: expect.stringMatching(/requestid is longer than 1024 characters/),
    });
    for (const call of [
      () => client.exec(`${sales}\n`, 'orders.csv', {}, 'json'),
      () => client.requestList({ id: `${sales}\r` }, 'json'),
      () => client.cancel('REQ/1\tx', 'json'),
      () => client.resume('\u0000', 'json'),
    ])
      expect(await refusal(call)).toMatchObject({
        status: 400,
        code: ErrorCode.BadParameter,
        message: expect.stringMatching(/(pipelineid|id|requestid) holds the control character/),
      });
    // A day is yyyymmdd whoever answers: interfaces.md's form, and the request index's.
    expect(
      await refusal(() => client.requestList({ id: sales, date: '2026-12-02' }, 'json')),
    ).toMatchObject({ status: 400, message: 'Parameter date must have the shape yyyymmdd.' });
    expect(started.vendor.received().length).toBe(before);
    const multiLine = await mc('/mcapi/requests/attempts', { service: 'v', requestid: 'a\nb' });
    expect(multiLine.status).toBe(400);
    expect(multiLine.message).toMatch(/requestid holds the control character U\+000A/);
  });
});

describe('the embedded service', () => {
  let service: TestService;
  let sessionId: string;

  beforeAll(async () => {
    service = await startService();
    await addUser(service.app.context.shared, 'olga', PASSWORD, 'operator', 'now');
    sessionId = await signIn(service, 'olga', PASSWORD);
  });
  afterAll(() => service.close());

  it('still holds ids, days and table names to our contract’s shapes', async () => {
    const { client } = service;
    const cases: [() => Promise<unknown>, RegExp][] = [
      [
        () => client.exec(sales, 'orders.csv'),
        /^Parameter pipelineid must have the shape pl_<number>/,
      ],
      [
        () => client.requestDetail('REQ/2026/12/02#17 受付'),
        /^Parameter requestid must have the shape <pipeline id>-<yyyymmdd>_<hh>-<6-digit serial>/,
      ],
      [() => client.retry('REQ-17'), /^Parameter requestid must have the shape/],
      [() => client.requestList({ id: stock }), /^Parameter id must have the shape pl_<number>/],
      [
        () => client.requestList({ date: '2026-12-02' }),
        /^Parameter date must have the shape yyyymmdd/,
      ],
      [() => client.requestStats({ id: archive }), /^Parameter id must have the shape pl_<number>/],
      [() => client.resume(archive), /^Parameter pipelineid must have the shape pl_<number>/],
      [() => client.dropTable('A-B'), /^Parameter table must be a table name/],
      [
        () => client.bulk.preview({ action: 'retry', date: '20261202', id: sales }),
        /^Parameter id must have the shape pl_<number>/,
      ],
    ];
    for (const [call, message] of cases)
      expect(await refusal(call)).toMatchObject({
        status: 400,
        code: ErrorCode.BadParameter,
        message: expect.stringMatching(message),
      });
  });

  it('still refuses ids of another shape in the history and the trends', async () => {
    const ask = async (path: string, fields: Record<string, string>) => {
      const response = await service.fetch(`${path}?${new URLSearchParams(fields)}`, {
        headers: { 'X-As-SessionId': sessionId },
      });
      const body = (await response.json()) as { result: { message?: string } };
      return { status: response.status, message: body.result.message ?? '' };
    };
    expect(await ask('/mcapi/requests/attempts', { requestid: 'REQ/1' })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/requestid must be a request id/),
    });
    expect(
      await ask('/mcapi/requests/range', { from: '20261201', to: '20261202', id: sales }),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/id must be a pipeline id/) });
    expect(
      await ask('/mcapi/requests/range', { from: '20261201', to: '20261202', status: '停止中' }),
    ).toMatchObject({ status: 400, message: expect.stringMatching(/status must be status words/) });
    expect(await ask('/mcapi/trends', { pipelineid: sales })).toMatchObject({
      status: 400,
      message: expect.stringMatching(/pipelineid must be a pipeline id \(pl_<number>\)/),
    });
  });
});
