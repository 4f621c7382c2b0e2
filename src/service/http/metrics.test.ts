import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';

describe('/metrics', () => {
  it("counts the day's requests, times their runs and counts HTTP answers, in Prometheus text", async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'metrics-defs-'))),
    });
    try {
      writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
      await service.client.exec('pl_1', 'orders.csv');
      await service.client.exec('pl_1', 'missing.csv');
      await service.app.engine.whenIdle();
      const response = await service.fetch('/metrics');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      const text = await response.text();
      expect(text).toContain(
        'pipeline_requests_today{service="local",pipeline="pl_1",status="Finish"} 1',
      );
      expect(text).toContain(
        'pipeline_requests_today{service="local",pipeline="pl_1",status="Error"} 1',
      );
      expect(text).toMatch(
        /pipeline_request_duration_seconds_count\{pipeline="pl_1",status="Finish"\} 1/,
      );
      expect(text).toMatch(
        /pipeline_http_responses_total\{route="\/pipelineapi\/exec",status="200"\} 2/,
      );
      expect(text).toContain('process_cpu_user_seconds_total');
    } finally {
      await service.close();
    }
  });

  it('asks for the metrics key when one is set', async () => {
    const service = await startService({ metricsKey: 'scrape-key-123' });
    try {
      expect((await service.fetch('/metrics')).status).toBe(401);
      const wrong = await service.fetch('/metrics', { headers: { Authorization: 'Bearer nope' } });
      expect(wrong.status).toBe(401);
      const right = await service.fetch('/metrics', {
        headers: { Authorization: 'Bearer scrape-key-123' },
      });
      expect(right.status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it("times the gateway's checks of each upstream and counts the failed ones", async () => {
    const vendor = await startVendorService();
    const gateway = await startService({
      services: [{ id: 'prod', name: 'Production', url: vendor.url, apiKey: vendor.apiKey }],
    });
    try {
      await vendor.close();
      await gateway.app.context.services.checkAll();
      const text = await (await gateway.fetch('/metrics')).text();
      expect(text).toMatch(
        /pipeline_upstream_check_seconds_count\{service="prod",outcome="ok"\} 1/,
      );
      expect(text).toMatch(/pipeline_upstream_check_failures_total\{service="prod"\} 1/);
      expect(text).not.toContain(vendor.apiKey);
    } finally {
      await gateway.close();
    }
  });
});
