import { DAY_PATTERN } from '../../kit/wire.ts';
import { pipelineIdSchema } from '../pipelineapi/fields.ts';
import type { Answer, Endpoint, Field } from './endpoints.ts';
import { exactly, isoTime, partCAnswer, text, wholeNumber, type Schema } from './schemas.ts';

/*
 * The bulk retry and cancel endpoints (src/service/bulk/routes.ts, issue 14), under both
 * Part C prefixes. They answer JSON only, in Part C's JSON media type; their failures are
 * Part C's error answers.
 */

const JSON_MEDIA = 'text/javascript';

const json = (description: string, schema: Schema): Answer => ({
  description,
  content: { [JSON_MEDIA]: schema },
});

/** An answer of one top element (the bulk answers are JSON of our own, not Part C's tree). */
const rooted = (root: string, body: Schema): Schema => exactly({ [root]: body });

const nullableTime: Schema = { type: ['string', 'null'], format: 'date-time' };

/** The selection a preview or a job is of, as src/service/bulk/routes.ts writes it. */
const selectionAnswer = {
  Service: text,
  Action: { enum: ['retry', 'cancel'] },
  Date: { type: 'string', pattern: DAY_PATTERN.source },
  Id: { type: 'string', description: 'the pipeline selected; empty for every pipeline' },
  Status: { type: 'string', description: 'the statuses selected, comma-separated' },
  Q: { type: 'string', description: 'the substring selected; empty for none' },
} satisfies Record<string, Schema>;

const preview = rooted(
  'BulkPreview',
  exactly({
    ...selectionAnswer,
    Total: wholeNumber,
    RequestId: { type: 'array', items: text, description: 'the first requests it would do' },
  }),
);

/** A job's fields, in every bulk answer that names one. */
const jobAnswer = {
  JobId: { type: 'integer', minimum: 1 },
  ...selectionAnswer,
  Reason: text,
  User: { type: 'string', description: 'who started it, or how (a key) when nobody' },
  Created: isoTime,
  Resumed: nullableTime,
  Finished: nullableTime,
  State: { enum: ['running', 'done', 'stopped'] },
  Stopped: { type: 'string', description: 'why it stopped before its end; only then' },
  Total: wholeNumber,
  Done: wholeNumber,
  Succeeded: wholeNumber,
  Refused: wholeNumber,
  Failed: wholeNumber,
} satisfies Record<string, Schema>;

const job = exactly(jobAnswer, ['Stopped']);

const progress = exactly(
  {
    ...jobAnswer,
    Now: {
      ...exactly({
        Accepted: wholeNumber,
        Unknown: wholeNumber,
        Status: { type: 'array', items: exactly({ Name: text, Count: wholeNumber }) },
      }),
      description:
        'Once the job ended, and the service can tell: its accepted requests by their status now',
    },
    Item: {
      type: 'array',
      items: exactly({
        RequestId: text,
        Outcome: { enum: ['pending', 'started', 'ok', 'refused', 'failed'] },
        Message: text,
        Time: nullableTime,
      }),
    },
    Info: exactly({
      Index: wholeNumber,
      Prev: { type: 'integer', minimum: -1, description: '-1: none' },
      Next: { type: 'integer', minimum: -1, description: '-1: none' },
      Count: wholeNumber,
      Total: wholeNumber,
    }),
  },
  ['Stopped', 'Now'],
);

const error = partCAnswer(['ExecuteResponse']);
const failures: Readonly<Record<string, Answer>> = Object.fromEntries(
  [
    ['400', 'A missing or malformed parameter, named; a format other than json'],
    ['401', 'No credentials or wrong ones'],
    ['403', 'The role may not retry or cancel'],
    ['404', 'No such pipeline, job or service'],
    ['409', 'The selection changed since the preview (expect), or the service is stopping'],
    ['503', 'The data cannot be written'],
  ].map(([status, description]) => [
    status,
    {
      description: description as string,
      // A format other than json is refused in Part C's default form, XML.
      content: {
        'text/xml': { type: 'string', description: 'The error as Part C writes it in XML' },
        [JSON_MEDIA]: error,
      },
    },
  ]),
);

const format: Field = {
  name: 'type',
  schema: { const: 'json' },
  description: 'json (bulk calls answer json only)',
};
const service: Field = { name: 'service', schema: { type: 'string' } };

const selection: Field[] = [
  { name: 'action', schema: { enum: ['retry', 'cancel'] }, description: 'retry by default' },
  { name: 'date', schema: { type: 'string', pattern: DAY_PATTERN.source }, required: true },
  { name: 'id', schema: pipelineIdSchema },
  {
    name: 'status',
    schema: { type: 'string', maxLength: 400 },
    description: 'Error,Stop for a retry (default Error); Wait for a cancel',
  },
  { name: 'q', schema: { type: 'string', maxLength: 200 }, description: 'a substring' },
];

const security = ['apiKey', 'mcSession', 'cookie'];

function bulkEndpoints(prefix: string, pathFields: readonly Field[]): Endpoint[] {
  const tag = 'Bulk retry and cancel';
  return [
    {
      method: 'GET',
      path: `${prefix}/bulk/{type}`,
      tag,
      summary: 'Dry run: the exact count of a selection and its first request ids',
      pathFields: [...pathFields, format],
      fields: selection,
      security,
      answers: {
        '200': json('The preview', preview),
        ...failures,
      },
    },
    {
      method: 'POST',
      path: `${prefix}/bulk/{type}`,
      tag,
      summary: 'Start a job over a selection, with a reason; it runs in batches',
      pathFields: [...pathFields, format],
      fields: [
        ...selection,
        {
          name: 'reason',
          schema: { type: 'string', minLength: 1, maxLength: 500 },
          required: true,
        },
        {
          name: 'expect',
          schema: { type: 'string', pattern: '^\\d{1,10}$' },
          description: 'the preview’s count; another count now is refused (409)',
        },
      ],
      security,
      answers: { '200': json('The job started', rooted('BulkJob', job)), ...failures },
    },
    {
      method: 'GET',
      path: `${prefix}/bulkjob/{type}`,
      tag,
      summary:
        'A job’s progress and its requests’ outcomes, paged; once done, their statuses now (Now)',
      pathFields: [...pathFields, format],
      fields: [
        { name: 'job', schema: { type: 'string', pattern: '^\\d{1,10}$' }, required: true },
        { name: 'outcome', schema: { enum: ['pending', 'started', 'ok', 'refused', 'failed'] } },
        { name: 'index', schema: { type: 'string', pattern: '^\\d{1,10}$' } },
        { name: 'pagesize', schema: { type: 'string', pattern: '^\\d{1,4}$' } },
      ],
      security,
      answers: { '200': json('The job', rooted('BulkJob', progress)), ...failures },
    },
    {
      method: 'GET',
      path: `${prefix}/bulkjobs/{type}`,
      tag,
      summary: 'The service’s recent jobs',
      pathFields: [...pathFields, format],
      security,
      answers: {
        '200': json(
          'Recent jobs, newest first (at most 50)',
          rooted('BulkJobs', exactly({ BulkJob: { type: 'array', items: job } })),
        ),
        ...failures,
      },
    },
  ];
}

export const BULK_ENDPOINTS: readonly Endpoint[] = [
  ...bulkEndpoints('/pipelineapi', []),
  ...bulkEndpoints('/services/{service}/pipelineapi', [service]),
];
