import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { OPERATIONS } from '../../kit/wire.ts';
import type { EndedRequest } from '../engine/recorder.ts';

/** The day's requests of one service, pipeline and status. */
export interface DayCount {
  readonly service: string;
  readonly pipeline: string;
  readonly status: string;
  readonly count: number;
}

/**
 * Prometheus metrics (contract section 9) with prom-client: the process's standard
 * metrics, the day's requests per service, pipeline and status (read at scrape time),
 * request run times, upstream checks, and HTTP answers by route and status.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly runs: Histogram<'pipeline' | 'status'>;
  private readonly checks: Histogram<'service' | 'outcome'>;
  private readonly checkFailures: Counter<'service'>;
  private readonly answers: Counter<'route' | 'status'>;

  constructor(dayCounts: () => readonly DayCount[]) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'pipeline_requests_today',
      help: "Requests of the service's current day, by service, pipeline and status",
      labelNames: ['service', 'pipeline', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of dayCounts())
          this.set({ service: c.service, pipeline: c.pipeline, status: c.status }, c.count);
      },
    });
    this.runs = new Histogram({
      name: 'pipeline_request_duration_seconds',
      help: 'Time from a request beginning to its end (Finish, Error or Stop)',
      labelNames: ['pipeline', 'status'] as const,
      buckets: [0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600],
      registers: [this.registry],
    });
    this.checks = new Histogram({
      name: 'pipeline_upstream_check_seconds',
      help: "Time an upstream service took to answer the gateway's check",
      labelNames: ['service', 'outcome'] as const,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15],
      registers: [this.registry],
    });
    this.checkFailures = new Counter({
      name: 'pipeline_upstream_check_failures_total',
      help: 'Checks of an upstream service that failed (unreachable, slow, or answering badly)',
      labelNames: ['service'] as const,
      registers: [this.registry],
    });
    this.answers = new Counter({
      name: 'pipeline_http_responses_total',
      help: 'HTTP answers by route and status',
      labelNames: ['route', 'status'] as const,
      registers: [this.registry],
    });
  }

  requestEnded(ended: EndedRequest): void {
    if (ended.seconds !== undefined && ended.seconds >= 0)
      this.runs.observe({ pipeline: ended.pipelineId, status: ended.status }, ended.seconds);
  }

  upstreamChecked(service: string, seconds: number, ok: boolean): void {
    this.checks.observe({ service, outcome: ok ? 'ok' : 'failed' }, seconds);
    if (!ok) this.checkFailures.inc({ service });
  }

  answered(route: string, status: number): void {
    this.answers.inc({ route, status: String(status) });
  }
}

const PART_C = /^(?:\/services\/[^/]+)?\/pipelineapi\/([^/?]+)/;

/** A route label of bounded variety: Part C by operation, others by their route pattern. */
function routeOf(request: FastifyRequest): string {
  const operation = PART_C.exec(request.url)?.[1];
  if (operation !== undefined)
    return Object.hasOwn(OPERATIONS, operation) ? `/pipelineapi/${operation}` : '/pipelineapi/?';
  return request.routeOptions.url ?? 'unmatched';
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** GET /metrics, behind `Authorization: Bearer <key>` when a key is set, and the counting hook. */
export function metricsRoutes(
  server: FastifyInstance,
  metrics: ServiceMetrics,
  key: string | undefined,
): void {
  server.addHook('onResponse', async (request, reply) => {
    metrics.answered(routeOf(request), reply.statusCode);
  });
  server.get('/metrics', async (request, reply) => {
    if (key !== undefined) {
      const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
      if (!timingSafeEqual(digest(given), digest(key)))
        return reply
          .code(401)
          .header('www-authenticate', 'Bearer')
          .type('text/plain; charset=utf-8')
          .send('Send the metrics key as Authorization: Bearer <key>.');
    }
    return reply
      .header('content-type', metrics.registry.contentType)
      .header('cache-control', 'no-store')
      .send(await metrics.registry.metrics());
  });
}
