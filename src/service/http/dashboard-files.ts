import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../../kit/wire.ts';
import { ApiError } from '../errors.ts';
import { isUnder } from './security.ts';

/**
 * Serves the built dashboard at `/` (when `staticDir` holds one) with its client-side routes
 * answered by the app shell; anything else unknown, and every unknown API path, is a 404 in
 * the error envelope of the Part it falls under.
 */
export async function dashboardFiles(
  server: FastifyInstance,
  staticDir: string | undefined,
  apiPrefixes: readonly string[],
): Promise<void> {
  const hasDashboard = staticDir !== undefined && existsSync(join(staticDir, 'index.html'));
  if (hasDashboard) {
    await server.register(fastifyStatic, { root: staticDir, wildcard: false, index: 'index.html' });
  }
  server.setNotFoundHandler((request, reply) => {
    if (hasDashboard && request.method === 'GET' && !isUnder(request.url, apiPrefixes)) {
      return reply.sendFile('index.html');
    }
    throw new ApiError(
      404,
      ErrorCode.UnknownApi,
      `Nothing at ${request.method} ${request.url.split('?')[0]}.`,
    );
  });
}
