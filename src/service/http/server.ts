import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { redactingLogger } from '../audit/redact.ts';
import { parseForm } from '../form.ts';
import type { ServiceLimits } from '../limits.ts';
import { accessLog } from './access-log.ts';
import { basePathHooks, basePathRewriter } from './base-path.ts';
import { CachedReads } from './cached-reads.ts';
import type { ServiceMetrics } from './metrics.ts';
import { refuseCredentialsInQuery } from './query-credentials.ts';

// The service's HTTP server as app.ts builds it: its bounds, parsers and plugins.

export const BODY_LIMIT = 1024 * 1024;

/** Fastify's default keep-alive, set on the server http/cached-reads.ts makes for it. */
const KEEP_ALIVE_MS = 72_000;

/** node:http's options of the service's server. */
function httpOptions(limits: ServiceLimits) {
  return {
    // Long query strings reach the parameter checks (and their 400) instead of Node's bare 431.
    maxHeaderSize: 64 * 1024,
    // A slow client (headers or body trickling in) is cut off instead of holding a
    // connection; Node checks these every connectionsCheckingInterval.
    headersTimeout: limits.headersTimeoutMs,
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  };
}

/** What the HTTP server takes of the service's configuration (app.ts AppConfig). */
export interface HttpSettings {
  readonly basePath?: string | undefined;
  readonly trustProxy?: readonly string[] | undefined;
  readonly logger?: FastifyServerOptions['logger'];
}

/**
 * Fastify with the service's bounds, body parsing, cookies and sign-in limit, on node:http's
 * server with cached Part C reads answered before Fastify's cycle (cached-reads.ts).
 */
export async function httpServer(
  config: HttpSettings,
  limits: ServiceLimits,
  metrics: ServiceMetrics,
): Promise<{ server: FastifyInstance; cached: CachedReads }> {
  const cached = new CachedReads({
    basePath: config.basePath ?? '',
    trustProxy: config.trustProxy,
    metrics,
    http: {
      options: httpOptions(limits),
      keepAliveTimeout: KEEP_ALIVE_MS,
      requestTimeout: limits.requestTimeoutMs,
    },
  });
  const rewriter = basePathRewriter(config.basePath ?? '');
  const server = Fastify({
    // No password, key, session id or sign-on code in a log line: URLs are logged redacted.
    ...redactingLogger(config.logger),
    bodyLimit: BODY_LIMIT,
    // node:http's server with cached Part C reads answered before Fastify's cycle, and the
    // service's bounds (httpOptions, requestTimeout) set on it.
    serverFactory: cached.serverFactory,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    genReqId: cached.genReqId,
    routerOptions: { querystringParser: parseForm },
    // request.ip (the audit, the sign-in limits) is the client's address as the listed
    // proxies tell it in X-Forwarded-For; anyone else's X-Forwarded-For is ignored.
    trustProxy: config.trustProxy?.length ? [...config.trustProxy] : false,
    // Under a base path, routes see their own paths (http/base-path.ts).
    ...(rewriter ? { rewriteUrl: rewriter } : {}),
  });
  accessLog(server);
  // Before any route's own hooks: a key in a URL is named as such, not taken as no key.
  refuseCredentialsInQuery(server);
  server.server.maxConnections = limits.maxConnections;
  server.removeAllContentTypeParsers();
  await server.register(fastifyFormbody, { bodyLimit: BODY_LIMIT, parser: parseForm });
  await server.register(fastifyCookie);
  // After the cookie plugin: its onSend writes the Set-Cookie lines this one rewrites.
  basePathHooks(server, config.basePath ?? '');
  return { server, cached };
}
