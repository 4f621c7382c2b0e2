import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import { redactUrl } from '../audit/redact.ts';

/*
 * One access line per answered request, at `info` (docs/deploy/README.md "Logs"), in place of Fastify's
 * two ("incoming request", "request completed"), which name neither the route nor the
 * person:
 *
 *   {"level":30,"time":…,"reqId":"req-1","msg":"request","method":"GET",
 *    "route":"/pipelineapi/list/:format","url":"/pipelineapi/list/json","status":200,
 *    "durationMs":1.4,"user":"alice","via":"session","ip":"203.0.113.9"}
 *
 * `route` is the route's pattern (null when none matched), `url` the path asked for with
 * every secret query value replaced (audit/redact.ts), `ip` the client's address as the
 * trusted proxies tell it (--trust-proxy).
 */

/** Who a request turned out to be, told by the code that authenticated it. */
const callers = new WeakMap<FastifyRequest, { user: string | null; via: string }>();

/**
 * Whether any server of this process writes access lines. Until one does, noteCaller keeps
 * nothing: a WeakMap entry per answer is garbage-collector work that no line would read
 * (1.3 % of the busy CPU under load, docs/throughput.md).
 */
let anyAccessLog = false;

/** Records who is calling, for this request's access line. */
export function noteCaller(
  request: FastifyRequest,
  caller: { readonly userName?: string | undefined; readonly via: string },
): void {
  if (anyAccessLog) callers.set(request, { user: caller.userName ?? null, via: caller.via });
}

/** Whether the server's level lets access lines (info) through. */
export function writesAccessLines(server: FastifyInstance): boolean {
  return ['info', 'debug', 'trace'].includes(server.log.level);
}

/** Adds the access line; nothing at all when `info` is off (no cost per request then). */
export function accessLog(server: FastifyInstance): void {
  if (!writesAccessLines(server)) return;
  anyAccessLog = true;
  // A callback hook, not an async one: no promise per answer.
  server.addHook('onResponse', (request, reply, done) => {
    const caller = callers.get(request);
    writeAccessLine(request.log, {
      method: request.method,
      route: request.routeOptions.url ?? null,
      url: request.originalUrl,
      status: reply.statusCode,
      ms: reply.elapsedTime,
      user: caller?.user ?? null,
      via: caller?.via ?? null,
      ip: request.ip,
    });
    done();
  });
}

/** What an access line tells of one answer. */
export interface AccessLine {
  readonly method: string;
  readonly route: string | null;
  /** The URL as asked, before the base path is taken off; redacted here. */
  readonly url: string;
  readonly status: number;
  readonly ms: number;
  readonly user: string | null;
  readonly via: string | null;
  readonly ip: string | undefined;
  /** Given when `log` is not already the request's own child logger. */
  readonly reqId?: string;
}

/**
 * The one shape of an access line (docs/deploy/README.md "Logs"): Fastify's cycle writes it
 * from its hook, the cached reads answered before that cycle (cached-reads.ts) directly.
 */
export function writeAccessLine(
  log: FastifyBaseLogger,
  { url, ms, reqId, ...line }: AccessLine,
): void {
  log.info(
    {
      ...(reqId === undefined ? {} : { reqId }),
      method: line.method,
      route: line.route,
      url: redactUrl(url),
      status: line.status,
      durationMs: Math.round(ms * 10) / 10,
      user: line.user,
      via: line.via,
      ip: line.ip,
    },
    'request',
  );
}
