import { describe, expect, it } from 'vitest';
import { OPERATIONS, RESPONSE_TYPES, type OperationName } from '../../kit/wire.ts';
import { startService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';
import { Conformance } from './conformance.ts';
import type { OpenApiDocument } from './document.ts';

// The same document holds for a gateway: answers relayed from an upstream, and the 502 of
// an upstream that stopped answering, in the three formats.

describe('/openapi.json in front of an upstream', () => {
  it('answers of a gateway conform, relayed or failing', async () => {
    const vendor = await startVendorService();
    const gateway = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
    });
    const problems: string[] = [];
    try {
      const doc = (await (await gateway.fetch('/openapi.json')).json()) as OpenApiDocument;
      const conformance = new Conformance(doc);
      const reads = (Object.keys(OPERATIONS) as OperationName[]).filter(
        (op) => OPERATIONS[op] === 'GET',
      );
      const statuses = new Set<number>();
      const answered = new Set<string>();
      const sweep = async () => {
        for (const op of reads) {
          for (const format of RESPONSE_TYPES) {
            const response = await gateway.keyed(`/services/prod/pipelineapi/${op}/${format}`);
            statuses.add(response.status);
            if (response.status === 200) answered.add(op);
            problems.push(
              ...(await conformance.problems(
                { method: 'GET', template: `/services/{service}/pipelineapi/${op}/{format}` },
                response,
              )),
            );
          }
        }
      };
      await sweep();
      expect(statuses).toContain(200);
      await vendor.close();
      statuses.clear();
      answered.clear();
      await sweep();
      // requestdetail without a requestid is refused here (400) before the upstream is asked.
      expect([...statuses].sort()).toEqual([200, 400, 502]);
      // What the gateway answers without its upstream: lists and version shared for one poll
      // interval, and a day's list and counts from its request index.
      expect([...answered].sort()).toEqual(['list', 'requestlist', 'requeststats', 'version']);
      expect(problems).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
