import { exactly, text, type Schema } from './schemas.ts';
import type { Answer, Endpoint } from './endpoint.ts';
import { readiness } from './service-schemas.ts';

/** An answer whose body is of one media type. */
const answer = (description: string, mediaType: string, schema: Schema): Answer => ({
  description,
  content: { [mediaType]: schema },
});
const json = (description: string, schema: Schema) =>
  answer(description, 'application/json', schema);
const plain = (description: string) => answer(description, 'text/plain', text);

/** Every operations endpoint is a GET under the Operations tag. */
const operation = ({ path, ...rest }: Omit<Endpoint, 'method' | 'tag'>): Endpoint => ({
  method: 'GET',
  path,
  tag: 'Operations',
  ...rest,
});

export const OPERATIONS_ENDPOINTS: readonly Endpoint[] = [
  operation({
    path: '/healthz',
    summary: 'Answers while the process serves',
    answers: { '200': json('Serving', exactly({ status: { const: 'ok' } })) },
  }),
  operation({
    path: '/readyz',
    summary: 'Ready when the databases answer and every upstream answered its last check',
    answers: {
      '200': json('Ready', readiness),
      '503': json('Not ready; the failing components named', readiness),
    },
  }),
  operation({
    path: '/metrics',
    summary: 'Prometheus metrics (Bearer key when --metrics-key is set)',
    security: ['metricsKey', 'none'],
    answers: {
      '200': plain('Prometheus text format'),
      '401': plain('The metrics key is missing or wrong'),
    },
  }),
  operation({
    path: '/openapi.json',
    summary: 'This document',
    answers: { '200': json('OpenAPI 3.1', { type: 'object' }) },
  }),
  operation({
    path: '/docs',
    summary: 'This document, rendered (Swagger UI, served by this server)',
    answers: { '200': answer('An HTML page', 'text/html', text) },
  }),
];
