import fastifyHelmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, {
  type FastifyInstance,
  type FastifyPluginAsync,
  type FastifyReply,
  type FastifyRequest,
  type onSendHookHandler,
} from 'fastify';

/*
 * Browser protections, as two header sets computed once and set in one call per answer
 * (docs/throughput.md: @fastify/helmet rebuilt its whole set for every answer, about 14 %
 * of the busy CPU under load, and the page-only headers tripled an API answer's headers).
 *
 * - Pages (the dashboard's shell and assets, /docs, anything answered as text/html): a
 *   strict Content-Security-Policy (no inline script or style markup, no framing) and
 *   helmet's other defaults.
 * - API answers (every Part's prefix): only what a non-page answer needs, see API_HEADERS.
 *
 * Each set is applied by a hook in its own encapsulated scope (apiScope, siteScope), so an
 * API answer runs no hook of the pages', and the other way round.
 */

const HELMET_OPTIONS: FastifyHelmetOptions = {
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      // React and uPlot set styles through the CSSOM (element.style), which CSP allows;
      // no inline <style> or style="" markup is needed.
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      fontSrc: ["'self'"],
      connectSrc: ["'self'"],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
  },
  // The service speaks plain HTTP unless a proxy in front terminates TLS; that proxy, not
  // this process, decides about HSTS. Upgrading requests would break plain HTTP.
  strictTransportSecurity: false,
  frameguard: { action: 'deny' },
};

type Headers = Readonly<Record<string, string>>;

/**
 * What every API answer carries, and why each:
 * - `cache-control: no-store`: answers carry session ids, the API key (settings) and
 *   operations data; no browser or proxy cache may keep them.
 * - `x-content-type-options: nosniff`: the declared type is the type; an XML or text
 *   answer holding a caller's text is never sniffed into HTML or script.
 * - `cross-origin-resource-policy: same-origin`: Part C's JSON is `text/javascript`
 *   (interfaces.md), which a page of another origin may load with `<script src>`, and a
 *   page on another port of this host is same-site, so the browser adds the SESSIONID
 *   cookie; this keeps such answers out of other origins' pages (and their processes).
 * Nothing else applies to an answer that is not a document: framing, referrer, opener and
 * CSP headers govern what a page does, and an API answer that is a page (Part C's `htm`)
 * gets the page headers as well (see apiScope).
 */
export const API_HEADERS: Headers = Object.freeze({
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
});

let pageHeadersOnce: Promise<Headers> | undefined;

/**
 * The page header set, as helmet makes it from HELMET_OPTIONS: asked of helmet once per
 * process (it writes them on the raw response of one request to a throwaway instance)
 * instead of once per answer. helmet keeps deciding which headers a page gets.
 */
export function pageHeaders(): Promise<Headers> {
  pageHeadersOnce ??= (async () => {
    const probe = Fastify();
    let headers: Headers = {};
    try {
      await probe.register(fastifyHelmet, HELMET_OPTIONS);
      probe.get('/', (_request, reply) => {
        // helmet's onRequest hook set them on the raw response; Fastify's own come later.
        headers = Object.freeze(
          Object.fromEntries(
            Object.entries(reply.raw.getHeaders()).map(([name, value]) => [
              name,
              [value].flat().join(', '),
            ]),
          ),
        );
        return reply.send('');
      });
      await probe.inject('/');
    } finally {
      await probe.close();
    }
    if (!headers['content-security-policy'])
      throw new Error('helmet set no Content-Security-Policy: the page headers are incomplete');
    return headers;
  })();
  return pageHeadersOnce;
}

function isHtml(reply: FastifyReply): boolean {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('text/html');
}

/**
 * An encapsulated scope for a Part's routes: every answer in it, errors included, gets
 * API_HEADERS; one sent as text/html (Part C's `htm`, its error pages) is a page to a
 * browser and gets the page headers too.
 */
export async function apiScope(
  routes: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyPluginAsync> {
  const htmlHeaders: Headers = { ...(await pageHeaders()), ...API_HEADERS };
  return async (scope) => {
    // A callback hook, not an async one: no promise per answer on the hot path.
    const onSend: onSendHookHandler = (_request, reply, payload, done) => {
      void reply.headers(isHtml(reply) ? htmlHeaders : API_HEADERS);
      done(null, payload);
    };
    scope.addHook('onSend', onSend);
    await scope.register(routes);
  };
}

/**
 * An encapsulated scope for everything that is not a Part: the dashboard's files and its
 * shell, /docs, health, sign-on. Its answers get the page headers, except those under an
 * API prefix (a 404 for an unknown API path, single sign-on's JSON), which get API_HEADERS.
 */
export async function siteScope(
  apiPrefixes: readonly string[],
  routes: (app: FastifyInstance) => Promise<void>,
): Promise<FastifyPluginAsync> {
  const page = await pageHeaders();
  const htmlHeaders: Headers = { ...page, ...API_HEADERS };
  return async (scope) => {
    const onSend: onSendHookHandler = (request: FastifyRequest, reply, payload, done) => {
      void reply.headers(
        !isUnder(request.url, apiPrefixes) ? page : isHtml(reply) ? htmlHeaders : API_HEADERS,
      );
      done(null, payload);
    };
    scope.addHook('onSend', onSend);
    await scope.register(routes);
  };
}

/** True when the URL's path is one of the prefixes or below one. */
export function isUnder(url: string, prefixes: readonly string[]): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}
