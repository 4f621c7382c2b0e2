import type { FastifyInstance } from 'fastify';
import type { ErrorRenderer } from './errors-handler.ts';

/** One of the service's interfaces (Part A, B or C): its path prefixes, error envelope and routes. */
export interface Part {
  readonly prefixes: readonly string[];
  readonly renderError: ErrorRenderer;
  readonly routes: (app: FastifyInstance) => Promise<void>;
}
