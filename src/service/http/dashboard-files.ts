import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../kit/wire.ts';
import { ApiError } from '../errors.ts';
import { isUnder } from './security.ts';

/** The meta tag the dashboard reads its base path from (src/dashboard/core/base-path.ts). */
export const BASE_PATH_META = 'pipeline-base-path';

/**
 * The app shell for a base path: the build's relative asset URLs (`./assets/…`, vite's
 * `base: './'`) made absolute under it, so that they resolve from any client-side route
 * (`/pipelines/requests/42` as well as `/pipelines/`), and the base path in a meta tag for
 * the dashboard's router and API calls. A tag, not a `<base href>` (which the CSP's
 * `base-uri 'none'` refuses) nor an inline script (which `script-src 'self'` refuses).
 * The base path is checked by config.ts (letters, digits, - _ . ~ and slashes): nothing
 * in it needs escaping in an attribute.
 */
export function appShell(html: string, basePath: string): string {
  return html
    .replace(/(\s(?:src|href)=")\.\//g, `$1${basePath}/`)
    .replace(/<head>/, `<head>\n    <meta name="${BASE_PATH_META}" content="${basePath}" />`);
}

/**
 * Serves the built dashboard at `/` (when `staticDir` holds one) with its client-side routes
 * answered by the app shell; anything else unknown, and every unknown API path, is a 404 in
 * the error envelope of the Part it falls under. Under a base path, `/` is the base path's
 * root (http/base-path.ts), and the shell names it.
 */
export async function dashboardFiles(
  server: FastifyInstance,
  staticDir: string | undefined,
  apiPrefixes: readonly string[],
  basePath: string,
): Promise<void> {
  const hasDashboard = staticDir !== undefined && existsSync(join(staticDir, 'index.html'));
  // Read once: the build does not change under a running server (npm run build, then start).
  const shell = hasDashboard
    ? appShell(readFileSync(join(staticDir, 'index.html'), 'utf8'), basePath)
    : '';
  if (hasDashboard) {
    // index.html itself is only ever the shell above, at every path that is not a file.
    await server.register(fastifyStatic, {
      root: staticDir,
      wildcard: false,
      index: false,
      globIgnore: ['index.html'],
    });
  }
  server.setNotFoundHandler((request, reply) => {
    const page = request.method === 'GET' || request.method === 'HEAD';
    if (hasDashboard && page && !isUnder(request.url, apiPrefixes)) {
      // The shell names the current build's assets: a cached copy would name gone ones.
      return reply
        .header('content-type', 'text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .send(shell);
    }
    throw new ApiError(
      404,
      ErrorCode.UnknownApi,
      `Nothing at ${request.method} ${request.url.split('?')[0]}.`,
    );
  });
}
