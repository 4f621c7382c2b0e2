import fastifySwagger, { type StaticDocumentSpec } from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { openApiDocument } from './document.ts';

export const DOCS_PREFIX = '/docs';

/** One route as the server registered it (method and Fastify URL pattern). */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
}

/**
 * Records every route from here on, so a test can compare what the server answers with
 * the document; call it before any route is registered.
 */
export function collectRoutes(server: FastifyInstance): RegisteredRoute[] {
  const routes: RegisteredRoute[] = [];
  server.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  return routes;
}

/**
 * `GET /openapi.json` and `/docs` (Swagger UI, every asset from this server). The page
 * needs no CSP exception: Swagger UI's index has no inline script or style (its initializer
 * is a file of its own), React sets styles through the CSSOM, the validator badge (an
 * image from another host) is turned off, and the layout leaves out the top bar, whose SVG
 * logo holds an inline <style>. The server-wide policy applies unchanged
 * (e2e/openapi.spec.ts fails on any violation). `basePath` (`--base-path`, '' at the root)
 * is the document's server, so that a client built from it calls under that path.
 */
export async function openApiRoutes(
  server: FastifyInstance,
  version: string,
  basePath = '',
): Promise<void> {
  const document = openApiDocument(version, basePath);
  const body = JSON.stringify(document);
  server.get('/openapi.json', async (_request, reply) =>
    reply.header('content-type', 'application/json; charset=utf-8').send(body),
  );
  await server.register(fastifySwagger, {
    mode: 'static',
    // The plugin's types stop at OpenAPI 3.0; it passes a 3.1 document through as it is,
    // and Swagger UI reads 3.1.
    specification: { document: document as unknown as StaticDocumentSpec['document'] },
  });
  await server.register(fastifySwaggerUi, {
    routePrefix: DOCS_PREFIX,
    // BaseLayout: without Standalone's top bar, whose SVG logo carries an inline <style>
    // that the policy refuses (and which serves no purpose here).
    uiConfig: { validatorUrl: null, deepLinking: true, layout: 'BaseLayout' },
  });
}
