import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { writeTestPipelines } from '../testing/pipelines.ts';
import { startService } from '../testing/service.ts';
import { startVendorService } from '../testing/vendor/vendor-service.ts';
import {
  HTTP_BUCKETS,
  MAX_PIPELINES_PER_SERVICE,
  MAX_STATUSES_PER_SERVICE,
  OTHER_LABEL,
  ServiceMetrics,
} from './metrics.ts';

/** The value of one series of the exposition, or undefined when it is not there. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map(
      [...(match[2] as string).matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (found.size === wanted.length && wanted.every(([k, v]) => found.get(k) === v))
      return Number(match[3]);
  }
  return undefined;
}

/** Every value a label takes among the series of a metric. */
function labelValues(text: string, name: string, label: string): Set<string> {
  const out = new Set<string>();
  const pattern = new RegExp(`^${name}\\{[^}]*\\b${label}="((?:[^"\\\\]|\\\\.)*)"`, 'gm');
  for (const m of text.matchAll(pattern)) out.add(m[1] as string);
  return out;
}

describe('/metrics', () => {
  it("counts the day's requests, times their runs, and shows the process's own metrics", async () => {
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
      const today = { service: 'local', pipeline: 'pl_1' };
      expect(sample(text, 'pipeline_requests_today', { ...today, status: 'Finish' })).toBe(1);
      expect(sample(text, 'pipeline_requests_today', { ...today, status: 'Error' })).toBe(1);
      expect(
        sample(text, 'pipeline_request_duration_seconds_count', {
          pipeline: 'pl_1',
          status: 'Finish',
        }),
      ).toBe(1);
      expect(text).toContain('process_cpu_user_seconds_total');
    } finally {
      await service.close();
    }
  });

  it('times each answer by method, route pattern and status code, never by the URL asked', async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'metrics-http-'))),
    });
    try {
      writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
      const started = (await service.client.exec('pl_1', 'orders.csv')).requestId ?? '';
      await service.client.exec('pl_1', 'orders.csv');
      await service.app.engine.whenIdle();
      for (const id of [started, 'pl_1-20000101_00-000001']) {
        const detail = await service.keyed(`/pipelineapi/requestdetail/json?requestid=${id}`);
        expect(detail.status).toBe(id === started ? 200 : 404);
      }
      const viaService = await service.keyed('/services/local/pipelineapi/version/xml');
      expect(viaService.status).toBe(200);
      expect((await service.fetch('/no/such/page-123')).status).toBe(404);
      expect((await service.fetch('/healthz')).status).toBe(200);

      const text = await (await service.fetch('/metrics')).text();
      const count = (method: string, route: string, code: string) =>
        sample(text, 'http_request_duration_seconds_count', {
          method,
          route,
          status_code: code,
        });
      expect(count('POST', '/pipelineapi/exec/:format', '200')).toBe(2);
      expect(count('GET', '/pipelineapi/requestdetail/:format', '200')).toBe(1);
      expect(count('GET', '/pipelineapi/requestdetail/:format', '404')).toBe(1);
      expect(count('GET', '/services/:service/pipelineapi/version/:format', '200')).toBe(1);
      expect(count('GET', '/healthz', '200')).toBe(1);
      expect(count('GET', 'unmatched', '404')).toBe(1);
      // Buckets: cumulative, the last one holding every answer of the series.
      const bucket = (le: string) =>
        sample(text, 'http_request_duration_seconds_bucket', {
          le,
          method: 'POST',
          route: '/pipelineapi/exec/:format',
          status_code: '200',
        });
      expect(bucket('+Inf')).toBe(2);
      expect(bucket('10')).toBe(2);
      expect(bucket('0.001')).toBeLessThanOrEqual(2);
      // Patterns only: no request id, query or unknown path becomes a label.
      const routes = [...labelValues(text, 'http_request_duration_seconds_count', 'route')];
      expect(routes.filter((r) => /pl_1-|\?|no\/such|local/.test(r))).toEqual([]);
    } finally {
      await service.close();
    }
  });

  it("writes the answers' histogram as prom-client's own Histogram does", async () => {
    const metrics = new ServiceMetrics(() => []);
    const registry = new Registry();
    const reference = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'reference',
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers: [registry],
    });
    // On a bound, between bounds, above the last one, and zero; three series.
    const answers: [string, string, number, number][] = [
      ['GET', '/pipelineapi/list/:format', 200, 0.0004],
      ['GET', '/pipelineapi/list/:format', 200, 0.001],
      ['GET', '/pipelineapi/list/:format', 200, 0.0030001],
      ['GET', '/pipelineapi/list/:format', 200, 12],
      ['GET', '/pipelineapi/list/:format', 401, 0],
      ['POST', '/pipelineapi/exec/:format', 200, 0.25],
    ];
    for (const [method, route, status, seconds] of answers) {
      metrics.answered(method, route, status, seconds);
      reference.observe({ method, route, status_code: String(status) }, seconds);
    }
    const series = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('http_request_duration_seconds_'))
        .sort();
    const ours = series(await metrics.registry.metrics());
    expect(ours).toHaveLength(3 * (HTTP_BUCKETS.length + 3));
    expect(ours).toEqual(series(await registry.metrics()));
    // The JSON form too, as prom-client's get() gives it.
    const json = await metrics.registry.getMetricsAsJSON();
    const values = (metric: { values: unknown[] } | undefined) =>
      JSON.stringify(metric?.values.map((v) => JSON.stringify(v)).sort());
    expect(values(json.find((m) => m.name === 'http_request_duration_seconds'))).toBe(
      values(await reference.get()),
    );
    metrics.registry.resetMetrics();
    expect(series(await metrics.registry.metrics())).toEqual([]);
  });

  it("counts each change of an embedded request's status, a retry's too", async () => {
    const service = await startService({
      pipelinesFile: writeTestPipelines(mkdtempSync(join(tmpdir(), 'metrics-changes-'))),
    });
    try {
      writeFileSync(join(service.dataDir, 'inbox', 'orders.csv'), 'id,amount,note\n1,20,x\n');
      await service.client.exec('pl_1', 'orders.csv');
      const failed = (await service.client.exec('pl_1', 'missing.csv')).requestId ?? '';
      await service.app.engine.whenIdle();
      const read = async () => await (await service.fetch('/metrics')).text();
      const changes = (text: string, status: string) =>
        sample(text, 'pipeline_requests_total', { service: 'local', pipeline: 'pl_1', status });
      let text = await read();
      expect(changes(text, 'Start')).toBe(2);
      // Process once per run, however many stages it goes through; the missing input
      // fails before its Sensor starts.
      expect(changes(text, 'Process')).toBe(1);
      expect(changes(text, 'Finish')).toBe(1);
      expect(changes(text, 'Error')).toBe(1);
      // A new request's Wait is its creation, not a change.
      expect(changes(text, 'Wait')).toBeUndefined();
      expect(text).toMatch(/# TYPE pipeline_requests_total counter/);

      await service.client.retry(failed);
      await service.app.engine.whenIdle();
      text = await read();
      expect(changes(text, 'Wait')).toBe(1);
      expect(changes(text, 'Start')).toBe(3);
      expect(changes(text, 'Error')).toBe(2);
    } finally {
      await service.close();
    }
  });

  it("counts the changes an upstream's index poller sees, in the service's own words", async () => {
    const vendor = await startVendorService();
    const gateway = await startService({
      services: [{ id: 'vendor', name: 'Vendor', url: vendor.url, apiKey: vendor.apiKey }],
      pollScheduled: false,
    });
    try {
      const poller = gateway.app.context.services.route('vendor')?.upstream?.poller;
      if (!poller) throw new Error('the gateway keeps no index of its upstream');
      vendor.addRequests('pl_1', 4, 'daily.csv', 'done');
      // The first round sees the day as it stands: no change of anything.
      await poller.pollNow();
      const read = async () => await (await gateway.fetch('/metrics')).text();
      const changes = (text: string, pipeline: string, status: string) =>
        sample(text, 'pipeline_requests_total', { service: 'vendor', pipeline, status });
      let text = await read();
      expect(changes(text, 'pl_1', 'Finish')).toBeUndefined();

      vendor.addRequests('pl_1', 2, 'daily.csv', 'done');
      vendor.addRequests('pl_2', 1, 'daily.csv', 'failed');
      vendor.addRequests('pl_2', 3, 'daily.csv', 'waiting');
      await poller.pollNow();
      text = await read();
      expect(changes(text, 'pl_1', 'Finish')).toBe(2);
      // kanto's word for a failed request, as the service says it.
      expect(changes(text, 'pl_2', vendor.variant.status.failed)).toBe(1);
      expect(changes(text, 'pl_2', vendor.variant.status.waiting)).toBeUndefined();

      vendor.advance();
      await poller.pollNow();
      // Seen again unchanged: counted once.
      await poller.pollNow();
      text = await read();
      expect(changes(text, 'pl_2', vendor.variant.status.running)).toBe(3);
      expect(changes(text, 'pl_1', 'Finish')).toBe(2);
    } finally {
      await gateway.close();
      await vendor.close();
    }
  });

  it('caps the pipelines and statuses of one service, counting the rest as other', async () => {
    const metrics = new ServiceMetrics(() => []);
    for (let i = 0; i < MAX_PIPELINES_PER_SERVICE + 5; i++)
      metrics.statusChanged('up', `p${i}`, 'Finish');
    for (let i = 0; i < MAX_STATUSES_PER_SERVICE + 3; i++)
      metrics.statusChanged('up', 'p0', `Word${i}`);
    // Another service has caps of its own.
    metrics.statusChanged('other-service', 'p999', 'Finish');
    const text = await metrics.registry.metrics();
    const pipelines = labelValues(text, 'pipeline_requests_total', 'pipeline');
    expect(pipelines.size).toBe(MAX_PIPELINES_PER_SERVICE + 2);
    expect(
      sample(text, 'pipeline_requests_total', {
        service: 'up',
        pipeline: OTHER_LABEL,
        status: 'Finish',
      }),
    ).toBe(5);
    expect(
      sample(text, 'pipeline_requests_total', {
        service: 'up',
        pipeline: 'p0',
        status: OTHER_LABEL,
      }),
    ).toBe(4);
    expect(
      sample(text, 'pipeline_requests_total', {
        service: 'other-service',
        pipeline: 'p999',
        status: 'Finish',
      }),
    ).toBe(1);
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
