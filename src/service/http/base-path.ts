import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ErrorCode } from '../../kit/wire.ts';
import { ApiError } from '../errors.ts';

/*
 * `--base-path /pipelines` (docs/deploy/README.md "Behind a proxy"): the server answers under that path and nothing
 * at the root. Inside, every route keeps its own path (`/mcapi/...`, `/healthz`): the path
 * is taken off on the way in (Fastify's rewriteUrl, before routing) and put back on what
 * names a path on the way out (Location, a cookie's Path), the way a proxy's
 * proxy_redirect and proxy_cookie_path do. Routes, hooks, the per-Part error envelopes,
 * metrics' route labels and the OpenAPI document are then the same under any base path.
 */

/** Requests that came for a path outside the base path: answered 404, whatever they name. */
const outside = new WeakSet<IncomingMessage>();

/** The path a URL names inside the base path (`/base/x?q` is `/x?q`); undefined outside it. */
export function withinBasePath(url: string, basePath: string): string | undefined {
  const rest = url.slice(basePath.length);
  if (url.startsWith(basePath) && (rest === '' || rest.startsWith('/') || rest.startsWith('?')))
    return rest.startsWith('/') ? rest : `/${rest}`;
  return undefined;
}

/** Fastify's rewriteUrl for a base path; undefined at the root (nothing to rewrite). */
export function basePathRewriter(basePath: string): ((raw: IncomingMessage) => string) | undefined {
  if (basePath === '') return undefined;
  return (raw) => {
    const url = raw.url ?? '/';
    const inside = withinBasePath(url, basePath);
    if (inside !== undefined) return inside;
    // Left as it is, but refused by the hook below before any route's handler runs.
    outside.add(raw);
    return url;
  };
}

/**
 * Refuses what came outside the base path and writes the base path into the paths an
 * answer names. Registered on the root before any route, so it covers every one.
 */
export function basePathHooks(server: FastifyInstance, basePath: string): void {
  if (basePath === '') return;
  server.addHook('onRequest', async (request) => {
    if (outside.has(request.raw))
      throw new ApiError(
        404,
        ErrorCode.UnknownApi,
        `Nothing at ${request.method} ${request.url.split('?')[0]}: this server answers under ${basePath}/.`,
      );
  });
  server.addHook('onSend', async (_request, reply, payload) => {
    const location = reply.getHeader('location');
    if (typeof location === 'string' && location.startsWith('/') && !location.startsWith('//'))
      void reply.header('location', `${basePath}${location}`);
    const cookies = reply.getHeader('set-cookie');
    // reply.header adds Set-Cookie lines to those already there: replaced, not added.
    if (cookies !== undefined)
      void reply.removeHeader('set-cookie').header(
        'set-cookie',
        [cookies].flat().map((cookie) => withCookiePath(String(cookie), basePath)),
      );
    return payload;
  });
}

/** A Set-Cookie line with the base path before its Path (`Path=/` becomes `Path=/base`). */
export function withCookiePath(cookie: string, basePath: string): string {
  return cookie.replace(
    /(;\s*path=)(\/[^;]*)/i,
    (_whole, name: string, path: string) => `${name}${basePath}${path === '/' ? '' : path}`,
  );
}

/**
 * The base path this request came under: what rewriteUrl took off its URL ('' at the root).
 * Read from the request itself, so route code needs no configuration to build its own
 * absolute URLs (single sign-on's redirect_uri).
 */
export function basePathOf(request: FastifyRequest): string {
  const original = request.originalUrl.split('?', 1)[0] ?? '';
  const path = request.url.split('?', 1)[0] ?? '';
  if (original === path) return '';
  // `/base` became `/`: nothing of the route's path was in the original.
  if (path === '/' && !original.endsWith('/')) return original;
  return original.endsWith(path) ? original.slice(0, original.length - path.length) : '';
}

/** `https://host[:port]/base`: where this request reached the server from the outside. */
export function externalBase(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}${basePathOf(request)}`;
}
