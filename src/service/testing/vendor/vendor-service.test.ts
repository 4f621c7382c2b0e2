import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipelineClient, xmlToTree } from '../../../kit/index.ts';
import { startVendorService, VENDOR_VARIANTS, type VendorService } from './vendor-service.ts';

// The double stands in for the vendor: it must answer as interfaces.md shows (the kit
// reads it), and differ from our contract where interfaces.md is silent.

describe.each(Object.values(VENDOR_VARIANTS))(
  'the vendor-like service, variant $name',
  (variant) => {
    let vendor: VendorService;
    let client: PipelineClient;

    beforeAll(async () => {
      vendor = await startVendorService({ variant });
      client = new PipelineClient({ baseUrl: vendor.url, apiKey: vendor.apiKey });
    });

    afterAll(async () => {
      await vendor.close();
    });

    it('lists pipelines as interfaces.md shows, with dates in its own zone', async () => {
      const pipelines = await client.listPipelines('xml');
      expect(pipelines.map((p) => p.id)).toEqual(['pl_1', 'pl_2', 'pl_7']);
      expect(pipelines[0]?.args).toEqual([{ name: 'region', value: 'JP' }]);
      expect(pipelines[0]?.created?.zone).toBe(variant.zone.abbreviation);
      expect(pipelines[0]?.createdate).toMatch(
        new RegExp(`^\\d{4}-\\d{2}-\\d{2}T[\\d:.]+ ${variant.zone.abbreviation}$`),
      );
      expect(await client.version('xml')).toBe(variant.version);
    });

    it('executes without a RequestId, and runs the request through its own status words', async () => {
      const started = await client.exec('pl_1', 'sales.csv', {}, 'xml');
      expect(started.requestId).toBeUndefined();
      const list = await client.requestList({}, 'xml');
      expect(list.info.total).toBeUndefined();
      const [request] = list.requests;
      expect(request?.status).toBe(variant.status.waiting);
      for (let i = 0; i < 4; i++) vendor.advance();
      const detail = await client.requestDetail(
        request?.requestId as string,
        { requestLog: true },
        'xml',
      );
      expect(detail.status).toBe(variant.status.done);
      expect(detail.stage).toBe('Complete');
      expect(detail.requestLog?.length).toBeGreaterThan(3);
    });

    it('refuses in its own way: a 2xx ExecuteResponse without Code, or a bare HTTP error', async () => {
      const response = await fetch(`${vendor.url}/pipelineapi/requestretry/xml?requestid=none`, {
        method: 'PUT',
        headers: { 'X-Pipelinewebapi': vendor.apiKey },
      });
      const text = await response.text();
      if (variant.failures === 'envelope') {
        expect(response.status).toBe(200);
        const tree = xmlToTree(text) as { ExecuteResponse: Record<string, unknown> };
        expect(tree.ExecuteResponse.Status).toBe('Error');
        expect(tree.ExecuteResponse.Message).toBe('Request none does not exist');
        expect(tree.ExecuteResponse.Code).toBeUndefined();
      } else {
        expect(response.status).toBe(404);
        expect(response.headers.get('content-type')).toBe('text/html');
        expect(text).toContain('Request none does not exist');
      }
    });

    it('pages nothing: no index, no Total, Next always -1', async () => {
      vendor.addRequests('pl_2', 150);
      const response = await fetch(
        `${vendor.url}/pipelineapi/requestlist/xml?pagesize=1000&index=100`,
        {
          headers: { 'X-Pipelinewebapi': vendor.apiKey },
        },
      );
      const tree = xmlToTree(await response.text()) as {
        RequestList: { Request: unknown[]; Info: Record<string, unknown> };
      };
      expect(tree.RequestList.Request.length).toBeGreaterThanOrEqual(151);
      expect(tree.RequestList.Info).toMatchObject({ Index: 0, Next: -1 });
      expect(tree.RequestList.Info.Total).toBeUndefined();
    });

    it('tells NULL from empty only in XML (isnull), and writes JSON in its own loose shape', async () => {
      const page = await client.table('action', 'SALES', {}, 'xml');
      expect(page.rows.map((r) => r[1])).toEqual(['JP', null, '']);
      const json = await fetch(`${vendor.url}/pipelineapi/version/json`, {
        headers: { 'X-Pipelinewebapi': vendor.apiKey },
      });
      expect(json.headers.get('content-type')).toBe('text/javascript');
      const list = (await (
        await fetch(`${vendor.url}/pipelineapi/list/json`, {
          headers: { 'X-Pipelinewebapi': vendor.apiKey },
        })
      ).json()) as { PipelineList: { PipeLine: { Args?: { Item: unknown } }[] } };
      // One Args item is an object, not an array of one: not our contract's JSON.
      expect(Array.isArray(list.PipelineList.PipeLine[0]?.Args?.Item)).toBe(false);
    });
  },
);
