import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyBaseLogger, FastifyServerFactory, RawServerDefault } from 'fastify';
import type { OperationName } from '../../kit/wire.ts';
import { writeAccessLine } from './access-log.ts';
import { withinBasePath } from './base-path.ts';
import { partCRoute, type ServiceMetrics } from './metrics.ts';
import { API_HEADERS } from './security.ts';

/*
 * Cached Part C reads, answered before Fastify's request cycle (issue 26, docs/throughput.md).
 *
 * A cached read is a few map reads and a digest, but Fastify's full cycle around it (the
 * request and reply objects, routing, the hook runners, onSend and onResponse) costs about
 * three times that. Fastify's own serverFactory hands every request to `tryAnswer` first;
 * it answers only what Part C's resolver vouches for (a GET the cache holds at the current
 * data version, for the shared key with a live SESSIONID or the cookie alone), and does for
 * it what the cycle's hooks would: the API headers (security.ts), the latency histogram
 * (metrics.ts) and the access line (access-log.ts), with the same fields. Everything else,
 * and everything in doubt, goes to Fastify untouched, which also fills the cache. The two
 * paths are held to the same answers by cached-reads.test.ts.
 */

/** A cached Part C answer and whom it is for. */
export interface CachedRead {
  readonly body: Buffer;
  readonly contentType: string;
  readonly operation: OperationName;
  readonly via: 'key' | 'cookie';
}

/** Part C's side: the cached read this raw request asks for, or undefined. */
export type CachedReadResolver = (
  url: string,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  cookie: string | undefined,
) => CachedRead | undefined;

/** The Fastify route that answers such reads on the full cycle (pipelineapi/routes.ts). */
const WILDCARD_ROUTE = '/pipelineapi/*';

export interface CachedReadsOptions {
  /** `--base-path`: '' at the root. */
  readonly basePath: string;
  /** `--trust-proxy`: whose X-Forwarded-For names the client, as Fastify's trustProxy. */
  readonly trustProxy: readonly string[] | undefined;
  readonly metrics: ServiceMetrics;
  /** node:http's server options and timeouts, as Fastify would have set them. */
  readonly http: {
    readonly options: NonNullable<Parameters<typeof createServer>[0]>;
    readonly keepAliveTimeout: number;
    readonly requestTimeout: number;
  };
}

export class CachedReads {
  /** Answers given before Fastify's cycle since the start (tests, the bench). */
  answered = 0;
  private nextId = 0;
  /**
   * The server's request ids, as Fastify makes them by default (`req-1`, `req-2`, …): given
   * to Fastify as its genReqId, so that the access lines of both paths count on one series.
   */
  readonly genReqId = (): string => {
    this.nextId = (this.nextId + 1) & 0x7fffffff;
    return `req-${this.nextId.toString(36)}`;
  };
  private resolver: CachedReadResolver | undefined;
  private cookieOf: ((header: string) => string | undefined) | undefined;
  /** Set when the server writes access lines (info or below). */
  private log: FastifyBaseLogger | undefined;
  private readonly trusted: ((address: string, hop: number) => boolean) | undefined;

  constructor(private readonly options: CachedReadsOptions) {
    this.trusted = options.trustProxy?.length
      ? proxyAddr.compile([...options.trustProxy])
      : undefined;
  }

  /** Fastify's serverFactory: node:http's server, asking tryAnswer before Fastify's handler. */
  readonly serverFactory: FastifyServerFactory<RawServerDefault> = (handler) => {
    const server: Server = createServer(this.options.http.options, (request, response) => {
      try {
        if (this.tryAnswer(request, response)) return;
      } catch {
        // Thrown here, outside Fastify, it would end the process. Nothing is sent before the
        // answer is whole, so an answer not yet begun is the full cycle's to give.
        if (response.headersSent) return;
      }
      handler(request, response);
    });
    // What Fastify sets on a server it makes itself (its lib/server.js).
    server.keepAliveTimeout = this.options.http.keepAliveTimeout;
    server.requestTimeout = this.options.http.requestTimeout;
    return server;
  };

  /**
   * Starts answering once Part C's resolver exists. `cookieOf` reads the SESSIONID out of a
   * Cookie header as the cookie plugin does; `log`, when access lines are written.
   */
  start(
    resolver: CachedReadResolver,
    cookieOf: (header: string) => string | undefined,
    log: FastifyBaseLogger | undefined,
  ): void {
    this.resolver = resolver;
    this.cookieOf = cookieOf;
    this.log = log;
  }

  /** Answers a cached read and returns true, or returns false having done nothing visible. */
  private tryAnswer(request: IncomingMessage, response: ServerResponse): boolean {
    const started = performance.now();
    if (this.resolver === undefined || this.cookieOf === undefined) return false;
    // HEAD, and a GET with a body, take the full cycle.
    if (request.method !== 'GET') return false;
    const headers = request.headers;
    if (headers['content-length'] !== undefined || headers['transfer-encoding'] !== undefined)
      return false;
    const raw = request.url ?? '/';
    const url = this.options.basePath === '' ? raw : withinBasePath(raw, this.options.basePath);
    if (url === undefined) return false;
    const cookieHeader = headers.cookie;
    const read = this.resolver(
      url,
      headers,
      cookieHeader === undefined ? undefined : this.cookieOf(cookieHeader),
    );
    if (read === undefined) return false;
    response.writeHead(200, {
      'content-type': read.contentType,
      'content-length': read.body.length,
      ...API_HEADERS,
    });
    response.end(read.body);
    this.answered++;
    const seconds = (performance.now() - started) / 1000;
    this.options.metrics.answered('GET', partCRoute(WILDCARD_ROUTE, read.operation), 200, seconds);
    if (this.log)
      writeAccessLine(this.log, {
        reqId: this.genReqId(),
        method: 'GET',
        route: WILDCARD_ROUTE,
        url: raw,
        status: 200,
        ms: seconds * 1000,
        user: null,
        via: read.via,
        ip: this.clientAddress(request),
      });
    return true;
  }

  /** request.ip as Fastify tells it: the socket's peer, or the trusted proxies' client. */
  private clientAddress(request: IncomingMessage): string | undefined {
    if (this.trusted === undefined) return request.socket.remoteAddress;
    return proxyAddr.all(request, this.trusted).at(-1);
  }
}
