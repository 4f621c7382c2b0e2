import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayBefore, type GatewayBefore } from '../service/testing/gateway-before.ts';
import { VENDOR_IDS, VENDOR_VARIANTS } from '../service/testing/vendor/vendor-service.ts';
import { retriedAs, type PipelineClient } from './index.ts';

// A vendor whose retry is a new request of the same pipeline and file, named only in its
// answer's words: the gateway passes those words on, and the kit tells the new request.

describe('a retry that the service runs as a new request', () => {
  const variant = VENDOR_VARIANTS.kanto;
  let started: GatewayBefore;
  let client: PipelineClient;

  beforeAll(async () => {
    started = await startGatewayBefore({
      vendor: { variant, behaviour: { retryStart: 'new-request' } },
      entry: { failedStatuses: [variant.status.failed] },
    });
    // Checked against /openapi.json, as every call of a test service's own client is.
    client = started.gateway.client;
  });
  afterAll(() => started.close());

  it('is named by the answer the gateway passes on, and exists', async () => {
    const { vendor } = started;
    vendor.addRequests('pl_1', 1, 'fail-0701.csv', 'failed');
    const failed = vendor.requests()[0]?.requestId as string;
    const answer = await client.retry(failed, 'json');
    expect(answer.message).toMatch(new RegExp(`^Request ${failed} is retried as request `));
    const as = retriedAs(answer, failed);
    expect(as).toBe(vendor.requests()[0]?.requestId);
    expect(as).not.toBe(failed);
    // The request retried stays failed; the new one runs the same file, fixed.
    expect((await client.requestDetail(failed, {}, 'json')).status).toBe(variant.status.failed);
    expect((await client.requestDetail(as as string, {}, 'json')).sensorFile).toBe(
      'fixed-0701.csv',
    );
  });
});

describe('a retry run as a new request, by a vendor whose ids are its own', () => {
  const variant = VENDOR_VARIANTS.pacific;
  let started: GatewayBefore;

  beforeAll(async () => {
    started = await startGatewayBefore({
      vendor: { variant, ids: VENDOR_IDS.own, behaviour: { retryStart: 'new-request' } },
      entry: { failedStatuses: [variant.status.failed] },
    });
  });
  afterAll(() => started.close());

  it('is named by the answer in the vendor’s own form of id, and exists', async () => {
    const { vendor, gateway } = started;
    const [sales] = VENDOR_IDS.own.pipelines;
    vendor.addRequests(sales, 1, 'fail-0702.csv', 'failed');
    const failed = vendor.requests()[0]?.requestId as string;
    const answer = await gateway.client.retry(failed, 'json');
    const as = retriedAs(answer, failed);
    expect(as).toBe(vendor.requests()[0]?.requestId);
    expect(as).not.toBe(failed);
    expect((await gateway.client.requestDetail(as as string, {}, 'json')).sensorFile).toBe(
      'fixed-0702.csv',
    );
  });
});

describe('retriedAs', () => {
  const id = 'pl_1-20261129_09-000001';
  const answer = (message: string, requestId?: string) => ({ message, requestId });

  it("takes the answer's RequestId when it is another request", () => {
    expect(retriedAs(answer('Success', 'pl_1-20261129_09-000002'), id)).toBe(
      'pl_1-20261129_09-000002',
    );
    expect(retriedAs(answer('Success', id), id)).toBeUndefined();
    // A job's number is no request to follow.
    expect(retriedAs(answer('Queued', '4711'), id)).toBeUndefined();
  });

  it('takes the one other request id its words name, in any language', () => {
    expect(
      retriedAs(answer(`リクエスト ${id} を pl_1-20261129_10-000003 として再実行します。`), id),
    ).toBe('pl_1-20261129_10-000003');
  });

  it('names none for the same request, for several, or for an id inside a longer word', () => {
    expect(retriedAs(answer('Success'), id)).toBeUndefined();
    expect(retriedAs(answer(`Request ${id} runs again`), id)).toBeUndefined();
    expect(
      retriedAs(answer('as pl_1-20261129_09-000002 or pl_1-20261129_09-000003'), id),
    ).toBeUndefined();
    expect(retriedAs(answer('job xpl_1-20261129_09-0000024'), id)).toBeUndefined();
  });

  it('follows from its words only a later request of the same pipeline', () => {
    // Another request it waits behind, or one of another pipeline, does not run this retry.
    expect(
      retriedAs(answer(`Request ${id} is queued behind pl_1-20261128_23-000950`), id),
    ).toBeUndefined();
    expect(retriedAs(answer('Retry queued after pl_2-20261129_10-000001'), id)).toBeUndefined();
    expect(retriedAs(answer('queued behind pl_1-20261129_09-000000'), id)).toBeUndefined();
    // A later hour, or the same hour with a later serial, can be the new request.
    expect(retriedAs(answer('started as pl_1-20261129_09-000002'), id)).toBe(
      'pl_1-20261129_09-000002',
    );
    expect(retriedAs(answer('started as pl_1-20261130_00-000001'), id)).toBe(
      'pl_1-20261130_00-000001',
    );
  });

  it('follows ids of a product’s own form: the same text with later numbers', () => {
    const own = 'REQ/2026/12/02#5 受付?x=1';
    expect(retriedAs(answer('Success', 'REQ/2026/12/02#6 受付?x=1'), own)).toBe(
      'REQ/2026/12/02#6 受付?x=1',
    );
    // A job's number, or an id of another form, is no request of this product.
    expect(retriedAs(answer('Queued', '4711'), own)).toBeUndefined();
    expect(retriedAs(answer('Queued', 'JOB-4711'), own)).toBeUndefined();
    expect(
      retriedAs(answer(`Request ${own} is retried as request REQ/2026/12/02#12 受付?x=1.`), own),
    ).toBe('REQ/2026/12/02#12 受付?x=1');
    // An earlier one it waits behind, several, or one inside a longer word: none.
    expect(retriedAs(answer(`${own} waits for REQ/2026/12/02#4 受付?x=1`), own)).toBeUndefined();
    expect(
      retriedAs(answer('as REQ/2026/12/02#6 受付?x=1 or REQ/2026/12/02#7 受付?x=1'), own),
    ).toBeUndefined();
    expect(retriedAs(answer('as 7000123'), '7000122')).toBe('7000123');
    expect(retriedAs(answer('as A7000123'), '7000122')).toBeUndefined();
  });
});
