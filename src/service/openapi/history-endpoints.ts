import { DAY_PATTERN } from '../../kit/wire.ts';
import { pipelineIdSchema, requestIdSchema } from '../pipelineapi/fields.ts';
import { a, aError, type Endpoint, type Field } from './endpoints.ts';
import { exactly, isoTime, nullableText, text, wholeNumber, type Schema } from './schemas.ts';

/*
 * A request's attempts and requests over a range of days (src/service/mcapi/request-history.ts,
 * issue 25): Part A extensions for any signed-in person, for the embedded service and for
 * a service behind the gateway alike.
 */

const failures = {
  '400': aError('A missing or malformed parameter, named (2002, 2003)'),
  '401': aError('No live session (3001)'),
  '404': aError('No such service, or no such request there (4004)'),
};

const nullableTime: Schema = { type: ['string', 'null'], format: 'date-time' };

const service: Field = {
  name: 'service',
  schema: text,
  description: 'a service id of GET /mcapi/services; the first service when not given',
};

const actor = {
  userName: nullableText,
  via: { type: 'string', description: 'session, key, cookie or `token <name>`' },
  at: isoTime,
  bulkJob: { type: ['integer', 'null'], minimum: 0 },
  reason: nullableText,
};

const attempt = exactly({
  attempt: { type: 'integer', minimum: 1 },
  status: text,
  stage: text,
  startedAt: {
    ...nullableTime,
    description:
      'when a gateway first saw it (observed), or when the embedded service wrote it; null unknown',
  },
  endedAt: {
    ...nullableTime,
    description: 'as startedAt, of its end; null unknown or not ended',
  },
  beginTime: {
    type: 'string',
    description:
      "when it began as the service states it, on the service's own clock (YYYY-MM-DD hh:mm:ss); behind a gateway the vendor's BeginTime, or its request log's dated lines for an earlier attempt; '' where it states none",
  },
  endTime: {
    type: 'string',
    description: "when it ended as the service states it, as beginTime; '' none or not ended",
  },
  observed: {
    type: 'boolean',
    description:
      "true behind a gateway: startedAt, endedAt and the changes' times are when the gateway saw each, not the service's own",
  },
  changes: {
    type: 'array',
    items: exactly({ status: text, stage: text, at: nullableTime }),
  },
  failed: { type: 'boolean' },
  message: {
    type: 'string',
    description: 'the failure in the service’s words, up to 2000 characters',
  },
  log: {
    type: 'array',
    items: exactly({ date: text, type: text, message: text }),
    description: 'the last application-log lines at the failure (at most 20)',
  },
  evidence: {
    enum: ['', 'due', 'kept', 'lost'],
    description: 'due: not read yet (within the budget); lost: the request moved on first',
  },
  retriedBy: { anyOf: [exactly(actor), { type: 'null' }] },
  cancelledBy: { anyOf: [exactly(actor), { type: 'null' }] },
});

const day: Schema = { type: 'string', pattern: DAY_PATTERN.source };

export const HISTORY_ENDPOINTS: readonly Endpoint[] = [
  {
    method: 'GET',
    path: '/mcapi/requests/attempts',
    tag: 'Extensions',
    summary:
      "A request's attempts, oldest first, with a failure's words and last log lines as first seen, and who retried or cancelled through this server",
    security: ['mcSession'],
    fields: [service, { name: 'requestid', schema: requestIdSchema, required: true }],
    answers: {
      '200': a(
        'The attempts, and every retry and cancel of the request the audit log holds',
        exactly({
          service: text,
          requestId: text,
          attempts: { type: 'array', items: attempt },
          actions: {
            type: 'array',
            items: exactly({ action: { enum: ['retry', 'cancel'] }, ...actor }),
          },
        }),
      ),
      ...failures,
    },
  },
  {
    method: 'GET',
    path: '/mcapi/requests/range',
    tag: 'Extensions',
    summary: 'Requests over up to 31 days, newest first, with exact counts per day and per status',
    security: ['mcSession'],
    fields: [
      service,
      { name: 'from', schema: day, required: true, description: 'the first day, yyyymmdd' },
      {
        name: 'to',
        schema: day,
        required: true,
        description: 'the last day, at most 30 after from',
      },
      { name: 'id', schema: pipelineIdSchema },
      { name: 'status', schema: text, description: 'status words, comma-separated' },
      {
        name: 'q',
        schema: text,
        description: 'a substring of the request id, file name or a failure',
      },
      { name: 'index', schema: { type: 'string', pattern: '^\\d{1,10}$' } },
      {
        name: 'pagesize',
        schema: { type: 'string', pattern: '^\\d{1,10}$' },
        description: '1 to 1000',
      },
    ],
    answers: {
      '200': a(
        'A page and the counts; `exact` is false when a day was not watched whole by the index',
        exactly({
          service: text,
          from: text,
          to: text,
          total: wholeNumber,
          exact: { type: 'boolean' },
          days: {
            type: 'array',
            items: exactly({
              day: text,
              count: wholeNumber,
              state: { enum: ['complete', 'missed', 'unwatched'] },
            }),
          },
          statuses: { type: 'array', items: exactly({ status: text, count: wholeNumber }) },
          index: wholeNumber,
          pageSize: wholeNumber,
          next: { type: 'integer', minimum: -1 },
          requests: {
            type: 'array',
            items: exactly({
              requestId: text,
              pipelineId: text,
              status: text,
              stage: text,
              beginDate: text,
              day: text,
            }),
          },
        }),
      ),
      ...failures,
    },
  },
];
