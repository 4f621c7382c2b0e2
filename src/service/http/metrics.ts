import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  collectDefaultMetrics,
  Counter,
  Gauge,
  Histogram,
  Registry,
  type MetricObjectWithValues,
  type MetricValueWithName,
} from 'prom-client';
import { OPERATIONS } from '../../kit/wire.ts';
import type { EndedRequest } from '../engine/recorder.ts';
import type { IndexPoller } from '../gateway/poller.ts';
import { getOrInsertComputed } from '../maps.ts';

/** The day's requests of one service, pipeline and status. */
export interface DayCount {
  readonly service: string;
  readonly pipeline: string;
  readonly status: string;
  readonly count: number;
}

/**
 * Each upstream's day as its request index holds it (the service's own day), read at a
 * scrape: from the shared index whichever gateway polls the service.
 */
export async function upstreamDayCounts(pollers: readonly IndexPoller[]): Promise<DayCount[]> {
  const days = await Promise.all(
    pollers.map(async (poller) =>
      ((await poller.stats(undefined))?.pipelines ?? []).flatMap((p) =>
        p.counts.map((c) => ({
          service: poller.service,
          pipeline: p.id,
          status: c.status,
          count: c.value,
        })),
      ),
    ),
  );
  return days.flat();
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
export const HTTP_BUCKETS = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

type HttpLabel = 'method' | 'route' | 'status_code';

/** One series of `http_request_duration_seconds`: answers per bucket (not cumulative). */
interface AnswerSeries {
  readonly labels: Readonly<Record<HttpLabel, string>>;
  /** `counts[i]`: answers in (HTTP_BUCKETS[i-1], HTTP_BUCKETS[i]]; the last: above every bound. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * `http_request_duration_seconds`, observed on every answer. prom-client's own `observe`,
 * even on a labelled child, checks the label names, hashes the labels into a string and
 * walks the buckets through an object for every call (2.3 % of the busy CPU under load,
 * docs/throughput.md). Here an answer costs three map reads and a few additions; the
 * series become prom-client's histogram values only when /metrics is read. It stays a
 * prom-client Histogram (name, help, type, registration, exposition), holding no series
 * of its own.
 */
/** status → its series, of one route and method. */
type StatusSeries = Map<number, AnswerSeries>;

const newMap = <K, V>() => new Map<K, V>();

class AnswerDurations extends Histogram<HttpLabel> {
  /** route → method → status → its series. */
  private series = new Map<string, Map<string, StatusSeries>>();

  observeAnswer(method: string, route: string, statusCode: number, seconds: number): void {
    const byMethod = getOrInsertComputed(this.series, route, newMap<string, StatusSeries>);
    const byStatus = getOrInsertComputed(byMethod, method, newMap<number, AnswerSeries>);
    const series = getOrInsertComputed(byStatus, statusCode, () => ({
      labels: { method, route, status_code: String(statusCode) },
      counts: new Float64Array(HTTP_BUCKETS.length + 1),
      sum: 0,
      count: 0,
    }));
    let bucket = 0;
    while (bucket < HTTP_BUCKETS.length && seconds > (HTTP_BUCKETS[bucket] as number)) bucket++;
    series.counts[bucket] = (series.counts[bucket] as number) + 1;
    series.sum += seconds;
    series.count++;
  }

  /**
   * The series as prom-client's Histogram keeps its own (cumulative buckets, sum, count,
   * the series' labels as `sharedLabels`): its `get` (JSON) and the registry's text
   * exposition both read them from here.
   */
  override async getForPromString(): Promise<MetricObjectWithValues<SeriesValue>> {
    // The name, help, type and aggregator, as prom-client reports them; its series: none.
    const metric = await super.getForPromString();
    const values: SeriesValue[] = [];
    for (const byMethod of this.series.values())
      for (const byStatus of byMethod.values())
        for (const series of byStatus.values()) {
          const shared = series.labels;
          let cumulative = 0;
          HTTP_BUCKETS.forEach((bound, i) => {
            cumulative += series.counts[i] as number;
            values.push({
              labels: { le: bound },
              value: cumulative,
              metricName: `${metric.name}_bucket`,
              exemplar: null,
              sharedLabels: shared,
            });
          });
          values.push({
            labels: { le: '+Inf' },
            value: series.count,
            metricName: `${metric.name}_bucket`,
            exemplar: null,
            sharedLabels: shared,
          });
          values.push({
            labels: {},
            value: series.sum,
            metricName: `${metric.name}_sum`,
            sharedLabels: shared,
          });
          values.push({
            labels: {},
            value: series.count,
            metricName: `${metric.name}_count`,
            sharedLabels: shared,
          });
        }
    return { ...metric, values };
  }

  override reset(): void {
    super.reset();
    // Also run by prom-client's constructor, before this class's fields are set.
    this.series = new Map();
  }
}

/** A value of a histogram as prom-client keeps it: the series' labels apart from `le`. */
type SeriesValue = MetricValueWithName<'le'> & {
  /** A bucket's, as prom-client writes it for a histogram without exemplars. */
  readonly exemplar?: null;
  readonly sharedLabels: Readonly<Record<HttpLabel, string>>;
};

declare module 'prom-client' {
  interface Histogram<T extends string> {
    /**
     * What prom-client 15's registry reads to write the exposition, and its `get` to answer
     * JSON (present at run time, absent from its typings).
     */
    getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<T | 'le'>>>;
  }
}

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
  private readonly http: AnswerDurations;
  private readonly changes: Counter<'service' | 'pipeline' | 'status'>;
  private readonly labelsOf = new Map<string, CappedLabels>();

  constructor(dayCounts: () => readonly DayCount[] | Promise<readonly DayCount[]>) {
    collectDefaultMetrics({ register: this.registry });
    new Gauge({
      name: 'pipeline_requests_today',
      help:
        "Requests of the service's current day by service, pipeline and status, counted at " +
        'each scrape (goes down when the day turns; for rates use pipeline_requests_total)',
      labelNames: ['service', 'pipeline', 'status'] as const,
      registers: [this.registry],
      // Async: an upstream's counts are read from its index, which may be in PostgreSQL.
      async collect() {
        const counts = await dayCounts();
        this.reset();
        for (const c of counts)
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
    this.http = new AnswerDurations({
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
    const labels = getOrInsertComputed(this.labelsOf, service, () => new CappedLabels());
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
    this.http.observeAnswer(method, route, statusCode, seconds);
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
  const rest = (request.params as { '*'?: string })['*'] ?? '';
  const slash = rest.indexOf('/');
  return partCRoute(url, slash < 0 ? rest : rest.slice(0, slash));
}

/**
 * The route pattern of a Part C operation under one of its wildcard routes (`wildcard`,
 * ending in `pipelineapi/*`): `…/pipelineapi/<operation>/:format`, or the wildcard itself
 * for a name wire.ts does not know.
 */
export function partCRoute(wildcard: string, operation: string): string {
  let byOperation = partCRoutes.get(wildcard);
  if (!byOperation) {
    const base = wildcard.slice(0, -1);
    byOperation = new Map(Object.keys(OPERATIONS).map((op) => [op, `${base}${op}/:format`]));
    partCRoutes.set(wildcard, byOperation);
  }
  return byOperation.get(operation) ?? wildcard;
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
