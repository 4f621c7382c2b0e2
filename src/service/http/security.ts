import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Browser protections for everything the server answers: a strict Content-Security-Policy
 * (no inline script or style markup, no framing), nosniff and no-referrer defaults from
 * helmet, and `Cache-Control: no-store` on the APIs, whose answers carry session ids, the
 * API key or operations data.
 */
export async function securityHeaders(
  server: FastifyInstance,
  apiPrefixes: readonly string[],
): Promise<void> {
  await server.register(fastifyHelmet, {
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
  });
  server.addHook('onSend', async (request, reply, payload) => {
    if (isUnder(request.url, apiPrefixes)) void reply.header('cache-control', 'no-store');
    return payload;
  });
}

/** True when the URL's path is one of the prefixes or below one. */
export function isUnder(url: string, prefixes: readonly string[]): boolean {
  const path = url.split('?', 1)[0] ?? '';
  return prefixes.some((p) => path === p || path.startsWith(`${p}/`));
}
