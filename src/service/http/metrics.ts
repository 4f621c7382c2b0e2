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

/** The `route` of an answer no route matched: the dashboard's own pages and every 404. */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * Label values of `pipeline_requests_total` per service beyond which new ones are counted
 * as `other`: pipelines and status words are the upstream's, so a service with thousands
 * of pipelines (or one inventing words) must not make thousands of series.
 */
export const MAX_PIPELINES_PER_SERVICE = 200;
export const MAX_STATUSES_PER_SERVICE = 20;
export const OTHER_LABEL = 'other';

/**
 * Seconds: 1 ms to 10 s. Cached Part C answers take well under a millisecond, the
 * dashboard's pages and lists a few, a gateway's passed-through call up to the upstream's
 * timeout (10 s by default; slower ones fall in +Inf).
 */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type HttpLabel = 'method' | 'route' | 'status_code';
type Observer = { observe(value: number): void };

/** The label values seen per service, capped (see MAX_PIPELINES_PER_SERVICE). */
class CappedLabels {
  private readonly pipelines = new Set<string>();
  private readonly statuses = new Set<string>();

  pipeline(value: string): string {
    return capped(this.pipelines, value, MAX_PIPELINES_PER_SERVICE);
  }

  status(value: string): string {
    return capped(this.statuses, value, MAX_STATUSES_PER_SERVICE);
  }
}

function capped(seen: Set<string>, value: string, max: number): string {
  if (seen.has(value)) return value;
  if (seen.size >= max) return OTHER_LABEL;
  seen.add(value);
  return value;
}

/**
 * Prometheus metrics (contract section 9) with prom-client: the process's standard
 * metrics, HTTP answers' latency by method, route pattern and status, the requests'
 * changes of status (a counter) and the day's requests (a gauge read at scrape time),
 * request run times and upstream checks.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly runs: Histogram<'pipeline' | 'status'>;
  private readonly checks: Histogram<'service' | 'outcome'>;
  private readonly checkFailures: Counter<'service'>;
  private readonly http: Histogram<HttpLabel>;
  private readonly changes: Counter<'service' | 'pipeline' | 'status'>;
  private readonly labelsOf = new Map<string, CappedLabels>();
  /**
   * route → method → status → the histogram's child: an answer costs three map reads and
   * an observe, not prom-client's hashing of a labels object (sorted keys, a new string).
   */
  private readonly observers = new Map<string, Map<string, Map<number, Observer>>>();

  constructor(dayCounts: () => readonly DayCount[]) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'pipeline_requests_today',
      help:
        "Requests of the service's current day by service, pipeline and status, counted at " +
        'each scrape (goes down when the day turns; for rates use pipeline_requests_total)',
      labelNames: ['service', 'pipeline', 'status'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of dayCounts())
          this.set({ service: c.service, pipeline: c.pipeline, status: c.status }, c.count);
      },
    });
    this.changes = new Counter({
      name: 'pipeline_requests_total',
      help:
        "Changes of a request's status seen since the server started, by the status entered " +
        '(the embedded engine writes each; an upstream is seen by its index poller, so a ' +
        'change between two rounds may be missed); a new request in Wait is no change. ' +
        `More than ${MAX_PIPELINES_PER_SERVICE} pipelines or ${MAX_STATUSES_PER_SERVICE} ` +
        `statuses of one service are counted as "${OTHER_LABEL}".`,
      labelNames: ['service', 'pipeline', 'status'] as const,
      registers: [this.registry],
    });
    this.http = new Histogram({
      name: 'http_request_duration_seconds',
      help:
        'Time to answer an HTTP request, by method, route pattern (Part C by operation; ' +
        `"${UNMATCHED_ROUTE}" when no route matched) and status code`,
      labelNames: ['method', 'route', 'status_code'] as const,
      buckets: HTTP_BUCKETS,
      registers: [this.registry],
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
  }

  requestEnded(ended: EndedRequest): void {
    if (ended.seconds !== undefined && ended.seconds >= 0)
      this.runs.observe({ pipeline: ended.pipelineId, status: ended.status }, ended.seconds);
  }

  /** A request of `service` was seen entering `status` (the engine, or an index poller). */
  statusChanged(service: string, pipeline: string, status: string): void {
    let labels = this.labelsOf.get(service);
    if (!labels) {
      labels = new CappedLabels();
      this.labelsOf.set(service, labels);
    }
    this.changes.inc({
      service,
      pipeline: labels.pipeline(pipeline),
      status: labels.status(status),
    });
  }

  upstreamChecked(service: string, seconds: number, ok: boolean): void {
    this.checks.observe({ service, outcome: ok ? 'ok' : 'failed' }, seconds);
    if (!ok) this.checkFailures.inc({ service });
  }

  /** One HTTP answer; `route` is a pattern (bounded), never the URL asked for. */
  answered(method: string, route: string, statusCode: number, seconds: number): void {
    let byMethod = this.observers.get(route);
    if (!byMethod) {
      byMethod = new Map();
      this.observers.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let observer = byStatus.get(statusCode);
    if (!observer) {
      observer = this.http.labels({ method, route, status_code: String(statusCode) });
      byStatus.set(statusCode, observer);
    }
    observer.observe(seconds);
  }
}

/** The route patterns of Part C's wildcard routes, by operation (built once per pattern). */
const partCRoutes = new Map<string, Map<string, string>>();

/**
 * The route pattern of an answer: Fastify's, except that Part C's one wildcard route per
 * prefix (`…/pipelineapi/*`) is told apart by operation, `…/pipelineapi/<operation>/:format`
 * for the operations wire.ts knows (anything else keeps the wildcard).
 */
export function routeOf(request: FastifyRequest): string {
  const url = request.routeOptions.url;
  if (url === undefined) return UNMATCHED_ROUTE;
  if (!url.endsWith('pipelineapi/*')) return url;
  let byOperation = partCRoutes.get(url);
  if (!byOperation) {
    const base = url.slice(0, -1);
    byOperation = new Map(Object.keys(OPERATIONS).map((op) => [op, `${base}${op}/:format`]));
    partCRoutes.set(url, byOperation);
  }
  const rest = (request.params as { '*'?: string })['*'] ?? '';
  const slash = rest.indexOf('/');
  return byOperation.get(slash < 0 ? rest : rest.slice(0, slash)) ?? url;
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/**
 * GET /metrics, behind `Authorization: Bearer <key>` when a key is set, and the hook that
 * times every answer into `http_request_duration_seconds`: on the server given, so every
 * route and the not-found handler; a callback hook (no promise per answer) that reads the
 * time Fastify already measured.
 */
export function metricsRoutes(
  server: FastifyInstance,
  metrics: ServiceMetrics,
  key: string | undefined,
): void {
  server.addHook('onResponse', (request, reply, done) => {
    metrics.answered(request.method, routeOf(request), reply.statusCode, reply.elapsedTime / 1000);
    done();
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
