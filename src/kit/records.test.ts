import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, TEST_API_KEY, type TestService } from '../service/testing/service.ts';
import {
  startVendorService,
  type VendorService,
} from '../service/testing/vendor/vendor-service.ts';
import { PipelineClient, type Format } from './index.ts';

// A gateway in front of a vendor double that gives at most 1,000 rows per answer and no
// `index`: of a table of 1,250 rows it reads the first 1,000 and says so with Info's Bound
// instead of a Total (contract section 12). The kit reads Bound alike in every format.

let vendor: VendorService;
let gateway: TestService;
let client: PipelineClient;

beforeAll(async () => {
  vendor = await startVendorService({ apiKey: 'records-vendor-key-0123456789abcdef' });
  vendor.addTableRows('SALES', 1247);
  gateway = await startService({
    services: [{ id: 'vendor', name: 'Vendor', url: vendor.url, apiKey: vendor.apiKey }],
  });
  client = new PipelineClient({
    baseUrl: gateway.url,
    apiKey: TEST_API_KEY,
    fetch: gateway.checkedFetch,
  });
});

afterAll(async () => {
  await gateway.close();
  await vendor.close();
});

const FORMATS: readonly Format[] = ['xml', 'json'];

describe('a table page past the gateway’s bound', () => {
  for (const format of FORMATS)
    it(`has bound and no total in ${format}`, async () => {
      const page = await client.table('action', 'SALES', { index: 100, pageSize: 100 }, format);
      expect(page.info).toMatchObject({ index: 100, count: 100, next: 200, prev: 0 });
      expect(page.info.bound).toBe(1000);
      expect(page.info.total).toBeUndefined();
      expect(page.rows[0]?.[0]).toBe('101');
    });

  it('is told apart from a whole one, which has its total and no bound', async () => {
    const list = await client.tables('system', {}, 'xml');
    expect(list.tables).toEqual(['PIPELINE']);
    expect(list.info.total).toBe(1);
    expect(list.info.bound).toBeUndefined();
  });
});
