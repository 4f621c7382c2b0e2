import { exactly, text } from './schemas.ts';
import type { Endpoint } from './endpoint.ts';
import { readiness } from './service-schemas.ts';

export const OPERATIONS_ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'GET',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Answers while the process serves',
    answers: {
      '200': {
        description: 'Serving',
        content: { 'application/json': exactly({ status: { const: 'ok' } }) },
      },
    },
  },
  {
    method: 'GET',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Ready when the databases answer and every upstream answered its last check',
    answers: {
      '200': { description: 'Ready', content: { 'application/json': readiness } },
      '503': {
        description: 'Not ready; the failing components named',
        content: { 'application/json': readiness },
      },
    },
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Prometheus metrics (Bearer key when --metrics-key is set)',
    security: ['metricsKey', 'none'],
    answers: {
      '200': { description: 'Prometheus text format', content: { 'text/plain': text } },
      '401': {
        description: 'The metrics key is missing or wrong',
        content: { 'text/plain': text },
      },
    },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This document',
    answers: {
      '200': { description: 'OpenAPI 3.1', content: { 'application/json': { type: 'object' } } },
    },
  },
  {
    method: 'GET',
    path: '/docs',
    tag: 'Operations',
    summary: 'This document, rendered (Swagger UI, served by this server)',
    answers: { '200': { description: 'An HTML page', content: { 'text/html': text } } },
  },
];
