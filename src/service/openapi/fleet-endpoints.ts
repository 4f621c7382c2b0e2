import { FLEET_CLASSES } from '../../kit/fleet.ts';
import { a, aError, failureCode, upstreamCause, type Endpoint } from './endpoints.ts';
import { exactly, isoTime, nullableText, text, wholeNumber, type Schema } from './schemas.ts';

/*
 * The fleet view and the trends (src/service/mcapi/fleet.ts, issue 25): Part A extensions
 * in its JSON envelope, with a management console session, as /mcapi/services.
 */

const day: Schema = { type: 'string', pattern: '^\\d{8}$', description: 'yyyymmdd' };
const nullableDay: Schema = { type: ['string', 'null'], pattern: '^\\d{8}$' };
const nullableNumber: Schema = { type: ['number', 'null'] };
const counts = exactly(
  Object.fromEntries([...FLEET_CLASSES, 'total'].map((name) => [name, wholeNumber])),
);
const zone = {
  timeZone: text,
  utcOffsetMinutes: { type: ['integer', 'null'] },
  utcOffsetEstimated: { type: 'boolean' },
  zoneName: text,
};

const fleetService = exactly({
  id: text,
  name: text,
  label: nullableText,
  color: nullableText,
  embedded: { type: 'boolean' },
  role: text,
  reachable: { type: 'boolean' },
  since: { ...nullableText, description: 'reachable or not since (ISO)' },
  message: nullableText,
  code: failureCode,
  cause: upstreamCause,
  ...zone,
  day: {
    ...nullableDay,
    description: 'the service’s own today; null before its index’s first round',
  },
  dayState: {
    enum: ['complete', 'missed', 'unwatched', 'live'],
    description:
      'complete: exact from the index; missed: the index could not list the whole day (a lower bound); live: the embedded service',
  },
  indexedAt: {
    ...nullableText,
    description: 'the index is as of then (ISO); null for the embedded service',
  },
  indexError: nullableText,
  indexErrorCode: failureCode,
  indexErrorCause: upstreamCause,
  counts,
  words: {
    type: 'array',
    items: exactly({ status: text, class: { enum: [...FLEET_CLASSES] }, count: wholeNumber }),
  },
  jumps: {
    type: 'array',
    description: 'pipelines whose today jumps (JUMP_RULES of the kit, said on the page)',
    items: exactly({
      pipelineId: text,
      name: text,
      kind: { enum: ['failureRate', 'p95'] },
      today: { type: 'number' },
      median: { type: 'number' },
    }),
  },
});

const trendPoint = exactly({
  day,
  watched: { type: 'boolean' },
  counts,
  failureRate: { ...nullableNumber, description: 'failed among the ended, 0..1' },
  durations: wholeNumber,
  p50Ms: nullableNumber,
  p95Ms: nullableNumber,
});

const trends = exactly({
  service: text,
  pipelineId: text,
  name: text,
  days: wholeNumber,
  today: nullableDay,
  ...zone,
  points: { type: 'array', items: trendPoint, description: 'oldest first, today last' },
  baseline: exactly({ failureRate: nullableNumber, p95Ms: nullableNumber }),
  jumps: exactly({ failureRate: { type: 'boolean' }, p95: { type: 'boolean' } }),
});

export const FLEET_ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'GET',
    path: '/mcapi/fleet',
    tag: 'Extensions',
    summary:
      'Every service the caller may read: today’s requests per class in its own day, reachability, the index’s freshness, pipelines that jump',
    security: ['mcSession'],
    answers: {
      '200': a(
        'The services, in the server’s order',
        exactly({ generatedAt: isoTime, services: { type: 'array', items: fleetService } }),
      ),
      '401': aError('No live session (3001)'),
    },
  },
  {
    method: 'GET',
    path: '/mcapi/trends',
    tag: 'Extensions',
    summary: 'A pipeline’s last days: requests by outcome and durations (p50, p95)',
    security: ['mcSession'],
    fields: [
      { name: 'service', schema: text, description: 'a service id; the first service if left out' },
      { name: 'pipelineid', schema: text, required: true },
      {
        name: 'days',
        schema: { type: 'string', pattern: '^\\d{1,2}$' },
        description: '1 to 31; 30 if left out',
      },
    ],
    answers: {
      '200': a('One point per day, oldest first', trends),
      '400': aError('A missing or malformed parameter, named (2002, 2003)'),
      '401': aError('No live session (3001)'),
      '403': aError('The caller’s role on that service may not read it (3003)'),
      '404': aError('No such pipeline of the embedded service (4004)'),
    },
  },
];
